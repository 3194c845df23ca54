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
import { reportSchema } from '../spec/report-schema.js';
import type { AuthKind } from './auth-kind.js';
import { sha256 } from '../core/hash.js';

/** Every member name report.json can hold (the `properties` of its schema, at any depth). */
function reportFieldNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (schema === null || typeof schema !== 'object') return into;
  for (const [name, value] of Object.entries(schema)) {
    if (name === 'properties' && value !== null && typeof value === 'object') for (const field of Object.keys(value)) into.add(field);
    reportFieldNames(value, into);
  }
  return into;
}

/**
 * Words the suite sends or must read in every run: paths and query names, the
 * fields of NewPet, Pet and Error, the statuses, the fixed invalid values and
 * name suffixes, the headers it sends, the placeholders of the key; and the
 * member names of report.json, which are its structure and never redacted. A
 * secret inside one of them (letter case aside) could not be kept out of the
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
  [...reportFieldNames(reportSchema)].join(' '),
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
  if (/^[0-9-]+$/.test(key) && key.length < MIN_NUMERIC_KEY_LENGTH) {
    throw new UsageError(`the API key has only digits and "-" and is ${key.length} characters long; such a key occurs in the numbers the suite generates (categoryIds across all of int64) and could not be kept out of the requests: use one of at least ${MIN_NUMERIC_KEY_LENGTH} characters`);
  }
  if (holdsSuiteWord(key)) {
    throw new UsageError('the API key is, or holds, a word the suite sends, reads or writes in every run (a path, a field, a status, a header, a report field); it could not be kept out of the requests and reports: use a real key');
  }
  if (redactorFor(key).leaks(baseUrl)) throw new UsageError(wording`${setting('baseUrl')} holds the API key; pass the key with ${setting('apiKey')} only`);
}

/**
 * Shortest key of digits and "-" only, the characters of the integers the suite
 * generates: a 19-digit int64 holds a given run of 12 digits with a chance of
 * about 1 in 10^11, so a run's few thousand numbers do not meet it; a key of
 * 4 digits is in about 1 number in 600.
 */
export const MIN_NUMERIC_KEY_LENGTH = 12;

/** Refuses a secret header's value that holds a word of {@link SUITE_VOCABULARY}, naming the header only. */
export function checkSecretHeaders(headers: Readonly<Record<string, string>>, secretHeaders: readonly string[]): void {
  for (const name of secretHeaders) {
    if (holdsSuiteWord(headers[name] ?? '')) {
      throw new UsageError(wording`${setting('headers')} ${name}: the secret value is, or holds, a word the suite sends, reads or writes in every run (a report field, a header…); it could not be kept out of the reports`);
    }
  }
}

/** Whether `secret`, or any piece of it as long as a fragment the redactor hides (core/redact.ts FRAGMENT), is in {@link SUITE_VOCABULARY}, letter case aside. */
function holdsSuiteWord(secret: string): boolean {
  const lower = secret.toLowerCase();
  const pieces = lower.length <= FRAGMENT ? [lower] : Array.from({ length: lower.length - FRAGMENT + 1 }, (_, i) => lower.slice(i, i + FRAGMENT));
  return pieces.some((piece) => VOCABULARY_TEXT.includes(piece));
}

const VOCABULARY_TEXT = SUITE_VOCABULARY.join('\n').toLowerCase();

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
