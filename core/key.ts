/**
 * The API key's one owner: which keys the suite takes, the one table of the
 * Authorization values the auth checks send with it ({@link AUTH_FORMS}), and
 * the key as a secret to redact ({@link keySecret}). The auth checks' variants
 * (suites/credentials.ts), the redactor's forms (core/redact.ts) and replay's
 * Authorization headers (`authorizationForms`) are all read from the table,
 * so a form the checks send is always one the redactor knows.
 */
import { UsageError } from './errors.js';
import { sha256 } from './hash.js';
import { SHORTEST_FORM, type Secret, type SecretForm, swapCase, swappedLabel } from './redact/types.js';
import { setting, type Wording, wording } from './wording.js';

/** Placeholder for the API key in evidence; curl commands use the shell variable instead. */
export const KEY_PLACEHOLDER = '<API_KEY>';

/** The environment variable the CLI reads the key from; replay commands expand it. */
export const KEY_ENV = 'PETSTORE_API_KEY';

/**
 * What `verify` runs the suite with when the recorded key had no letters (its
 * letter-case-swapped variant was never sent): a placeholder without letters
 * either, so the recomputation sends exactly the recorded requests.
 */
export const LETTERLESS_STAND_IN = '<0#1!2-3=4+5*6>';

/** Shortest key the suite takes: a shorter one would occur in ordinary text everywhere. */
export const MIN_KEY_LENGTH = SHORTEST_FORM;
/** Longest key the suite takes (characters). */
export const MAX_KEY_LENGTH = 4096;

/** What a run or a certification without a key is told. */
export const KEY_REQUIRED: Wording = wording`an API key is required: pass ${setting('apiKey')}`;

/**
 * Why `key` cannot be used, in words that never quote it; undefined when it can.
 * Bounds: {@link MIN_KEY_LENGTH} to {@link MAX_KEY_LENGTH} characters of printable
 * ASCII or Latin-1 (it travels in an HTTP header), without `<` and `>` (the
 * placeholders use them) and without whitespace at either end (HTTP drops it).
 */
export function keyProblem(key: string): Wording | undefined {
  if (key.length === 0) return KEY_REQUIRED;
  if (key.length > MAX_KEY_LENGTH) return [`the API key is ${key.length} characters long; at most ${MAX_KEY_LENGTH} are supported`];
  if (key.length < MIN_KEY_LENGTH)
    return [`the API key is ${key.length} character(s) long; at least ${MIN_KEY_LENGTH} are needed to keep it out of the reports`];
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c < 0xa0))
      return ['the API key holds a control character (a line break, a tab…), which an HTTP header cannot carry'];
    if (c > 0xff) return ['the API key holds a character outside Latin-1 (U+0000–U+00FF), which an HTTP header cannot carry'];
    if (c === 0x3c || c === 0x3e) return ['the API key holds "<" or ">", which the redaction placeholders use'];
  }
  if (/^\s|\s$/.test(key)) return ['the API key begins or ends with whitespace, which HTTP drops from header values'];
  return undefined;
}

/** Throws a `UsageError` (quoting nothing of the key) when {@link keyProblem} finds one. */
export function checkApiKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new UsageError(problem);
}

/** `Bearer <token>`: the Authorization value the document gives, the one place it is written. */
export function bearer(token: string): string {
  return `Bearer ${token}`;
}

/** The Basic credentials the auth checks send with `key`: base64 of `conformance:<key>`. */
export function basicCredentials(key: string): string {
  return Buffer.from(`conformance:${key}`).toString('base64');
}

export { swapCase };

/** How a request authenticates. */
export type AuthKind =
  /** `Bearer <key>`: the form the document gives. */
  | 'valid'
  /** No Authorization header. */
  | 'none'
  /** A non-empty bearer token that is not the key. */
  | 'invalid-token'
  /** `Bearer ` with no token. */
  | 'empty-token'
  /** The key under another scheme, or malformed. */
  | 'other-scheme'
  /** The key with the scheme name in another letter case. */
  | 'scheme-case';

/** The credentials an Authorization value carries, made from the key, each with the label that stands for it in reports. */
const TOKENS = {
  key: { of: (key: string) => key, label: KEY_PLACEHOLDER },
  withoutLast: { of: (key: string) => key.slice(0, -1), label: `<${KEY_PLACEHOLDER} without its last character>` },
  swapped: { of: swapCase, label: swappedLabel(KEY_PLACEHOLDER) },
  basic: { of: basicCredentials, label: `<base64 of conformance:${KEY_PLACEHOLDER}>` },
} as const;

type Token = keyof typeof TOKENS;

/** One Authorization value the suite sends. */
export interface AuthForm {
  /** Which list of the auth checks sends it; `valid` is every other request's. */
  group: 'valid' | 'invalid' | 'otherScheme' | 'schemeCase';
  kind: AuthKind;
  /** What is sent, in words, for messages. */
  label: string;
  /** The header value sent with `key` (`seed` makes the random token). */
  value: (key: string, seed: number) => string;
  /** The credential made from the key that it carries; none for a value that carries nothing of it. */
  carries?: Token;
  /** Sent only for keys where this holds (a near miss that differs from the key). */
  sentFor?: (key: string) => boolean;
}

/**
 * Every Authorization value the suite sends, in the order the auth checks
 * send them: the valid one, then each check's list. Its views:
 * `authVariants` (suites/credentials.ts), {@link keySecret} (what the
 * redactor registers) and `authorizationForms` (core/redact.ts, for replay).
 */
export const AUTH_FORMS: readonly AuthForm[] = [
  { group: 'valid', kind: 'valid', label: 'the key', value: (key) => bearer(key), carries: 'key' },
  {
    group: 'invalid',
    kind: 'invalid-token',
    label: 'a random bearer token',
    value: (_key, seed) => bearer(`pc-${sha256(`petstore-conformance wrong key ${seed}`).slice(0, 32)}`),
  },
  { group: 'invalid', kind: 'invalid-token', label: 'the key with a character added', value: (key) => bearer(`${key}x`), carries: 'key' },
  { group: 'invalid', kind: 'empty-token', label: 'an empty bearer token', value: () => bearer('') },
  {
    group: 'invalid',
    kind: 'invalid-token',
    label: 'the key without its last character',
    value: (key) => bearer(TOKENS.withoutLast.of(key)),
    carries: 'withoutLast',
    sentFor: (key) => key.length > 1,
  },
  {
    group: 'invalid',
    kind: 'invalid-token',
    label: 'the key with its letter case swapped',
    value: (key) => bearer(swapCase(key)),
    carries: 'swapped',
    sentFor: (key) => swapCase(key) !== key,
  },
  {
    group: 'otherScheme',
    kind: 'other-scheme',
    label: 'the key as Basic credentials',
    value: (key) => `Basic ${basicCredentials(key)}`,
    carries: 'basic',
  },
  { group: 'otherScheme', kind: 'other-scheme', label: 'the key under a Token scheme', value: (key) => `Token ${key}`, carries: 'key' },
  { group: 'otherScheme', kind: 'other-scheme', label: 'the bare key, no scheme', value: (key) => key, carries: 'key' },
  {
    group: 'otherScheme',
    kind: 'other-scheme',
    label: 'the key glued to "Bearer" with no space',
    value: (key) => `Bearer${key}`,
    carries: 'key',
  },
  { group: 'schemeCase', kind: 'scheme-case', label: '"bearer" in lower case', value: (key) => `bearer ${key}`, carries: 'key' },
  { group: 'schemeCase', kind: 'scheme-case', label: '"BEARER" in upper case', value: (key) => `BEARER ${key}`, carries: 'key' },
];

/**
 * The key as a secret: the credentials {@link AUTH_FORMS} carry, in table
 * order (the key, its near misses, the Basic credentials, which count whole
 * only: their pieces are ordinary base64), each with its label. The labels do
 * not depend on the key, so the placeholder itself gets the same ones.
 */
export function keySecret(key: string): Secret {
  const forms: SecretForm[] = [];
  for (const form of AUTH_FORMS) {
    const token = form.carries;
    if (token === undefined || forms.some((f) => f.label === TOKENS[token].label)) continue;
    const value = TOKENS[token].of(key);
    const sent = form.value(key, 0);
    forms.push({
      value,
      label: TOKENS[token].label,
      ...(token === 'basic' ? { wholeOnly: true } : {}),
      ...(sent.endsWith(value) ? { sentAfter: sent.slice(0, sent.length - value.length) } : {}),
    });
  }
  return { placeholder: KEY_PLACEHOLDER, forms };
}
