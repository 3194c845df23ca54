/**
 * The Authorization headers the auth checks send, derived from the key in one
 * place. Every derived value is also registered with the run's redactor
 * (core/redact.ts), so none reaches a report.
 */
import { createHash } from 'node:crypto';
import { swapCase } from '../core/redact.js';
import type { AuthKind } from './check.js';

export interface AuthVariant {
  kind: AuthKind;
  /** What is sent, in words, for messages. */
  label: string;
  /** The header value; absent for `none`. */
  authorization?: string;
}

export interface AuthVariants {
  /** Bearer tokens that are not the key. */
  invalid: AuthVariant[];
  /** The key in forms other than `Bearer <key>`. */
  otherScheme: AuthVariant[];
  /** `Bearer` spelt in another letter case. */
  schemeCase: AuthVariant[];
}

/** Builds the variants for `key`. The random token comes from the seed, so a recorded run can be replayed request for request. */
export function authVariants(key: string, seed: number): AuthVariants {
  const token = createHash('sha256').update(`petstore-conformance wrong key ${seed}`).digest('hex').slice(0, 32);
  const invalid: AuthVariant[] = [
    { kind: 'invalid-token', label: 'a random bearer token', authorization: `Bearer pc-${token}` },
    { kind: 'invalid-token', label: 'the key with a character added', authorization: `Bearer ${key}x` },
    { kind: 'empty-token', label: 'an empty bearer token', authorization: 'Bearer ' },
  ];
  if (key.length > 1) invalid.push({ kind: 'invalid-token', label: 'the key without its last character', authorization: `Bearer ${key.slice(0, -1)}` });
  if (swapCase(key) !== key) invalid.push({ kind: 'invalid-token', label: 'the key with its letter case swapped', authorization: `Bearer ${swapCase(key)}` });
  return {
    invalid,
    otherScheme: [
      { kind: 'other-scheme', label: 'the key as Basic credentials', authorization: `Basic ${Buffer.from(`conformance:${key}`).toString('base64')}` },
      { kind: 'other-scheme', label: 'the key under a Token scheme', authorization: `Token ${key}` },
      { kind: 'other-scheme', label: 'the bare key, no scheme', authorization: key },
      { kind: 'other-scheme', label: 'the key glued to "Bearer" with no space', authorization: `Bearer${key}` },
    ],
    schemeCase: [
      { kind: 'scheme-case', label: '"bearer" in lower case', authorization: `bearer ${key}` },
      { kind: 'scheme-case', label: '"BEARER" in upper case', authorization: `BEARER ${key}` },
    ],
  };
}
