/**
 * Pieces of secrets: every {@link FRAGMENT}-character window of a registered
 * form (or of its base64 or hex), found in a text by hashing the windows
 * that may be one. A key cut short, or mangled past some point (a client that keeps 7
 * bits of each header byte), or a piece of it encoded, still shows no part of
 * itself.
 *
 * Every text of a run is scanned (a page of 100 animals is 8 KB), so a scan
 * first looks only at the {@link GRAM}-character grams starting every
 * `size - GRAM + 1` characters: a window of `size` covers one of them whole,
 * so a window can start only just before a gram that some window holds, and
 * only there are windows hashed. The hits are those of hashing every window.
 */
import type { WindowSet } from '../grams.js';
import { FRAGMENT } from './types.js';

const HASH_BASE = 0x01000193;
const FILTER_BITS = 20;
const FILTER_MASK = (1 << FILTER_BITS) - 1;
/** Characters of a gram the scan samples (see the module comment). */
const GRAM = 4;
const GRAM_BITS = 16;

/** The hash of the window of `size` at `at`; `fold`: its ASCII capitals taken as small letters. */
function windowHash(text: string, at: number, size: number, fold: boolean): number {
  let h = 0;
  for (let k = 0; k < size; k++) {
    const c = text.charCodeAt(at + k);
    h = (Math.imul(h, HASH_BASE) + (fold && c >= 0x41 && c <= 0x5a ? c + 0x20 : c)) | 0;
  }
  return h;
}

/** A {@link GRAM_BITS}-bit hash of the gram at `at`, its ASCII capitals taken as small letters when `fold`. */
function gramHash(text: string, at: number, fold: boolean): number {
  let h = 0;
  for (let k = 0; k < GRAM; k++) {
    const c = text.charCodeAt(at + k);
    h = Math.imul(h ^ (fold && c >= 0x41 && c <= 0x5a ? c + 0x20 : c), HASH_BASE);
  }
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> (32 - GRAM_BITS);
}

/** How a {@link Pieces} looks for its windows. */
export interface PiecesOptions {
  /** Windows (in lower case) of text the suite publishes itself, never looked for: see `RedactorOptions`. */
  publicPieces?: ReadonlySet<string>;
  /** Characters of a window, at least {@link GRAM}. Default {@link FRAGMENT}. */
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
export class Pieces implements WindowSet {
  readonly #owners = new Map<string, string>();
  readonly #hashes = new Set<number>();
  /** A bit per window hash's low {@link FILTER_BITS} bits: most positions of a text are ruled out by one array read. */
  readonly #filter = new Uint8Array(1 << (FILTER_BITS - 3));
  /** A bit per {@link gramHash} of every gram of every window: where none is set, no window can start close before. */
  readonly #grams = new Uint8Array(1 << (GRAM_BITS - 3));
  readonly #public: ReadonlySet<string>;
  readonly size: number;
  readonly #fold: boolean;
  readonly #stride: number;

  constructor(options: PiecesOptions = {}) {
    this.#public = options.publicPieces ?? new Set();
    this.size = options.size ?? FRAGMENT;
    this.#fold = options.foldAscii ?? false;
    this.#stride = options.stride ?? 1;
    if (this.size < GRAM) throw new RangeError(`a piece is at least ${GRAM} characters long, got ${this.size}`);
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
      for (let k = 0; k + GRAM <= this.size; k++) {
        const g = gramHash(window, k, false);
        this.#grams[g >>> 3]! |= 1 << (g & 7);
      }
    }
  }

  /** Every window. */
  windows(): IterableIterator<string> {
    return this.#owners.keys();
  }

  /** Whether the window at `start` of `v` is a piece, whatever `stride` (core/grams.ts `WindowSet`). */
  holdsAt(v: string, start: number): boolean {
    const size = this.size;
    if (start < 0 || start + size > v.length) return false;
    const h = windowHash(v, start, size, this.#fold);
    if ((this.#filter[(h & FILTER_MASK) >>> 3]! & (1 << (h & 7))) === 0 || !this.#hashes.has(h)) return false;
    const window = v.slice(start, start + size);
    return this.#owners.has(this.#fold ? asciiLower(window) : window);
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
    // Windows start every `stride` characters. One that is a piece holds whole the gram at the one multiple of `gap` in
    // [start, start + size - GRAM]: only the starts from `size - GRAM` before a gram whose bit is set up to it are
    // hashed, each once and in order (`next`: the first start not yet looked at).
    const stride = this.#stride;
    const gap = size - GRAM + 1;
    const grams = this.#grams;
    const lastStart = v.length - size;
    let next = 0;
    for (let q = 0; q + GRAM <= v.length; q += gap) {
      const g = gramHash(v, q, this.#fold);
      if ((grams[g >>> 3]! & (1 << (g & 7))) === 0) continue;
      let i = Math.max(next, q - (size - GRAM));
      if (i % stride !== 0) i += stride - (i % stride);
      const last = Math.min(q, lastStart);
      for (; i <= last; i += stride) found(windowHash(v, i, size, this.#fold), i);
      next = Math.max(next, i);
    }
  }
}

/** `text` with its ASCII letters in lower case and nothing else changed (so every offset stays). */
function asciiLower(text: string): string {
  return /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : text;
}
