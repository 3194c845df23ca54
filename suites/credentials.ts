/**
 * The auth checks' variants, and which secrets a run takes. The variants are
 * a view of the one table of Authorization values (core/key.ts `AUTH_FORMS`),
 * from which the redactor's forms of the key derive too, so none reaches a
 * report. Every secret (the key, each secret header, a proxy password, each
 * value a config file took from the environment) is admitted by the same
 * rule ({@link checkSecrets}).
 */
import { type ConnectOptions, connectionSecrets, credentialHeader, MIN_SECRET_LENGTH, secretLabel } from '../core/connection.js';
import { UsageError } from '../core/errors.js';
import {
  AUTH_FORMS,
  type AuthKind,
  checkApiKey,
  FRAGMENT,
  KEY_PLACEHOLDER,
  KEY_REQUIRED,
  keySecret,
  labelsOf,
  LETTERLESS_STAND_IN,
  plainSecret,
  redactorOf,
  type Redactor,
  registeredForms,
  type Secret,
} from '../core/redact.js';
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
 * checked), which report.html shows as they are, whatever the key.
 */
const CATALOG_TEXT: readonly string[] = [
  ...rules.flatMap((r) => [r.id, r.title, r.section, r.statement, 'interpretation' in r ? r.interpretation : '']),
  ...gaps.flatMap((g) => [g.id, g.title, g.section, g.accepted]),
];

/** Every {@link FRAGMENT}-character piece of `words`, in lower case. */
function piecesOf(words: readonly string[]): Set<string> {
  const pieces = new Set<string>();
  for (const word of words) {
    const lower = word.toLowerCase();
    for (let i = 0; i + FRAGMENT <= lower.length; i++) pieces.add(lower.slice(i, i + FRAGMENT));
  }
  return pieces;
}

/** Every {@link FRAGMENT}-character piece of the vocabulary, in lower case. */
const VOCABULARY_PIECES: ReadonlySet<string> = piecesOf(SUITE_VOCABULARY);
const VOCABULARY_TEXT = SUITE_VOCABULARY.join('\n').toLowerCase();

/**
 * Pieces of the suite's own published words (the vocabulary and the
 * catalog), which no redactor of a run looks for (core/redact `RedactorOptions`):
 * they are in every report whatever the key, so they tell nothing of a
 * secret, and a key holding an ordinary word of the catalog ("production",
 * "response") is taken. A secret's whole forms are still looked for.
 */
let publicPieces: ReadonlySet<string> | undefined;
const PUBLIC_PIECES = (): ReadonlySet<string> => (publicPieces ??= piecesOf([...SUITE_VOCABULARY, ...CATALOG_TEXT]));

/**
 * The secrets of a run, and of everything that writes what a run sent or
 * received (certify, replay): the key ({@link keySecret}) and every secret of
 * the connection (core/connection.ts `connectionSecrets`).
 */
export function runSecrets(key: string, connection?: ConnectOptions): Secret[] {
  return [...(key ? [keySecret(key)] : []), ...connectionSecrets(connection).map(({ secret }) => secret)];
}

/** The redactor of {@link runSecrets}: each registered the one way, the suite's own published words aside ({@link PUBLIC_PIECES}). */
export function runRedactor(secrets: Iterable<Secret>): Redactor {
  return redactorOf(secrets, { publicPieces: PUBLIC_PIECES() });
}

/**
 * Whether any form of `secret` (as sent, case-folded, near misses) is, or
 * holds a piece as long as a fragment the redactor hides (core/redact
 * FRAGMENT) of, {@link SUITE_VOCABULARY}, letter case aside. Encoded forms
 * (the Basic credentials) are made of the others.
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
 * every secret meets ({@link admitSecret}). The placeholders `verify` runs
 * with pass.
 */
export function checkRunKey(key: unknown, baseUrl: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new UsageError(KEY_REQUIRED);
  if (key === KEY_PLACEHOLDER || key === LETTERLESS_STAND_IN) return;
  checkApiKey(key);
  admitSecret(keySecret(key), baseUrl, wording`the API key`, 'use a real key');
}

/**
 * Checks every secret of a connection (core/connection.ts `connectionSecrets`:
 * secret headers, a proxy password, values a config file took from the
 * environment into its headers) as the key is checked ({@link admitSecret}),
 * naming each by where it came from, never by its value.
 */
export function checkSecrets(connection: ConnectOptions | undefined, baseUrl: string): void {
  for (const { secret, what } of connectionSecrets(connection))
    admitSecret(secret, baseUrl, what, 'it could not be kept out of the reports');
}

/**
 * `connection` with every extra header whose name says it carries a
 * credential (core/connection.ts `credentialHeader`: `Cookie`, `X-Api-Key`,
 * `X-Auth-Token`, `Private-Token`…) named a secret header too, so that its
 * value is redacted like the key, not written in every curl line and
 * transcript: when that value could be (8 characters or more, admitted as
 * every secret is, {@link admitSecret}). One that could not stays as given
 * (docs/security.md says so). Idempotent.
 */
export function withCredentialHeaders(connection: ConnectOptions | undefined, baseUrl: string): ConnectOptions | undefined {
  const named = new Set((connection?.secretHeaders ?? []).map((name) => name.toLowerCase()));
  const added = Object.entries(connection?.headers ?? {})
    .filter(([name, value]) => !named.has(name.toLowerCase()) && credentialHeader(name) && value.length >= MIN_SECRET_LENGTH)
    .filter(([name, value]) => {
      try {
        admitSecret(plainSecret(value, secretLabel(name)), baseUrl, [name], '');
        return true;
      } catch {
        return false;
      }
    })
    .map(([name]) => name);
  return added.length === 0 ? connection : { ...connection, secretHeaders: [...(connection?.secretHeaders ?? []), ...added] };
}

/**
 * The one admission every secret meets, each refusal one line naming `what`
 * (never the value), `advice` at its end. Refused: a value of digits and "-"
 * shorter than {@link MIN_NUMERIC_KEY_LENGTH} (the integers the suite
 * generates hold it, and redacting it would rewrite numbers before they are
 * judged); one whose forms, in any letter case, share a piece with
 * {@link SUITE_VOCABULARY} (requests and the reports' structure would carry
 * it); one the base URL holds (every request URL would be redacted).
 */
function admitSecret(secret: Secret, baseUrl: string, what: Wording, advice: string): void {
  const value = secret.forms[0]!.value;
  if (/^[0-9-]+$/.test(value) && value.length < MIN_NUMERIC_KEY_LENGTH) {
    throw new UsageError(
      wording`${what} has only digits and "-" and is ${String(value.length)} characters long; such a value occurs in the numbers the suite generates (ids and categoryIds across all of int64), so hiding it would rewrite what is judged: ${secret.placeholder === KEY_PLACEHOLDER ? `use one of at least ${MIN_NUMERIC_KEY_LENGTH} characters` : advice}`,
    );
  }
  if (holdsSuiteWord(secret))
    throw new UsageError(
      wording`${what} is, or holds, a word the suite sends, reads or writes in every run (a path, a field, a status, a header, a report field); ${advice}`,
    );
  if (redactorOf([secret]).leaks(baseUrl))
    throw new UsageError(
      wording`${setting('baseUrl')} holds ${what} (whole, or 8 characters of it in any letter case, which every request URL in the reports would then show hidden); ${secret.placeholder === KEY_PLACEHOLDER ? wording`pass the key with ${setting('apiKey')} only` : advice}`,
    );
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
    AUTH_FORMS.filter((form) => form.group === group && (form.sentFor?.(key) ?? true)).map((form) => ({
      kind: form.kind,
      label: form.label,
      authorization: form.value(key, seed),
    }));
  return { invalid: of('invalid'), otherScheme: of('otherScheme'), schemeCase: of('schemeCase') };
}
