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
