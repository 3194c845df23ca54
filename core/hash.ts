/** The one way the suite hashes: SHA-256, as hex (digests, ids) or base64 (CSP hashes). */
import { createHash } from 'node:crypto';

/** SHA-256 of `data` (strings as UTF-8), lower-case hex. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 of `data` (strings as UTF-8), base64: what a Content-Security-Policy hash source holds. */
export function sha256Base64(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('base64');
}

/** A number in [0, 1) from a 32-bit seed and a label (FNV-1a, then a 32-bit mix): the same seed and label draw the same. */
export function unit(seed: number, label: string): number {
  let hash = 0x811c9dc5 ^ seed;
  for (const ch of label) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x45d9f3b);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 2 ** 32;
}
