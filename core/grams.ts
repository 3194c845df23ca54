/**
 * A quick test of whether a text holds any of a set of strings, or any window
 * of a set of windows, that never says no wrongly. Every string and window is
 * at least `min` characters long, so any occurrence covers a whole
 * 4-character piece (a gram) starting at a multiple of `min - 3`: only the
 * grams there are looked at. A gram none of them holds (ASCII letter case
 * aside) rules its place out, most often with one array read; at a gram one of
 * them holds, the strings that hold it are compared there, and the windows that
 * could cover it are asked ({@link WindowSet}). So the answer is exact, yes
 * only when one occurs, but for a gram held in too many places to compare
 * (a long key repeating itself): that one says yes. Letters A–F of the strings count without case (hex
 * comes in either); a window set says itself how it takes case.
 *
 * The redactor asks it before scanning a text for a key in all its forms: most
 * texts (bodies, headers, report files) hold no piece of the key at all, and
 * the digits of a page of animals often hold a gram of a key's hex without
 * holding any of it (a yes there cost the whole scan).
 */

const GRAM = 4;
/** A bit per 16-bit gram hash: most grams of a text are ruled out without building a string. */
const HASH_BITS = 16;

/** Every ASCII capital as its small letter: the grams' hash folds case, so it lets through any letter case a set takes. */
const foldAscii = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);
/** A–F as a–f: how the strings compare (hex in either case). */
const foldHex = (c: number) => (c >= 0x41 && c <= 0x46 ? c + 0x20 : c);

/** The gram at `at`, its ASCII letters folded: what the exact set of grams holds. */
function gramAt(text: string, at: number): string {
  return String.fromCharCode(
    foldAscii(text.charCodeAt(at)),
    foldAscii(text.charCodeAt(at + 1)),
    foldAscii(text.charCodeAt(at + 2)),
    foldAscii(text.charCodeAt(at + 3)),
  );
}

/**
 * Places of a gram compared, at most: past this (a long key that repeats itself holds some grams hundreds of times),
 * the gram alone says "maybe", as every gram did before the strings were compared.
 */
const MAX_PLACES = 64;

function gramHash(text: string, at: number): number {
  return unitsHash(text.charCodeAt(at), text.charCodeAt(at + 1), text.charCodeAt(at + 2), text.charCodeAt(at + 3));
}

/** {@link gramHash} of a gram given as its four units. */
function unitsHash(a: number, b: number, c: number, d: number): number {
  let h = foldAscii(a);
  h = Math.imul(h, 0x01000193) ^ foldAscii(b);
  h = Math.imul(h, 0x01000193) ^ foldAscii(c);
  h = Math.imul(h, 0x01000193) ^ foldAscii(d);
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> (32 - HASH_BITS);
}

/** Windows of one size looked up where they may start (core/redact/pieces.ts `Pieces`). */
export interface WindowSet {
  /** Characters of a window. */
  readonly size: number;
  /** Every window, as the set keeps it (its grams are what may start one). */
  windows(): Iterable<string>;
  /** Whether the window of {@link size} at `start` of `text` is one of the set, as the set takes letter case. */
  holdsAt(text: string, start: number): boolean;
}

export class SampledGrams {
  /** A bit per {@link gramHash} of every gram of every string and window. */
  readonly #hashes = new Uint8Array(1 << (HASH_BITS - 3));
  /** Every gram of every string and window, folded: a hash's bit set by another gram is ruled out here. */
  readonly #grams = new Set<string>();
  readonly #strings: string[] = [];
  /**
   * By the top {@link #bucketBits} bits of a gram's hash, the strings holding such a gram and where:
   * `#places[2 * #heads[b] … 2 * #heads[b + 1])`, pairs (string, offset). As many buckets as grams, about: a few
   * strings (one short key) cost a small table to build.
   */
  readonly #bucketBits: number;
  readonly #heads: Uint32Array;
  readonly #places: Uint32Array;
  readonly #windows: readonly WindowSet[];
  /** Distance between the grams looked at; 0 when a string is shorter than a gram (every text may hold it). */
  readonly #stride: number;
  readonly #none: boolean;

  /** `strings` compared with A–F in either case; `windows` asked as they take case. */
  constructor(strings: Iterable<string>, windows: readonly WindowSet[] = []) {
    let min = Infinity;
    let places = 0;
    for (const s of strings) {
      min = Math.min(min, s.length);
      this.#strings.push(s);
      places += Math.max(0, s.length - GRAM + 1);
    }
    this.#bucketBits = Math.min(HASH_BITS, Math.max(4, Math.ceil(Math.log2(places + 1))));
    const shift = HASH_BITS - this.#bucketBits;
    // Two passes over the strings: the count of places per bucket, then the places.
    this.#heads = new Uint32Array((1 << this.#bucketBits) + 1);
    for (const s of this.#strings) for (let i = 0; i + GRAM <= s.length; i++) this.#heads[(gramHash(s, i) >>> shift) + 1]!++;
    for (let b = 0; b < 1 << this.#bucketBits; b++) this.#heads[b + 1]! += this.#heads[b]!;
    this.#places = new Uint32Array(2 * places);
    const filled = this.#heads.slice(0, 1 << this.#bucketBits);
    const mark = (text: string, at: number) => {
      const h = gramHash(text, at);
      this.#hashes[h >>> 3]! |= 1 << (h & 7);
      this.#grams.add(gramAt(text, at));
      return h;
    };
    this.#strings.forEach((s, index) => {
      for (let i = 0; i + GRAM <= s.length; i++) {
        const h = mark(s, i);
        const at = 2 * filled[h >>> shift]!++;
        this.#places[at] = index;
        this.#places[at + 1] = i;
      }
    });
    this.#windows = windows.filter((set) => {
      let any = false;
      for (const window of set.windows()) {
        any = true;
        for (let i = 0; i + GRAM <= window.length; i++) mark(window, i);
      }
      if (any) min = Math.min(min, set.size);
      return any;
    });
    this.#none = min === Infinity;
    this.#stride = min >= GRAM ? min - GRAM + 1 : 0;
  }

  /** False only when `text` holds none of the strings and none of the windows. */
  mayHold(text: string): boolean {
    if (this.#none) return false;
    if (this.#stride === 0) return true;
    for (let at = 0; at + GRAM <= text.length; at += this.#stride) {
      const h = gramHash(text, at);
      if ((this.#hashes[h >>> 3]! & (1 << (h & 7))) !== 0 && this.#grams.has(gramAt(text, at)) && this.#holdsAround(text, at, h))
        return true;
    }
    return false;
  }

  /**
   * False only when `text` without the units `dropped` marks (1 per UTF-16
   * unit: core/redact/gaps.ts) holds none of the strings and none of the
   * windows; without building that text. Yes where a gram at a sampled place
   * is one of theirs: the caller builds the text, and asks {@link mayHold}.
   */
  mayHoldWithout(text: string, dropped: Uint8Array): boolean {
    if (this.#none) return false;
    if (this.#stride === 0) return true;
    const stride = this.#stride;
    const hashes = this.#hashes;
    const n = text.length;
    // Units kept are counted; at every `stride`-th one from the fourth, the gram of the last four kept is looked at,
    // where `mayHold` would look in the text built. The three before it are found by walking back.
    let kept = 0;
    let due = GRAM;
    for (let i = 0; i < n; i++) {
      if (dropped[text.charCodeAt(i)] === 1 || ++kept !== due) continue;
      due += stride;
      let k = i;
      const d = text.charCodeAt(k);
      while (dropped[text.charCodeAt(--k)] === 1);
      const c = text.charCodeAt(k);
      while (dropped[text.charCodeAt(--k)] === 1);
      const b = text.charCodeAt(k);
      while (dropped[text.charCodeAt(--k)] === 1);
      const a = text.charCodeAt(k);
      const h = unitsHash(a, b, c, d);
      if (
        (hashes[h >>> 3]! & (1 << (h & 7))) !== 0 &&
        this.#grams.has(String.fromCharCode(foldAscii(a), foldAscii(b), foldAscii(c), foldAscii(d)))
      )
        return true;
    }
    return false;
  }

  /** Whether a string or a window occurs in `text` over the gram at `at` (hash `h`): the strings of its bucket compared there. */
  #holdsAround(text: string, at: number, h: number): boolean {
    const b = h >>> (HASH_BITS - this.#bucketBits);
    if (this.#heads[b + 1]! - this.#heads[b]! > MAX_PLACES) return true;
    for (let p = 2 * this.#heads[b]!, end = 2 * this.#heads[b + 1]!; p < end; p += 2) {
      const s = this.#strings[this.#places[p]!]!;
      const start = at - this.#places[p + 1]!;
      if (start >= 0 && start + s.length <= text.length && sameHex(text, start, s)) return true;
    }
    for (const set of this.#windows) {
      const last = Math.min(at, text.length - set.size);
      for (let start = Math.max(0, at - (set.size - GRAM)); start <= last; start++) if (set.holdsAt(text, start)) return true;
    }
    return false;
  }
}

/** Whether `s` occurs in `text` at `start`, A–F in either case. */
function sameHex(text: string, start: number, s: string): boolean {
  for (let k = 0; k < s.length; k++) if (foldHex(text.charCodeAt(start + k)) !== foldHex(s.charCodeAt(k))) return false;
  return true;
}
