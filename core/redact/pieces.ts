/**
 * Pieces of secrets: every {@link FRAGMENT}-character window of a registered
 * form, found in a text with a rolling hash in one pass. A key cut short, or
 * mangled past some point (a client that keeps 7 bits of each header byte),
 * still shows no part of itself.
 */
import { FRAGMENT } from './types.js';

const HASH_BASE = 0x01000193;
const HASH_POW = (() => {
  let p = 1;
  for (let k = 1; k < FRAGMENT; k++) p = Math.imul(p, HASH_BASE);
  return p;
})();

function windowHash(text: string, at: number): number {
  let h = 0;
  for (let k = 0; k < FRAGMENT; k++) h = (Math.imul(h, HASH_BASE) + text.charCodeAt(at + k)) | 0;
  return h;
}

/** The windows of a set of secrets, each with the placeholder of the secret it is a piece of (the first registered). */
export class Pieces {
  readonly #owners = new Map<string, string>();
  readonly #hashes = new Set<number>();

  /** @param publicPieces windows (in lower case) of text the suite publishes itself, never looked for: see `RedactorOptions`. */
  constructor(readonly publicPieces: ReadonlySet<string> = new Set()) {}

  /** Adds every window of `text`, a form of the secret `placeholder` stands for, but the public ones. */
  add(text: string, placeholder: string): void {
    for (let i = 0; i + FRAGMENT <= text.length; i++) {
      const window = text.slice(i, i + FRAGMENT);
      if (this.#owners.has(window) || this.publicPieces.has(window.toLowerCase())) continue;
      this.#owners.set(window, placeholder);
      this.#hashes.add(windowHash(window, 0));
    }
  }

  /** Every window. */
  windows(): IterableIterator<string> {
    return this.#owners.keys();
  }

  /** Calls `hit` with each window of `v` that is a piece, and the placeholder of its secret. */
  find(v: string, hit: (start: number, end: number, placeholder: string) => void): void {
    if (this.#owners.size === 0 || v.length < FRAGMENT) return;
    let h = windowHash(v, 0);
    for (let i = 0; ; i++) {
      if (this.#hashes.has(h)) {
        const owner = this.#owners.get(v.slice(i, i + FRAGMENT));
        if (owner !== undefined) hit(i, i + FRAGMENT, owner);
      }
      if (i + FRAGMENT >= v.length) break;
      h = (Math.imul((h - Math.imul(v.charCodeAt(i), HASH_POW)) | 0, HASH_BASE) + v.charCodeAt(i + FRAGMENT)) | 0;
    }
  }
}
