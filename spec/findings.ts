/**
 * What a finding says, as data: a code and its arguments, and the one place
 * that words them. Checks record a {@link FindingMessage}; the recorder redacts
 * its arguments and keeps the message's text beside it; every output (console,
 * JUnit, GitHub annotations, HTML, report.json's `message`) asks
 * {@link findingText}, so a wording changes here and nowhere else.
 *
 * `T` is the type of the arguments that hold text from the server (a response
 * described, a body or header shown) or that may: `string` as a check writes
 * them (server text still inside excerpts, core/excerpt.ts), {@link Redacted}
 * once the recorder redacted them, which is what a recorded finding requires.
 * Ids are decimal strings (exact beyond 2^53); `request` and `what` arguments
 * are the suite's own words for what it sent.
 */
import type { Redacted } from '../core/redact.js';

/** Every finding code and its arguments. The codes are stable: report consumers may switch on them. */
export interface FindingArguments<T extends string = Redacted> {
  /** A request answered with another status than the one it calls for. `status`: `401`, `200 or 404`, `anything but 401`. */
  WRONG_STATUS: { status: string; request: string; received: T };
  /** A request with the key (in some form) refused. */
  NOT_ACCEPTED: { request: string; received: T };
  /** An invalid request without a valid key answered other than 401: the body was looked at first. */
  KEY_CHECKED_LATE: { request: string; received: T };
  /** An operation answered as if it did not exist. */
  OPERATION_MISSING: { operation: string; received: T };
  /** A 5xx answer to a listed operation. */
  SERVER_ERROR: { received: T };
  /** A valid NewPet not answered 201. */
  NOT_CREATED: { received: T };
  /** A 201 to a NewPet without a JSON body. */
  CREATED_NOT_JSON: { received: T };
  /** A 201 to a NewPet whose body is not a Pet. */
  CREATED_NOT_A_PET: { problem: T };
  /** A valid NewPet refused, and the same body with an ordinary name and a categoryId accepted before refused too. `refused`: what the target may have refused. */
  /** `swapped`: what the body sent again changed (an ordinary name, a categoryId accepted before, or both). */
  VALID_BODY_REFUSED: { refused: string; swapped: string; received: T };
  /** Every categoryId tried for an ordinary NewPet refused. */
  NO_CATEGORY_ACCEPTED: { categoryIds: string[]; received: T };
  /** A created animal given an id another animal has. */
  ID_REUSED: { id: string };
  /** A created Pet that does not carry what was sent: one `field received for sent` per field. */
  ECHO_DIFFERS: { differences: T[] };
  /** getPet of an animal created before not answered 200 with a Pet in JSON. */
  FETCH_FAILED: { id: string; received: T };
  /** getPet answered 404 for an animal a 200 (getPet or a listing) showed before: once seen, an animal stays visible. */
  SEEN_THEN_MISSING: { id: string; received: T };
  /** getPet of an animal created before answered with a body that is not a Pet. */
  FETCHED_NOT_A_PET: { id: string; problem: T };
  /** getPet of an animal created before answered with another animal, or with other fields. */
  FETCHED_DIFFERS: { id: string; differences: T[] };
  /** An id the suite never saw answered other than 404 (or 200 with that very animal). */
  UNKNOWN_ID_ANSWERED: { id: string; received: T };
  /** Every random int64 id answered 200 as an existing animal. */
  EVERY_ID_EXISTS: { count: number };
  /** A 200 to listPets that is not a JSON array. `request`: the query, when it may be refused (then only a 200 must be a list). */
  LIST_NOT_ARRAY: { request?: string; received: T };
  /** A list item that is not a Pet. */
  LIST_ITEM_NOT_A_PET: { index: number; problem: T };
  /**
   * A list longer than it may be. `bound`: `default` (no limit given, at most
   * 20), `limit` (limit=`max`), `maximum` (at most 100, whatever the query).
   * `query`: the query, where it says more than the bound.
   */
  TOO_MANY_ANIMALS: { bound: 'default' | 'limit' | 'maximum'; max: number; query?: string; count: number };
  /** Animals of another status in a status-filtered list; a few of them shown. */
  OTHER_STATUS_LISTED: { status: string; count: number; shown: T[] };
  /** A page shorter than its limit while the store holds more matching animals. `items`: rows of the page, `animals`: distinct animals among them. */
  PAGE_SHORT: { expected: number; limit: number; proven: number; status?: string; items: number; animals: number };
  /** A status-filtered page that came back short while the animals counted may have moved to another status. */
  PAGE_SHORT_STATUS_MOVED: { limit: number; proven: number; status: string; items: number; animals: number };
  /** A listed animal the suite created, shown otherwise than it was created. */
  LISTED_DIFFERS: { id: string; differences: T[] };
  /** An animal of a status missing from a page of that status that the limit did not cut. */
  LISTED_MISSING: { id: string; status: string; count: number };
  /** An animal missing from a page of its status that could not be read again. */
  MISSING_UNREADABLE: { id: string; status: string };
  /**
   * Animals missing from a full page of 100 of their status. No longer given (such a page meets the rule: any 100
   * of them answer the filter); kept so that reports written before stay valid.
   */
  MISSING_FROM_FULL_PAGE: { count: number; status: string };
  /** Animals missing from a page of 100 of their status that also shows animals of another status. */
  MISSING_FROM_MIXED_PAGE: { count: number; status: string };
  /** A 4xx or 5xx without a JSON body. */
  ERROR_NOT_JSON: { status: number; received: T };
  /** A 4xx or 5xx whose JSON body is not an Error. */
  ERROR_BODY_INVALID: { status: number; body: T; violations: T };
  /** An Error whose `status` is not the HTTP status. */
  ERROR_STATUS_DIFFERS: { status: number; received: T };
  /** A JSON body labelled otherwise than application/json. */
  NOT_LABELLED_JSON: { contentType?: T };
  /** A Pet written with `"status": null`. `item`: its index in a list, absent for a body. */
  PET_STATUS_NULL: { item?: number; body: T };
  /** A Pet that breaks the schema. `item`: its index in a list, absent for a body. */
  NOT_A_PET: { item?: number; body: T; violations: T };
  /** A 401 without a Bearer challenge. */
  NO_BEARER_CHALLENGE: { header?: T };
  /** A refused non-empty bearer token answered without error="invalid_token". */
  NO_INVALID_TOKEN: { header: T };
  /** getPet without a valid Deprecation header. `problem`: absent, the draft's `true`, a date after the sunset, anything else. */
  NO_DEPRECATION: { sunset: number; problem: 'missing' | 'draft' | 'after-sunset' | 'malformed'; header?: T };
  /** getPet without the documented Sunset header. */
  NO_SUNSET: { date: string; header?: T };
  /** getPet without a Link to its replacement. */
  NO_SUCCESSOR_LINK: { header?: T };
  /** Deprecation or Sunset headers on an operation that is not deprecated: `name: value` each. */
  DEPRECATION_ELSEWHERE: { operation: string; headers: T[] };
  /** getPet could not be tried without credentials: no animal was created. */
  NO_ANIMAL_TO_GET: Record<string, never>;
  /** No categoryId beyond ±2^53 was accepted, so their exact echo is untested. */
  WIDE_CATEGORIES_REFUSED: Record<string, never>;
  /**
   * One request (or two of one kind: `pairing`) answered differently when sent
   * as two clients, in a way the document does not explain. `first` and
   * `second`: the client fingerprints, in the order they were answered;
   * `request`: the suite's words for what was sent.
   */
  CLIENT_DIFFERS: { request: string; pairing: 'same-request' | 'same-class'; first: string; second: string; differences: T[] };
  /** No answer of the run could be compared across client fingerprints: why. */
  NOTHING_COMPARED: { reason: string };
  /** A check cut short (the target kept asking the suite to wait…): why. */
  CUT_SHORT: { reason: T };
  /**
   * A body longer than the suite reads (or coded, and decoding to more): what
   * it holds is unknown, so it is not judged. The bound is not an argument: the
   * judges see the body redacted, which may have cut its unfinished end.
   */
  BODY_NOT_READ: { status: number };
  /**
   * A body holding more JSON than the suite parses (core/json.ts
   * `MAX_JSON_TOKENS`): judged as a body past the read bound is, on the part
   * before the bound; what the rest holds is unknown.
   */
  BODY_NOT_PARSED: { status: number; tokens: number };
  /** An Error whose `status` is there but not a number: ERROR-SCHEMA fails it; whether it repeats the HTTP status is not judged. */
  ERROR_STATUS_NOT_A_NUMBER: { status: number; received: T };
}

export type FindingCode = keyof FindingArguments;

/**
 * What a property failure became when its input was replayed: it did not fail
 * again but the failing answer was seen (`intermittent`, still a failure), or
 * its judgement rested on what the suite inferred about the store
 * (`not-reproduced`, inconclusive).
 */
export type Repeat = 'intermittent' | 'not-reproduced';

/** A finding's message as data: the code, its arguments, and where it was seen. */
export type FindingMessage<T extends string = Redacted> = {
  [C in FindingCode]: {
    code: C;
    args: FindingArguments<T>[C];
    /** The load profile under which the answer was judged. */
    underLoad?: string;
    repeat?: Repeat;
  };
}[FindingCode];

/** A sentence, or the two halves of "Expected … / Received …". */
type Wording = string | { expected: string; received: string };

const list = (items: readonly string[]) => items.join('; ');
const where = (item: number | undefined) => (item === undefined ? 'the body' : `item ${item}`);
const header = (name: string, value: string | undefined) => (value === undefined ? `no ${name} header` : `${name}: ${value}`);

/** The wording of each code. Arguments arrive as written: redacted when the message is. */
const WORDING: { [C in FindingCode]: (args: FindingArguments<string>[C]) => Wording } = {
  WRONG_STATUS: (a) => ({ expected: `${a.status} for ${a.request}`, received: a.received }),
  NOT_ACCEPTED: (a) => ({ expected: `${a.request} to be accepted`, received: a.received }),
  KEY_CHECKED_LATE: (a) => ({ expected: `401 for ${a.request}: the key is checked before anything else`, received: a.received }),
  OPERATION_MISSING: (a) => ({ expected: `${a.operation} to exist`, received: a.received }),
  SERVER_ERROR: (a) => ({ expected: 'a listed response (200, 201, 400, 401, 404), never 5xx', received: a.received }),
  NOT_CREATED: (a) => ({ expected: '201 with the created Pet', received: a.received }),
  CREATED_NOT_JSON: (a) => ({ expected: '201 with the created Pet as JSON', received: a.received }),
  CREATED_NOT_A_PET: (a) => ({ expected: '201 with the created Pet', received: `a body that is not a Pet: ${a.problem}` }),
  VALID_BODY_REFUSED: (a) => ({
    expected: `201 for a valid NewPet (a refusal of ${a.refused} is legitimate only if the same body with ${a.swapped} is created)`,
    received: `400, and ${a.received} for that body too`,
  }),
  NO_CATEGORY_ACCEPTED: (a) => ({
    expected: `201 for a valid NewPet with an ordinary name and one of the categoryIds ${a.categoryIds.join(', ')} (categories of animals already in the store, then small positive integers)`,
    received: `400 to each; the last: ${a.received}`,
  }),
  ID_REUSED: (a) => ({ expected: 'a new id for the created animal', received: `id ${a.id}, which another animal already has` }),
  ECHO_DIFFERS: (a) => ({ expected: 'the created Pet to carry the name, categoryId and status sent', received: list(a.differences) }),
  FETCH_FAILED: (a) => ({ expected: `200 with animal ${a.id}, created before, as a Pet in JSON`, received: a.received }),
  SEEN_THEN_MISSING: (a) => ({
    expected: `200 with animal ${a.id}, which an earlier 200 showed (once seen, an animal stays visible)`,
    received: a.received,
  }),
  FETCHED_NOT_A_PET: (a) => ({
    expected: `200 with animal ${a.id}, created before, as a Pet in JSON`,
    received: `a body that is not a Pet: ${a.problem}`,
  }),
  FETCHED_DIFFERS: (a) => ({ expected: `animal ${a.id} as created`, received: list(a.differences) }),
  UNKNOWN_ID_ANSWERED: (a) => ({
    expected: `404 for id ${a.id}, which the suite has never seen (or 200 with that very animal)`,
    received: a.received,
  }),
  EVERY_ID_EXISTS: (a) => ({
    expected: `404 for at least one of ${a.count} random int64 ids`,
    received: 'every one of them answered 200 as an existing animal',
  }),
  LIST_NOT_ARRAY: (a) => ({
    expected: a.request === undefined ? '200 with a JSON array of Pet' : `a 200 answer to ${a.request} to be a JSON array of Pet`,
    received: a.received,
  }),
  LIST_ITEM_NOT_A_PET: (a) => ({ expected: 'a JSON array of Pet', received: `item ${a.index} is not a Pet: ${a.problem}` }),
  TOO_MANY_ANIMALS: (a) => ({
    expected:
      a.bound === 'default'
        ? `at most ${a.max} animals when limit is absent${a.query === undefined ? '' : ` for ${a.query}`}`
        : a.bound === 'limit'
          ? `at most ${a.max} animals for limit=${a.max}`
          : `at most ${a.max} animals (the maximum) for ${a.query ?? '(no query)'}`,
    received: `${a.count}`,
  }),
  OTHER_STATUS_LISTED: (a) => ({
    expected: `only animals with status "${a.status}"`,
    received: `${a.count} other(s): ${a.shown.join(', ')}`,
  }),
  PAGE_SHORT: (a) => ({
    expected: `${a.expected} animals (limit ${a.limit}; the store holds at least ${a.proven} ${matching(a.status)})`,
    received: pageSize(a),
  }),
  PAGE_SHORT_STATUS_MOVED: (a) =>
    `a page of ${pageSize(a)} for limit ${a.limit} while ${a.proven} ${matching(a.status)} were known; they may have moved to another status since (transitions are not shown)`,
  LISTED_DIFFERS: (a) => ({ expected: `animal ${a.id} listed as it was created`, received: list(a.differences) }),
  LISTED_MISSING: (a) => ({
    expected: `animal ${a.id}, read with status "${a.status}" (now too), in GET /pets?status=${a.status}&limit=100 (${a.count} animals, so not cut by the limit)`,
    received: 'it is missing',
  }),
  MISSING_UNREADABLE: (a) => `animal ${a.id} is missing from GET /pets?status=${a.status} and could not be read again to see its status`,
  MISSING_FROM_FULL_PAGE: (a) =>
    `${a.count} animal(s) last read with status "${a.status}" are not on a full page of 100; the store holds too many such animals to tell whether they were dropped`,
  MISSING_FROM_MIXED_PAGE: (a) =>
    `${a.count} animal(s) last read with status "${a.status}" are not on GET /pets?status=${a.status}&limit=100, whose 100 animals include others than "${a.status}" (see LIST-STATUS-FILTER): whether the filter also drops them cannot be told`,
  ERROR_NOT_JSON: (a) => ({ expected: `an Error body (JSON object with code, message, status) on ${a.status}`, received: a.received }),
  ERROR_BODY_INVALID: (a) => ({ expected: `an Error body on ${a.status}`, received: `${a.body} (${a.violations})` }),
  ERROR_STATUS_DIFFERS: (a) => ({ expected: `Error.status ${a.status}, the HTTP status`, received: a.received }),
  NOT_LABELLED_JSON: (a) => ({
    expected: 'Content-Type: application/json on a JSON body',
    received: a.contentType === undefined ? 'no Content-Type' : `Content-Type: ${a.contentType}`,
  }),
  PET_STATUS_NULL: (a) => ({
    expected: `${where(a.item)} to be a Pet: an absent status is omitted, not written "status": null`,
    received: a.body,
  }),
  NOT_A_PET: (a) => ({ expected: `${where(a.item)} to be a Pet`, received: `${a.body} (${a.violations})` }),
  NO_BEARER_CHALLENGE: (a) => ({ expected: 'WWW-Authenticate: Bearer … on a 401', received: header('WWW-Authenticate', a.header) }),
  NO_INVALID_TOKEN: (a) => ({
    expected: 'error="invalid_token" in the challenge when a non-empty bearer token was sent and refused',
    received: `WWW-Authenticate: ${a.header}`,
  }),
  NO_DEPRECATION: (a) => ({
    expected: `Deprecation: @<unix seconds> not after ${a.sunset} (RFC 9745)`,
    received:
      a.problem === 'draft'
        ? `Deprecation: ${a.header} (the draft form that predates RFC 9745)`
        : a.problem === 'after-sunset'
          ? `Deprecation: ${a.header}, after the sunset`
          : header('Deprecation', a.header),
  }),
  NO_SUNSET: (a) => ({ expected: `Sunset: ${a.date}`, received: header('Sunset', a.header) }),
  NO_SUCCESSOR_LINK: (a) => ({
    expected: 'Link: <…/pets>; rel="successor-version" (or latest-version, alternate), or a rel="deprecation" link',
    received: header('Link', a.header),
  }),
  DEPRECATION_ELSEWHERE: (a) => ({
    expected: `no deprecation signal on ${a.operation}, which is not deprecated`,
    received: list(a.headers),
  }),
  NO_ANIMAL_TO_GET: () => 'getPet not tried: no animal could be created to ask for',
  WIDE_CATEGORIES_REFUSED: () =>
    'no categoryId beyond ±2^53 was accepted (the target refused them as unknown categories, which the document leaves open), so their exact echo could not be tested',
  CLIENT_DIFFERS: (a) => ({
    expected: `the same answer to ${a.request} whichever client sends it${a.pairing === 'same-class' ? ' (a request of the same kind)' : ''}: the document tells clients apart by their API key alone`,
    received: `as ${a.first}, then as ${a.second}: ${list(a.differences)}`,
  }),
  NOTHING_COMPARED: (a) => `no answer could be compared across clients: ${a.reason}`,
  CUT_SHORT: (a) => `cut short: ${a.reason}`,
  BODY_NOT_READ: (a) =>
    `the body of a ${a.status} answer is longer than the suite reads of a response (maxBodyBytes, 1 MiB unless the run set another bound), so what it holds could not be judged`,
  BODY_NOT_PARSED: (a) =>
    `the body of a ${a.status} answer holds more JSON than the suite parses of a response (more than ${a.tokens} brackets, commas and colons), so what it holds could not be judged`,
  ERROR_STATUS_NOT_A_NUMBER: (a) =>
    `the Error body of a ${a.status} answer has status ${a.received}, which is not a number (ERROR-SCHEMA fails it), so whether it repeats the HTTP status was not judged`,
};

function matching(status: string | undefined): string {
  return status === undefined ? 'animals' : `animals last read with status "${status}"`;
}

function pageSize(a: { items: number; animals: number }): string {
  return a.animals === a.items ? `${a.items}` : `${a.items} items, ${a.animals} distinct animals`;
}

/** The codes, in the order they are documented above. */
export const FINDING_CODES = Object.keys(WORDING) as FindingCode[];

/**
 * A message in words, as every output shows it: "Expected … / Received …" or a
 * sentence; "Under load (profile): " before it, and what its replay showed
 * after. Text made of redacted arguments and the suite's own words is
 * redacted, so a redacted message gives {@link Redacted} text. A finding of a
 * report of an earlier version (without a code) keeps the `message` it has.
 */
export function findingText(message: FindingMessage & { message?: Redacted }): Redacted;
export function findingText(message: FindingMessage<string> & { message?: string }): string;
export function findingText(message: FindingMessage<string> & { message?: string }): string {
  const word = WORDING[message.code] as ((args: unknown) => Wording) | undefined;
  if (!word) return message.message ?? '';
  const wording = word(message.args);
  let text = typeof wording === 'string' ? wording : `Expected ${wording.expected} / Received ${wording.received}`;
  if (message.underLoad !== undefined) text = `Under load (${message.underLoad}): ${text}`;
  if (message.repeat === 'intermittent')
    text = `Intermittent: ${text}; the same input passed when replayed, but the failing answer was observed`;
  if (message.repeat === 'not-reproduced')
    text = `Not reproduced: ${text}; the same input passed when replayed, and the judgement rested on what the suite inferred about the store`;
  return text;
}

/**
 * The message with every text argument passed through `redact` (numbers and
 * the suite's choices kept): how the recorder redacts a finding once, before
 * anything renders it.
 */
export function redactFinding(message: FindingMessage<string>, redact: (text: string) => Redacted): FindingMessage {
  const args = Object.fromEntries(
    Object.entries(message.args).map(([name, value]: [string, unknown]) => [
      name,
      typeof value === 'string' ? redact(value) : Array.isArray(value) ? value.map((v: string) => redact(v)) : value,
    ]),
  );
  return { ...message, args } as FindingMessage;
}
