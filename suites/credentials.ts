/**
 * The Authorization headers the auth checks send, derived from the key in one
 * place. Every derived value is also registered with the run's redactor
 * (core/redact.ts), so none reaches a report.
 */
import { UsageError } from '../core/errors.js';
import { setting, wording } from '../core/wording.js';
import { basicCredentials, checkApiKey, FRAGMENT, KEY_PLACEHOLDER, KEY_REQUIRED, LETTERLESS_STAND_IN, redactorFor, swapCase } from '../core/redact.js';
import { HOSTILE_NAME_SUFFIXES, PLAUSIBLE_INVALID_STATUSES } from '../generators/index.js';
import { PET_STATUSES } from '../spec/openapi.js';
import type { AuthKind } from './auth-kind.js';
import { sha256 } from '../core/hash.js';

/**
 * Words the suite sends or must read in every run: paths and query names, the
 * fields of NewPet, Pet and Error, the statuses, the fixed invalid values and
 * name suffixes, the headers it sends, the placeholders of the key. A key
 * inside one of them (letter case aside) could not be kept out of the
 * requests or the reports, so it is refused before anything is sent.
 */
export const SUITE_VOCABULARY: readonly string[] = [
  '/pets?limit=&status=',
  '/store/orders',
  'name categoryId status id code message',
  ...PET_STATUSES,
  ...PLAUSIBLE_INVALID_STATUSES,
  ...HOSTILE_NAME_SUFFIXES,
  'unknown rejected first value true false null',
  'petstore-conformance',
  'application/json',
  'user-agent accept content-type authorization',
  'Bearer Basic Token conformance:',
  ' load ',
  `${KEY_PLACEHOLDER} <base64 of conformance:${KEY_PLACEHOLDER}> <base64 holding ${KEY_PLACEHOLDER}> <hex of ${KEY_PLACEHOLDER}> <${KEY_PLACEHOLDER} without its last character> <${KEY_PLACEHOLDER} with its letter case swapped> <${KEY_PLACEHOLDER} in lower case> <${KEY_PLACEHOLDER} in upper case> <part of ${KEY_PLACEHOLDER}>`,
];

/**
 * Checks the key a run is given, before anything is sent, quoting nothing of
 * it: its length and characters (core/redact.ts `checkApiKey`), that it is not
 * part of the suite's own words ({@link SUITE_VOCABULARY}), and that the base
 * URL does not carry it. The placeholders `verify` runs with pass.
 */
export function checkRunKey(key: unknown, baseUrl: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new UsageError(KEY_REQUIRED);
  if (key === KEY_PLACEHOLDER || key === LETTERLESS_STAND_IN) return;
  checkApiKey(key);
  // The key, or any piece of it as long as a fragment the redactor hides (core/redact.ts FRAGMENT).
  const lower = key.toLowerCase();
  const pieces = lower.length <= FRAGMENT ? [lower] : Array.from({ length: lower.length - FRAGMENT + 1 }, (_, i) => lower.slice(i, i + FRAGMENT));
  const vocabulary = SUITE_VOCABULARY.join('\n').toLowerCase();
  if (pieces.some((piece) => vocabulary.includes(piece))) {
    throw new UsageError('the API key is, or holds, a word the suite sends or reads in every run (a path, a field, a status, a header); it could not be kept out of the requests and reports: use a real key');
  }
  if (redactorFor(key).leaks(baseUrl)) throw new UsageError(wording`${setting('baseUrl')} holds the API key; pass the key with ${setting('apiKey')} only`);
}

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
  const token = sha256(`petstore-conformance wrong key ${seed}`).slice(0, 32);
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
      { kind: 'other-scheme', label: 'the key as Basic credentials', authorization: `Basic ${basicCredentials(key)}` },
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
