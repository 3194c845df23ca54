/**
 * Reading an answer for the shared judgements (suites/judge.ts): what came
 * back in one line, its JSON body, whether the body was read at all, and the
 * Pet it holds.
 */
import { bodyJson } from '../../core/http.js';
import { excerpt } from '../../core/excerpt.js';
import { type Json, exactInteger, int64Of, isJsonObject, isLosslessNumber, jsonObject, MAX_JSON_TOKENS } from '../../core/json.js';
import { type JsonShape, mayBeginJson } from '../../core/json-prefix.js';
import type { RuleId } from '../../spec/rules.js';
import { describeViolations, type SchemaViolation, validateSchema } from '../../spec/validate.js';
import type { Asserter, PetView, SentExchange } from '../check.js';

/** Characters of a body an excerpt in a message carries at most (before it is redacted and cut to what is shown). */
const EXCERPT_SOURCE_CHARS = 256 * 1024;

const lossyUtf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * One line describing what came back: status, media type, a body excerpt; or
 * why nothing did. The body goes into the line whole, as an excerpt: it is
 * redacted, quoted and cut (120 characters) only when the message is redacted.
 */
export function describeResponse(exchange: SentExchange): string {
  const { response, error } = exchange;
  if (!response) return `no response (${error?.message ?? 'unknown reason'})`;
  const type = response.headers['content-type'];
  const location = response.status >= 300 && response.status < 400 ? response.headers.location : undefined;
  if (location !== undefined)
    return `${response.status} redirect to ${excerpt(location, 200, { mode: 'quote' })} (not followed: the suite talks only to the base URL)`;
  const decoded = lossyUtf8.decode(response.body.subarray(0, EXCERPT_SOURCE_CHARS * 3));
  const whole = decoded.length <= EXCERPT_SOURCE_CHARS && response.body.length <= EXCERPT_SOURCE_CHARS * 3;
  const quoted = excerpt(whole ? decoded : decoded.slice(0, EXCERPT_SOURCE_CHARS), 120, {
    mode: 'quote',
    complete: whole && !response.truncated,
  });
  const body =
    response.body.length === 0
      ? 'empty body'
      : response.truncated
        ? `a body longer than ${response.body.length} bytes (not read to its end): ${quoted}`
        : `${response.body.length} bytes: ${quoted}`;
  return `${response.status}${type ? ` (${type})` : ''}, ${body}`;
}

/** The parsed JSON body, when there is a complete, well-formed one. */
export function jsonOf(exchange: SentExchange): Json | undefined {
  if (!exchange.response) return undefined;
  const parsed = bodyJson(exchange.response);
  return parsed.ok ? parsed.value : undefined;
}

/**
 * True when the suite did not read the body to its end (longer than the bound,
 * or coded and decoding to more), or did not parse it (more JSON than
 * `MAX_JSON_TOKENS`, core/json.ts), and what it read, or the part before that
 * bound, could still begin the JSON `shape` expected (`core/json-prefix.ts`):
 * what the body holds is unknown, so each of `rules` that would rest on it is
 * inconclusive, never failed. A body whose start no ending can mend (an HTML
 * page, a Pet followed by other bytes, an array where a Pet belongs) is judged
 * as it is, and fails. Judgements of the status and headers do not ask. The
 * body judged is the redacted one: a run of characters that may be a key's
 * form cut in two is dropped from the end of a body not read whole, so such a
 * run cannot rule a body out. (A body nested past `MAX_JSON_DEPTH` is parsed,
 * its deepest part left out, and judged whole: no constraint of the interface
 * sits that deep.)
 */
export function bodyNotRead(a: Asserter, rules: readonly RuleId[], exchange: SentExchange, shape: JsonShape): boolean {
  const response = exchange.response;
  if (!response) return false;
  const parsed = response.truncated ? undefined : bodyJson(response);
  const unparsed = parsed && !parsed.ok ? parsed.notParsed : undefined;
  if (!response.truncated && unparsed === undefined) return false;
  if (!mayBeginJson(unparsed === undefined ? response.body : response.body.subarray(0, unparsed), shape)) return false;
  const message =
    unparsed === undefined
      ? ({ code: 'BODY_NOT_READ', args: { status: response.status } } as const)
      : ({ code: 'BODY_NOT_PARSED', args: { status: response.status, tokens: MAX_JSON_TOKENS } } as const);
  for (const rule of rules) a.inconclusive(rule, message, [exchange]);
  return true;
}

/** The value with a `status: null` dropped (read as absent; see PET-SCHEMA). */
export function withoutNullStatus(value: Json): Json {
  if (!isJsonObject(value) || value.status !== null) return value;
  const rest = jsonObject();
  for (const key of Object.keys(value)) if (key !== 'status') rest[key] = value[key]!;
  return rest;
}

/**
 * How each parsed value breaks the Pet schema, by the value's identity: a page
 * of animals is judged item by item by several judgements of one exchange
 * (PET-SCHEMA, LIST-RESPONSE, the listed-as-created comparison, the store's
 * categories), and each item is validated once. A parsed value is never
 * changed after parsing (core/json.ts builds it, the judgements only read it),
 * so what an object was found to break cannot change; another exchange's
 * body, equal or not, is another parse and other objects, validated anew.
 */
const petViolationsOf = new WeakMap<object, readonly SchemaViolation[]>();
/** Pet validations this process made (not answered from {@link petViolationsOf}): what shows the memo works. */
let petValidations = 0;

/** How many Pet validations were made so far; the project's tests read it (no module is mocked there). */
export function petValidationCount(): number {
  return petValidations;
}

/** The ways `value` breaks the Pet schema (spec/validate.ts), empty when it is one; validated once per parsed object. */
export function petViolations(value: Json): readonly SchemaViolation[] {
  if (typeof value !== 'object' || value === null) return validateSchema('Pet', value);
  let violations = petViolationsOf.get(value);
  if (violations === undefined) {
    petValidations++;
    violations = validateSchema('Pet', value);
    petViolationsOf.set(value, violations);
  }
  return violations;
}

/**
 * The Pet's fields, exact, when `value` is a Pet (a `"status": null` read as
 * absent, so the animal can still be followed; PET-SCHEMA fails it). Undefined
 * when it is not one.
 */
export function petView(value: Json): PetView | undefined {
  const pet = withoutNullStatus(value);
  if (!isJsonObject(pet) || petViolations(pet).length > 0) return undefined;
  const id = int64Of(pet.id);
  const categoryId = int64Of(pet.categoryId);
  if (id === undefined || categoryId === undefined || typeof pet.name !== 'string') return undefined;
  return { id, name: pet.name, categoryId, ...(typeof pet.status === 'string' ? { status: pet.status } : {}) };
}

/** Why a JSON value is not a Pet, in a few words; undefined when it is one. */
export function notAPet(value: Json): string | undefined {
  if (isJsonObject(value) && value.status === null) return '"status": null (an absent status is omitted)';
  const violations = petViolations(value);
  return violations.length > 0 ? describeViolations(violations.slice(0, 2)) : undefined;
}

/** The raw `id` of a list item or body, exact, when it is an integer. */
export function rawId(value: Json): bigint | undefined {
  if (!isJsonObject(value) || !isLosslessNumber(value.id)) return undefined;
  const n = exactInteger(value.id);
  return typeof n === 'bigint' ? n : undefined;
}
