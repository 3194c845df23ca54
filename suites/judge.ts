/**
 * Judgements shared by several checks. Each names the rules it asserts; the
 * calling check must declare them.
 */
import { bodyJson } from '../core/http.js';
import { excerpt } from '../core/excerpt.js';
import { type Json, exactInteger, int64Of, isJsonObject, isLosslessNumber, jsonObject, MAX_JSON_TOKENS, show, stringifyJson } from '../core/json.js';
import type { Names } from '../generators/names.js';
import { type JsonShape, mayBeginJson } from '../core/json-prefix.js';
import type { NewPetInput } from '../generators/newPet.js';
import type { ListQuery } from '../generators/listQuery.js';
import { outsideRepertoire } from '../generators/petName.js';
import { toBody } from '../generators/invalidNewPet.js';
import type { FindingMessage } from '../spec/findings.js';
import { PET_STATUSES } from '../spec/openapi.js';
import type { RuleId } from '../spec/rules.js';
import { describeViolations, validateSchema } from '../spec/validate.js';
import type { Asserter, Observer, PetView, SendOptions, SentExchange, StoreState } from './check.js';
import { createPet } from './requests.js';
import type { Judgement } from '../result/model.js';

/** createPet's judgement again, alone (id uniqueness needs the run's store, so it is not judged again). */
const CREATE: Judgement = { kind: 'create' };

/** getPet's judgement again: animal `id`, created as `sent`. */
function fetchJudgement(id: bigint, sent: NewPetInput): Judgement {
  return { kind: 'fetch', id: id.toString(), sent: stringifyJson(sent.status === undefined ? { name: sent.name, categoryId: sent.categoryId } : sent) };
}

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
  if (location !== undefined) return `${response.status} redirect to ${excerpt(location, 200, { mode: 'quote' })} (not followed: the suite talks only to the base URL)`;
  const decoded = lossyUtf8.decode(response.body.subarray(0, EXCERPT_SOURCE_CHARS * 3));
  const whole = decoded.length <= EXCERPT_SOURCE_CHARS && response.body.length <= EXCERPT_SOURCE_CHARS * 3;
  const quoted = excerpt(whole ? decoded : decoded.slice(0, EXCERPT_SOURCE_CHARS), 120, { mode: 'quote', complete: whole && !response.truncated });
  const body =
    response.body.length === 0 ? 'empty body'
    : response.truncated ? `a body longer than ${response.body.length} bytes (not read to its end): ${quoted}`
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
  const message = unparsed === undefined ? ({ code: 'BODY_NOT_READ', args: { status: response.status } } as const) : ({ code: 'BODY_NOT_PARSED', args: { status: response.status, tokens: MAX_JSON_TOKENS } } as const);
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

/** Gaps the shared judgements observe; a check that calls them declares these. */
export const JUDGE_GAPS = ['GAP-NAME-NORMALISATION', 'GAP-STATUS-TRANSITIONS'] as const;
/** Gaps {@link createAndJudge} observes besides {@link JUDGE_GAPS}. */
export const CREATE_GAPS = [...JUDGE_GAPS, 'GAP-NAME-REPERTOIRE', 'GAP-CATEGORY-RECORDS'] as const;

/** What the shared judgements record into: assertions, and observations where the document leaves things open. */
export type Judge = Asserter & Observer;

/**
 * The Pet's fields, exact, when `value` is a Pet (a `"status": null` read as
 * absent, so the animal can still be followed; PET-SCHEMA fails it). Undefined
 * when it is not one.
 */
export function petView(value: Json): PetView | undefined {
  const pet = withoutNullStatus(value);
  if (!isJsonObject(pet) || validateSchema('Pet', pet).length > 0) return undefined;
  const id = int64Of(pet.id);
  const categoryId = int64Of(pet.categoryId);
  if (id === undefined || categoryId === undefined || typeof pet.name !== 'string') return undefined;
  return { id, name: pet.name, categoryId, ...(typeof pet.status === 'string' ? { status: pet.status } : {}) };
}

/** Why a JSON value is not a Pet, in a few words; undefined when it is one. */
export function notAPet(value: Json): string | undefined {
  if (isJsonObject(value) && value.status === null) return '"status": null (an absent status is omitted)';
  const violations = validateSchema('Pet', value);
  return violations.length > 0 ? describeViolations(violations.slice(0, 2)) : undefined;
}

/** The raw `id` of a list item or body, exact, when it is an integer. */
export function rawId(value: Json): bigint | undefined {
  if (!isJsonObject(value) || !isLosslessNumber(value.id)) return undefined;
  const n = exactInteger(value.id);
  return typeof n === 'bigint' ? n : undefined;
}

/** A string shown exactly, escapes and all, for messages about names. */
export function showString(value: string): string {
  return show(value, 120);
}

/** Code points as `U+0065 U+0301`, at most `max` of them. */
export function codePoints(text: string, max = 8): string {
  return excerpt(text, max, { mode: 'codepoints' });
}

/**
 * Where two names part, in code points, so that names that look alike are told
 * apart. Both names go in whole: the difference is found once they are redacted.
 */
export function nameDifference(received: string, sent: string): string {
  return excerpt(JSON.stringify([received, sent]), 8, { mode: 'difference' });
}

/**
 * Judges a createPet answer to a valid body: CREATE-RESPONSE (201 and a Pet in
 * JSON), CREATE-ECHO (name, categoryId, status as sent) and CREATE-ID-UNIQUE.
 * Returns the created Pet, and notes its id and categoryId in the store.
 */
export function judgeCreated(a: Judge, exchange: SentExchange, sent: NewPetInput, store: StoreState): PetView | undefined {
  const status = exchange.response?.status;
  if (status !== 201) {
    a.fail('CREATE-RESPONSE', { code: 'NOT_CREATED', args: { received: describeResponse(exchange) } }, [exchange], `status ${status ?? 'none'}`, CREATE);
    return undefined;
  }
  if (bodyNotRead(a, ['CREATE-RESPONSE', 'CREATE-ECHO', 'CREATE-ID-UNIQUE'], exchange, 'object')) return undefined;
  const body = jsonOf(exchange);
  if (body === undefined) {
    a.fail('CREATE-RESPONSE', { code: 'CREATED_NOT_JSON', args: { received: describeResponse(exchange) } }, [exchange], 'body not JSON', CREATE);
    return undefined;
  }
  const pet = petView(body);
  const why = notAPet(body);
  if (why !== undefined) a.fail('CREATE-RESPONSE', { code: 'CREATED_NOT_A_PET', args: { problem: why } }, [exchange], 'body not a Pet', CREATE);
  else a.pass('CREATE-RESPONSE');
  if (!pet) return undefined;
  judgeEcho(a, exchange, sent, pet);
  if (store.ids.has(pet.id)) {
    a.fail('CREATE-ID-UNIQUE', { code: 'ID_REUSED', args: { id: `${pet.id}` } }, [exchange], 'id reused');
  } else {
    a.pass('CREATE-ID-UNIQUE');
  }
  store.ids.add(pet.id);
  store.noteCategory(sent.categoryId);
  return pet;
}

/**
 * The name used when a refused body is sent again to prove the refusal
 * legitimate (`suffix` tells apart the uses of one check; natural names also
 * differ with `refused`, the name sent before).
 */
export function ordinaryNameFor(names: Names, suffix = '', refused?: string): string {
  return names.name(`plain name${suffix}`, refused);
}

/**
 * Creates `sent` and judges the answer. A 400 to a valid body may be a
 * legitimate refusal the document leaves open: a name outside the ordinary
 * printable repertoire (GAP-NAME-REPERTOIRE), or a categoryId the target has no
 * category for (GAP-CATEGORY-RECORDS). That is proven, not assumed: the same
 * body is sent again with an ordinary name and a categoryId the target accepted
 * before. If that is created, the refusal is observed and the second animal
 * judged; if it is refused too, CREATE-RESPONSE fails on both answers.
 */
export async function createAndJudge(a: Judge, send: (request: SendOptions) => Promise<SentExchange>, sent: NewPetInput, store: StoreState, names: Names): Promise<{ pet?: PetView; sent: NewPetInput; exchange: SentExchange }> {
  const exchange = await send(createPet(toBody(sent)));
  const nameIssue = outsideRepertoire(sent.name);
  const known = store.categories.find((c) => c !== sent.categoryId);
  const categoryIssue = !store.categories.includes(sent.categoryId) && known !== undefined;
  if (exchange.response?.status !== 400 || (!nameIssue && !categoryIssue)) return { sent, exchange, ...optional('pet', judgeCreated(a, exchange, sent, store)) };
  // With both open, the category alone is tried first, so that the observation names the right cause.
  let again: NewPetInput = { ...sent, ...(categoryIssue ? { categoryId: known } : { name: ordinaryNameFor(names, '', sent.name) }) };
  let retried = await send(createPet(toBody(again)));
  let blamed = { name: !categoryIssue, category: categoryIssue };
  if (nameIssue && categoryIssue && retried.response?.status === 400) {
    again = { ...again, name: ordinaryNameFor(names, '', sent.name) };
    retried = await send(createPet(toBody(again)));
    blamed = { name: true, category: false };
  }
  const what = [nameIssue ? `the name (${nameIssue})` : '', categoryIssue ? `categoryId ${sent.categoryId}` : ''].filter(Boolean).join(' or ');
  if (retried.response?.status !== 201) {
    const swapped = [again.name !== sent.name ? 'an ordinary name' : '', again.categoryId !== sent.categoryId ? `categoryId ${again.categoryId} (accepted before)` : ''].filter(Boolean).join(' and ');
    a.fail('CREATE-RESPONSE', { code: 'VALID_BODY_REFUSED', args: { refused: what, swapped, received: describeResponse(retried) } }, [exchange, retried], 'valid body refused', CREATE);
    return { sent, exchange };
  }
  if (blamed.name) a.observe('GAP-NAME-REPERTOIRE', 'createPet', `a name refused with 400 because ${nameIssue}; the same body with an ordinary name was created`, exchange);
  if (blamed.category) a.observe('GAP-CATEGORY-RECORDS', 'createPet', `categoryId ${magnitude(sent.categoryId)} refused with 400; the same body with categoryId ${again.categoryId} was created`, exchange);
  return { sent: again, exchange: retried, ...optional('pet', judgeCreated(a, retried, again, store)) };
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> => (value === undefined ? {} : ({ [key]: value } as Record<K, V>));

/** A categoryId class for observations, so one observation stands for many values. */
function magnitude(id: bigint): string {
  const abs = id < 0n ? -id : id;
  return abs > 2n ** 53n ? 'beyond ±2^53' : abs > 2n ** 31n ? 'beyond ±2^31' : abs > 100n ? 'above 100' : id <= 0n ? 'of 0 or less' : 'from 1 to 100';
}

/** How a Pet compares with what it should carry: real differences, and differences the document leaves open. */
interface Comparison {
  /** `field received for expected`, one per field; empty when it matches. */
  wrong: string[];
  /** Canonically equivalent names, statuses that moved: observations, not failures. */
  notes: { gap: (typeof JUDGE_GAPS)[number]; text: string }[];
}

/**
 * Compares a Pet with what it should carry: name and categoryId exactly (a
 * name in another normalisation form of the same text is a note), status when
 * one is expected (an omitted status may come back as anything; with
 * `statusMayMove`, another PetStatus is a note: transitions are not shown).
 */
export function comparePet(pet: PetView, want: NewPetInput, statusMayMove: boolean): Comparison {
  const result: Comparison = { wrong: [], notes: [] };
  if (pet.name !== want.name) {
    if (pet.name.normalize('NFC') === want.name.normalize('NFC')) result.notes.push({ gap: 'GAP-NAME-NORMALISATION', text: `a name returned in another normalisation form of the same text (${nameDifference(pet.name, want.name)})` });
    else result.wrong.push(`name ${showString(pet.name)} for ${showString(want.name)} (${nameDifference(pet.name, want.name)})`);
  }
  if (pet.categoryId !== want.categoryId) result.wrong.push(`categoryId ${pet.categoryId} for ${want.categoryId}`);
  if (want.status !== undefined && pet.status !== want.status) {
    if (statusMayMove && pet.status !== undefined && (PET_STATUSES as readonly string[]).includes(pet.status)) result.notes.push({ gap: 'GAP-STATUS-TRANSITIONS', text: `an animal created as "${want.status}" read later as "${pet.status}"` });
    else result.wrong.push(`status ${pet.status === undefined ? 'absent' : JSON.stringify(pet.status)} for ${JSON.stringify(want.status)}`);
  }
  return result;
}

/** Records a comparison's notes as observations. */
function noteAll(a: Judge, operation: 'createPet' | 'getPet' | 'listPets', comparison: Comparison, exchange: SentExchange): void {
  for (const note of comparison.notes) a.observe(note.gap, operation, note.text, exchange);
}

/** CREATE-ECHO: name, categoryId and (when sent) status come back exactly. */
export function judgeEcho(a: Judge, exchange: SentExchange, sent: NewPetInput, pet: PetView): void {
  const comparison = comparePet(pet, sent, false);
  noteAll(a, 'createPet', comparison, exchange);
  const { wrong } = comparison;
  if (wrong.length === 0) a.pass('CREATE-ECHO');
  else a.fail('CREATE-ECHO', { code: 'ECHO_DIFFERS', args: { differences: wrong } }, [exchange], wrong.map((w) => w.split(' ')[0]).join(','), CREATE);
}

/**
 * GET-RESPONSE: getPet of an animal created as `sent` with `id` answers 200 with
 * a Pet in JSON: that animal, its status possibly moved since (transitions are
 * not shown). Notes the status read in `store`, when given.
 */
export function judgeFetched(assert: Judge, fetched: SentExchange, sent: NewPetInput, id: bigint, created: SentExchange, store?: StoreState): void {
  const fail = (message: FindingMessage<string>, key: string) => assert.fail('GET-RESPONSE', message, [created, fetched], key, fetchJudgement(id, sent));
  const failed = (key: string) => fail({ code: 'FETCH_FAILED', args: { id: `${id}`, received: describeResponse(fetched) } }, key);
  // No read-after-write guarantee is stated, but once a 200 showed the animal, it exists: a store that loses it again
  // (two stores behind a balancer) answers the same id two ways.
  if (fetched.response?.status === 404 && store?.seenBefore(id, fetched.seq)) return fail({ code: 'SEEN_THEN_MISSING', args: { id: `${id}`, received: describeResponse(fetched) } }, 'status 404 after 200');
  if (fetched.response?.status !== 200) return failed(`status ${fetched.response?.status ?? 'none'}`);
  if (bodyNotRead(assert, ['GET-RESPONSE'], fetched, 'object')) return;
  const body = jsonOf(fetched);
  if (body === undefined) return failed('body not JSON');
  const why = notAPet(body);
  if (why !== undefined) fail({ code: 'FETCHED_NOT_A_PET', args: { id: `${id}`, problem: why } }, 'body not a Pet');
  const pet = petView(body);
  if (!pet) return;
  const comparison = comparePet(pet, sent, true);
  noteAll(assert, 'getPet', comparison, fetched);
  if (pet.id === id) {
    store?.noteStatus(id, pet.status);
    store?.noteSeen(id, fetched.seq);
  }
  const wrong = [...(pet.id === id ? [] : [`id ${pet.id}`]), ...comparison.wrong];
  if (wrong.length > 0) fail({ code: 'FETCHED_DIFFERS', args: { id: `${id}`, differences: wrong } }, wrong.map((w) => w.split(' ')[0]).join(','));
  else if (why === undefined) assert.pass('GET-RESPONSE');
}

/**
 * How many animals matching `status` the store provably holds, counted before a
 * request is sent: every id seen; for a status, the created animals last read
 * with it.
 */
export function provenMatches(store: StoreState, status: string | undefined): number {
  if (status === undefined) return store.ids.size;
  return store.createdWithStatus(status).length;
}

/**
 * Judges a listPets answer to a valid query: LIST-RESPONSE (a JSON array of
 * Pet), LIST-LIMIT-DEFAULT (no limit) or LIST-LIMIT-HONOURED (limit n),
 * LIST-STATUS-FILTER (status s) and, unless `pageFull` is `later`,
 * LIST-PAGE-FULL against `proven`, the matching animals known before sending.
 * Returns the list items, and notes their ids (and the statuses of animals the
 * suite created) in the store, unless `concurrent`: a listing answered while
 * creates were in flight (the load phase) may show a new animal before its 201
 * is read, and that id is then no evidence against CREATE-ID-UNIQUE. A 200
 * whose body was not read to its end leaves those rules inconclusive.
 */
export function judgeList(a: Judge, exchange: SentExchange, query: ListQuery, store: StoreState, proven: number, pageFull: 'now' | 'later' = 'now', concurrent = false): Json[] | undefined {
  const again: Judgement = { kind: 'list', query, proven };
  if (exchange.response?.status === 200 && bodyNotRead(a, listRules(query, pageFull === 'now' && Math.min(query.limit ?? 20, proven) > 0), exchange, 'array')) return undefined;
  const body = exchange.response?.status === 200 ? jsonOf(exchange) : undefined;
  if (!Array.isArray(body)) {
    a.fail('LIST-RESPONSE', { code: 'LIST_NOT_ARRAY', args: { received: describeResponse(exchange) } }, [exchange], `status ${exchange.response?.status ?? 'none'}, ${body === undefined ? 'no JSON' : 'not an array'}`, again);
    return undefined;
  }
  const bad = body.findIndex((item) => notAPet(item) !== undefined);
  if (bad >= 0) a.fail('LIST-RESPONSE', { code: 'LIST_ITEM_NOT_A_PET', args: { index: bad, problem: notAPet(body[bad]!)! } }, [exchange], 'item not a Pet', again);
  else a.pass('LIST-RESPONSE');
  const count = body.length;
  if (query.limit === undefined) {
    if (count > 20) a.fail('LIST-LIMIT-DEFAULT', { code: 'TOO_MANY_ANIMALS', args: { bound: 'default', max: 20, count } }, [exchange], 'over 20', again);
    else a.pass('LIST-LIMIT-DEFAULT');
  } else if (count > query.limit) {
    a.fail('LIST-LIMIT-HONOURED', { code: 'TOO_MANY_ANIMALS', args: { bound: 'limit', max: query.limit, count } }, [exchange], `limit+${count - query.limit}`, again);
  } else {
    a.pass('LIST-LIMIT-HONOURED');
  }
  if (query.status !== undefined) {
    const others = body.filter((item) => !isJsonObject(item) || item.status !== query.status);
    if (others.length > 0) {
      const shown = others.slice(0, 3).map((item) => (isJsonObject(item) ? `id ${show(item.id ?? null, 30)} with status ${show(item.status, 30)}` : show(item, 40)));
      a.fail('LIST-STATUS-FILTER', { code: 'OTHER_STATUS_LISTED', args: { status: query.status, count: others.length, shown } }, [exchange], 'other status', again);
    } else {
      a.pass('LIST-STATUS-FILTER');
    }
  }
  if (pageFull === 'now') judgePageFull(a, exchange, query, proven);
  judgeListedAsCreated(a, exchange, body, store);
  const listed = body.map(rawId).filter((id): id is bigint => id !== undefined);
  if (!concurrent) store.noteIds(listed);
  for (const id of listed) store.noteSeen(id, exchange.seq);
  return body;
}

/** The rules {@link judgeList} judges for `query`. */
function listRules(query: ListQuery, pageFull: boolean): RuleId[] {
  return ['LIST-RESPONSE', query.limit === undefined ? 'LIST-LIMIT-DEFAULT' : 'LIST-LIMIT-HONOURED', ...(query.status === undefined ? [] : ['LIST-STATUS-FILTER' as const]), ...(pageFull ? ['LIST-PAGE-FULL' as const] : [])];
}

/**
 * LIST-PAGE-FULL (SHOULD): a page with limit n holds n animals when the store
 * provably holds that many matching ones. A status-filtered page that comes
 * back short is inconclusive here: the animals counted may have moved to
 * another status since they were last read (transitions are not shown). The
 * status-filter check re-reads them first and judges with fresh counts.
 */
export function judgePageFull(a: Asserter, exchange: SentExchange, query: ListQuery, proven: number, settled = false): void {
  const body = jsonOf(exchange);
  if (!Array.isArray(body)) return;
  // A page holds animals: rows repeating an animal do not fill it.
  const ids = body.map(rawId);
  const animals = new Set(ids.filter((id) => id !== undefined)).size + ids.filter((id) => id === undefined).length;
  const size = query.limit ?? 20;
  const floor = Math.min(size, proven);
  if (floor <= 0) return;
  if (animals >= floor) return a.pass('LIST-PAGE-FULL');
  const page = { limit: size, proven, items: body.length, animals };
  if (query.status !== undefined && !settled) {
    a.inconclusive('LIST-PAGE-FULL', { code: 'PAGE_SHORT_STATUS_MOVED', args: { ...page, status: query.status } }, [exchange]);
    return;
  }
  a.fail('LIST-PAGE-FULL', { code: 'PAGE_SHORT', args: { ...page, expected: floor, ...(query.status === undefined ? {} : { status: query.status }) } }, [exchange], `short by ${floor - animals}`, { kind: 'list', query, proven });
}

/**
 * LIST-RESPONSE: a listed animal the suite created is that animal: the name
 * and categoryId it was sent with or that its create answer showed, and its status as sent or moved to another
 * PetStatus (an observation). (Items that are not Pets are PET-SCHEMA's
 * business too.) Notes the statuses read.
 */
function judgeListedAsCreated(a: Judge, exchange: SentExchange, items: Json[], store: StoreState): void {
  let failed = false;
  for (const item of items) {
    const pet = petView(item);
    const created = pet && store.createdWithId(pet.id);
    if (!pet || !created) continue;
    // A listing that shows the animal as it was sent, or as the create answer said, is consistent: a difference
    // between those two is CREATE-ECHO's business. Only a listing that matches neither fails here.
    const asSent = comparePet(pet, created.sent, true);
    const comparison = asSent.wrong.length === 0 ? asSent : comparePet(pet, { ...created.sent, name: created.pet.name, categoryId: created.pet.categoryId }, true);
    noteAll(a, 'listPets', comparison, exchange);
    store.noteStatus(pet.id, pet.status);
    if (comparison.wrong.length > 0 && !failed) {
      failed = true;
      a.fail('LIST-RESPONSE', { code: 'LISTED_DIFFERS', args: { id: `${pet.id}`, differences: comparison.wrong } }, [created.exchange, exchange], `listed ${comparison.wrong.map((w) => w.split(' ')[0]).join(',')}`);
    }
  }
}

/** Judges a rejection: the listed answer is 400 (its Error body is judged by ERROR-SCHEMA on every response). */
export function judgeRejected(a: Asserter, rule: 'CREATE-REJECT-MISSING' | 'CREATE-REJECT-INVALID' | 'CREATE-REJECT-MALFORMED', exchange: SentExchange, defect: string): void {
  if (exchange.response?.status === 400) a.pass(rule);
  else a.fail(rule, { code: 'WRONG_STATUS', args: { status: '400', request: `a body where ${defect}`, received: describeResponse(exchange) } }, [exchange], `${defect}: ${exchange.response?.status ?? 'none'}`, { kind: 'status', rule, expected: [400], what: `a body where ${defect}` });
}
