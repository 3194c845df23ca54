/**
 * A quick test of whether a text may hold any of a set of strings, that never
 * says no wrongly. Every string is at least `min` characters long, so any
 * occurrence covers a whole 4-character piece (a gram) starting at a multiple
 * of `min - 3`: looking at the grams there only, and finding none of the
 * strings' grams, proves none occurs. Letters A–F count without case (hex comes
 * in either); that only adds false alarms.
 *
 * The redactor asks it before scanning a text for a key in all its forms: most
 * texts (bodies, headers, report files) hold no piece of the key at all.
 */

const GRAM = 4;
/** A bit per 16-bit gram hash: most grams of a text are ruled out without building a string. */
const HASH_BITS = 16;

const fold = (c: number) => (c >= 0x41 && c <= 0x46 ? c + 0x20 : c);

function gramHash(text: string, at: number): number {
  let h = fold(text.charCodeAt(at));
  for (let k = 1; k < GRAM; k++) h = Math.imul(h, 0x01000193) ^ fold(text.charCodeAt(at + k));
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> (32 - HASH_BITS);
}

function gramAt(text: string, at: number): string {
  return String.fromCharCode(
    fold(text.charCodeAt(at)),
    fold(text.charCodeAt(at + 1)),
    fold(text.charCodeAt(at + 2)),
    fold(text.charCodeAt(at + 3)),
  );
}

export class SampledGrams {
  readonly #grams = new Set<string>();
  readonly #hashes = new Uint8Array(1 << (HASH_BITS - 3));
  /** Distance between the grams looked at; 0 when a string is shorter than a gram (every text may hold it). */
  readonly #stride: number;
  readonly #none: boolean;

  constructor(strings: Iterable<string>) {
    let min = Infinity;
    for (const s of strings) {
      min = Math.min(min, s.length);
      for (let i = 0; i + GRAM <= s.length; i++) {
        this.#grams.add(gramAt(s, i));
        const h = gramHash(s, i);
        this.#hashes[h >>> 3]! |= 1 << (h & 7);
      }
    }
    this.#none = min === Infinity;
    this.#stride = min >= GRAM ? min - GRAM + 1 : 0;
  }

  /** False only when `text` holds none of the strings. */
  mayHold(text: string): boolean {
    if (this.#none) return false;
    if (this.#stride === 0) return true;
    for (let at = 0; at + GRAM <= text.length; at += this.#stride) {
      const h = gramHash(text, at);
      if ((this.#hashes[h >>> 3]! & (1 << (h & 7))) !== 0 && this.#grams.has(gramAt(text, at))) return true;
    }
    return false;
  }
}
