/**
 * The auth checks' variants, and which secrets a run takes. The variants are
 * a view of the one table of Authorization values (core/key.ts `AUTH_FORMS`),
 * from which the redactor's forms of the key derive too, so none reaches a
 * report. Every secret (the key, each secret header, a proxy password, each
 * value a config file took from the environment) is admitted by the same
 * rule ({@link checkSecrets}).
 */
import { type ConnectOptions, connectionSecrets } from '../core/connection.js';
import { UsageError } from '../core/errors.js';
import { AUTH_FORMS, type AuthKind, checkApiKey, FRAGMENT, KEY_PLACEHOLDER, KEY_REQUIRED, keySecret, labelsOf, LETTERLESS_STAND_IN, redactorOf, registeredForms, type Secret } from '../core/redact.js';
import { setting, type Wording, wording } from '../core/wording.js';
import { HOSTILE_NAME_SUFFIXES, PLAUSIBLE_INVALID_STATUSES } from '../generators/index.js';
import { gaps } from '../spec/gaps.js';
import { PET_STATUSES } from '../spec/openapi.js';
import { reportSchema } from '../spec/report-schema.js';
import { rules } from '../spec/rules.js';

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
 * name suffixes, the headers it sends, the labels of the key's forms; and the
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
  labelsOf(keySecret(KEY_PLACEHOLDER)).join(' '),
];

/**
 * The rule catalog and the gaps (titles, sections, statements, how each is
 * checked), which report.html shows as they are: a piece of a secret found in
 * them would break the reports' belt-and-braces check, and redacting them
 * would rewrite the suite's own words, so a secret sharing a
 * {@link FRAGMENT}-character piece with them is refused too. (A secret shorter
 * than a piece is only held against {@link SUITE_VOCABULARY}: such a key may be
 * an ordinary word, which the README warns of.)
 */
const CATALOG_TEXT: readonly string[] = [...rules.flatMap((r) => [r.id, r.title, r.section, r.statement, 'interpretation' in r ? r.interpretation : '']), ...gaps.flatMap((g) => [g.id, g.title, g.section, g.accepted])];

/** Every {@link FRAGMENT}-character piece of the vocabulary and the catalog, in lower case. */
const VOCABULARY_PIECES: ReadonlySet<string> = (() => {
  const pieces = new Set<string>();
  for (const word of [...SUITE_VOCABULARY, ...CATALOG_TEXT]) {
    const lower = word.toLowerCase();
    for (let i = 0; i + FRAGMENT <= lower.length; i++) pieces.add(lower.slice(i, i + FRAGMENT));
  }
  return pieces;
})();
const VOCABULARY_TEXT = SUITE_VOCABULARY.join('\n').toLowerCase();

/**
 * Whether any form of `secret` (as sent, case-folded, near misses) is, or
 * holds a piece as long as a fragment the redactor hides (core/redact.ts
 * FRAGMENT) of, the suite's own words, letter case aside. Encoded forms (the
 * Basic credentials) are made of the others.
 */
function holdsSuiteWord(secret: Secret): boolean {
  return registeredForms(secret).some(({ value, lookedFor, wholeOnly }) => {
    if (!lookedFor || wholeOnly) return false;
    const lower = value.toLowerCase();
    if (lower.length < FRAGMENT) return VOCABULARY_TEXT.includes(lower);
    for (let i = 0; i + FRAGMENT <= lower.length; i++) if (VOCABULARY_PIECES.has(lower.slice(i, i + FRAGMENT))) return true;
    return false;
  });
}

/**
 * Shortest key of digits and "-" only, the characters of the integers the suite
 * generates: a 19-digit int64 holds a given run of 12 digits with a chance of
 * about 1 in 10^11, so a run's few thousand numbers do not meet it; a key of
 * 4 digits is in about 1 number in 600.
 */
export const MIN_NUMERIC_KEY_LENGTH = 12;

/**
 * Checks the key a run is given, before anything is sent, quoting nothing of
 * it: its length and characters (core/key.ts `checkApiKey`), then the rule
 * every secret meets ({@link checkSecrets}). The placeholders `verify` runs
 * with pass.
 */
export function checkRunKey(key: unknown, baseUrl: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new UsageError(KEY_REQUIRED);
  if (key === KEY_PLACEHOLDER || key === LETTERLESS_STAND_IN) return;
  checkApiKey(key);
  if (/^[0-9-]+$/.test(key) && key.length < MIN_NUMERIC_KEY_LENGTH) {
    throw new UsageError(`the API key has only digits and "-" and is ${key.length} characters long; such a key occurs in the numbers the suite generates (categoryIds across all of int64) and could not be kept out of the requests: use one of at least ${MIN_NUMERIC_KEY_LENGTH} characters`);
  }
  admit(keySecret(key), baseUrl, {
    word: ['the API key is, or holds, a word the suite sends, reads or writes in every run (a path, a field, a status, a header, a report field, a rule); it could not be kept out of the requests and reports: use a real key'],
    inBaseUrl: wording`${setting('baseUrl')} holds the API key; pass the key with ${setting('apiKey')} only`,
  });
}

/**
 * Checks every secret of a connection (core/connection.ts `connectionSecrets`:
 * secret headers, a proxy password, values a config file took from the
 * environment) as the key is checked, naming each by where it came from,
 * never by its value: no form of it may share a piece with the suite's own
 * words ({@link SUITE_VOCABULARY}, the rule catalog), since the boundary
 * redacts answers before checks judge them and the reports' structure is
 * never redacted; and the base URL may not hold it (every request URL would
 * be redacted).
 */
export function checkSecrets(connection: ConnectOptions | undefined, baseUrl: string): void {
  for (const { secret, what } of connectionSecrets(connection)) {
    admit(secret, baseUrl, {
      word: wording`${what} is, or holds, a word the suite sends, reads or writes in every run (a report field, a header, a rule…); it could not be kept out of the reports`,
      inBaseUrl: wording`${what} is in ${setting('baseUrl')}; it could not be kept out of the reports`,
    });
  }
}

/** The one admission every secret meets: refused with `messages` when it holds a suite word, or when the base URL holds it. */
function admit(secret: Secret, baseUrl: string, messages: { word: Wording; inBaseUrl: Wording }): void {
  if (holdsSuiteWord(secret)) throw new UsageError(messages.word);
  if (redactorOf([secret]).leaks(baseUrl)) throw new UsageError(messages.inBaseUrl);
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

/**
 * The variants for `key`, read from core/key.ts `AUTH_FORMS`. The random token
 * comes from the seed, so a recorded run can be replayed request for request.
 */
export function authVariants(key: string, seed: number): AuthVariants {
  const of = (group: 'invalid' | 'otherScheme' | 'schemeCase'): AuthVariant[] =>
    AUTH_FORMS.filter((form) => form.group === group && (form.sentFor?.(key) ?? true)).map((form) => ({ kind: form.kind, label: form.label, authorization: form.value(key, seed) }));
  return { invalid: of('invalid'), otherScheme: of('otherScheme'), schemeCase: of('schemeCase') };
}
