/**
 * Pieces of secrets: every {@link FRAGMENT}-character window of a registered
 * form (or of its base64 or hex), found in a text with a rolling hash in one
 * pass. A key cut short, or mangled past some point (a client that keeps 7
 * bits of each header byte), or a piece of it encoded, still shows no part of
 * itself.
 */
import { FRAGMENT } from './types.js';

const HASH_BASE = 0x01000193;
const FILTER_BITS = 20;
const FILTER_MASK = (1 << FILTER_BITS) - 1;

/** `HASH_BASE` to the power `size - 1`, what the rolling hash takes off for the character leaving a window of `size`. */
function hashPow(size: number): number {
  let p = 1;
  for (let k = 1; k < size; k++) p = Math.imul(p, HASH_BASE);
  return p;
}

/** The hash of the window of `size` at `at`; `fold`: its ASCII capitals taken as small letters. */
function windowHash(text: string, at: number, size: number, fold: boolean): number {
  let h = 0;
  for (let k = 0; k < size; k++) {
    const c = text.charCodeAt(at + k);
    h = (Math.imul(h, HASH_BASE) + (fold && c >= 0x41 && c <= 0x5a ? c + 0x20 : c)) | 0;
  }
  return h;
}

/** How a {@link Pieces} looks for its windows. */
export interface PiecesOptions {
  /** Windows (in lower case) of text the suite publishes itself, never looked for: see `RedactorOptions`. */
  publicPieces?: ReadonlySet<string>;
  /** Characters of a window. Default {@link FRAGMENT}. */
  size?: number;
  /** Windows match whatever the letter case of their ASCII letters (an encoding in a header name comes back in lower case). */
  foldAscii?: boolean;
  /**
   * Looks only at windows starting every `stride` characters: an occurrence
   * of `size + stride - 1` characters or more is still always found, at a
   * fraction of the cost. Default 1 (every window).
   */
  stride?: number;
}

/** The windows of a set of secrets, each with the placeholder of the secret it is a piece of (the first registered). */
export class Pieces {
  readonly #owners = new Map<string, string>();
  readonly #hashes = new Set<number>();
  /** A bit per window hash's low {@link FILTER_BITS} bits: most positions of a text are ruled out by one array read. */
  readonly #filter = new Uint8Array(1 << (FILTER_BITS - 3));
  readonly #pow: number;
  readonly #public: ReadonlySet<string>;
  readonly size: number;
  readonly #fold: boolean;
  readonly #stride: number;

  constructor(options: PiecesOptions = {}) {
    this.#public = options.publicPieces ?? new Set();
    this.size = options.size ?? FRAGMENT;
    this.#fold = options.foldAscii ?? false;
    this.#stride = options.stride ?? 1;
    this.#pow = hashPow(this.size);
  }

  /** Adds every window of `text`, a form of the secret `placeholder` stands for, but the public ones. */
  add(text: string, placeholder: string): void {
    const folded = this.#fold ? asciiLower(text) : text;
    for (let i = 0; i + this.size <= folded.length; i++) {
      const window = folded.slice(i, i + this.size);
      if (this.#owners.has(window) || this.#public.has(window.toLowerCase())) continue;
      this.#owners.set(window, placeholder);
      const h = windowHash(window, 0, this.size, false);
      this.#hashes.add(h);
      this.#filter[(h & FILTER_MASK) >>> 3]! |= 1 << (h & 7);
    }
  }

  /** Every window. */
  windows(): IterableIterator<string> {
    return this.#owners.keys();
  }

  /** Calls `hit` with each window of `v` that is a piece (every `stride` characters), and the placeholder of its secret. */
  find(v: string, hit: (start: number, end: number, placeholder: string) => void): void {
    const size = this.size;
    if (this.#owners.size === 0 || v.length < size) return;
    const filter = this.#filter;
    const found = (h: number, i: number) => {
      if ((filter[(h & FILTER_MASK) >>> 3]! & (1 << (h & 7))) === 0 || !this.#hashes.has(h)) return;
      const window = v.slice(i, i + size);
      const owner = this.#owners.get(this.#fold ? asciiLower(window) : window);
      if (owner !== undefined) hit(i, i + size, owner);
    };
    if (this.#stride > 1 || this.#fold) {
      for (let i = 0; i + size <= v.length; i += this.#stride) found(windowHash(v, i, size, this.#fold), i);
      return;
    }
    let h = windowHash(v, 0, size, false);
    for (let i = 0; ; i++) {
      found(h, i);
      if (i + size >= v.length) break;
      h = (Math.imul((h - Math.imul(v.charCodeAt(i), this.#pow)) | 0, HASH_BASE) + v.charCodeAt(i + size)) | 0;
    }
  }
}

/** `text` with its ASCII letters in lower case and nothing else changed (so every offset stays). */
function asciiLower(text: string): string {
  return /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : text;
}
