/**
 * Judgements shared by several checks. Each names the rules it asserts; the
 * calling check must declare them.
 */
import { bodyJson } from '../core/http.js';
import { type Json, exactInteger, int64Of, isJsonObject, isLosslessNumber, show, stringifyJson } from '../core/json.js';
import type { NewPetInput } from '../generators/newPet.js';
import type { ListQuery } from '../generators/listQuery.js';
import { validateSchema } from '../spec/validate.js';
import type { Asserter, PetView, SentExchange, StoreState } from './check.js';
import type { Judgement } from './model.js';

/** createPet's judgement again, alone (id uniqueness needs the run's store, so it is not judged again). */
const CREATE: Judgement = { kind: 'create' };

/** getPet's judgement again: animal `id`, created as `sent`. */
function fetchJudgement(id: bigint, sent: NewPetInput): Judgement {
  return { kind: 'fetch', id: id.toString(), sent: stringifyJson(sent.status === undefined ? { name: sent.name, categoryId: sent.categoryId } : sent) };
}

/** The message form of every finding. */
export function expected(what: string, received: string): string {
  return `Expected ${what} / Received ${received}`;
}

/** One line describing what came back: status, media type, a body excerpt; or why nothing did. */
export function describeResponse(exchange: SentExchange): string {
  const { response, error } = exchange;
  if (!response) return `no response (${error?.message ?? 'unknown reason'})`;
  const type = response.headers['content-type'];
  const location = response.status >= 300 && response.status < 400 ? response.headers.location : undefined;
  if (location !== undefined) return `${response.status} redirect to ${JSON.stringify(location.slice(0, 200))} (not followed: the suite talks only to the base URL)`;
  const text = Buffer.from(response.body.subarray(0, 160)).toString('utf8');
  const excerpt = JSON.stringify(text.length < 120 ? text : `${text.slice(0, 120)}…`);
  const body =
    response.body.length === 0 ? 'empty body'
    : response.truncated ? `a body longer than ${response.body.length} bytes (not read to its end): ${excerpt}`
    : `${response.body.length} bytes: ${excerpt}`;
  return `${response.status}${type ? ` (${type})` : ''}, ${body}`;
}

/** The parsed JSON body, when there is a complete, well-formed one. */
export function jsonOf(exchange: SentExchange): Json | undefined {
  if (!exchange.response) return undefined;
  const parsed = bodyJson(exchange.response);
  return parsed.ok ? parsed.value : undefined;
}

/** The value with a `status: null` dropped (read as absent; see PET-SCHEMA). */
export function withoutNullStatus(value: Json): Json {
  if (isJsonObject(value) && value.status === null) {
    const { status: _ignored, ...rest } = value;
    return rest;
  }
  return value;
}

/** The Pet's fields, exact, when `value` is a valid Pet; undefined otherwise (PET-SCHEMA reports why). */
export function petView(value: Json): PetView | undefined {
  const pet = withoutNullStatus(value);
  if (!isJsonObject(pet) || validateSchema('Pet', pet).length > 0) return undefined;
  const id = int64Of(pet.id);
  const categoryId = int64Of(pet.categoryId);
  if (id === undefined || categoryId === undefined || typeof pet.name !== 'string') return undefined;
  return { id, name: pet.name, categoryId, ...(typeof pet.status === 'string' ? { status: pet.status } : {}) };
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

/**
 * Judges a createPet answer to a valid body: CREATE-RESPONSE (201 and a JSON
 * body), CREATE-ECHO (name, categoryId, status as sent) and CREATE-ID-UNIQUE.
 * Returns the created Pet, and notes its id in the store.
 */
export function judgeCreated(a: Asserter, exchange: SentExchange, sent: NewPetInput, store: StoreState): PetView | undefined {
  const status = exchange.response?.status;
  if (status !== 201) {
    a.fail('CREATE-RESPONSE', expected('201 with the created Pet', describeResponse(exchange)), [exchange], `status ${status ?? 'none'}`, CREATE);
    return undefined;
  }
  const body = jsonOf(exchange);
  if (body === undefined) {
    a.fail('CREATE-RESPONSE', expected('201 with the created Pet as JSON', describeResponse(exchange)), [exchange], 'body not JSON', CREATE);
    return undefined;
  }
  a.pass('CREATE-RESPONSE');
  const pet = petView(body);
  if (!pet) return undefined; // PET-SCHEMA judges the shape.
  judgeEcho(a, exchange, sent, pet);
  if (store.ids.has(pet.id)) {
    a.fail('CREATE-ID-UNIQUE', expected(`a new id for the created animal`, `id ${pet.id}, which another animal already has`), [exchange], 'id reused');
  } else {
    a.pass('CREATE-ID-UNIQUE');
  }
  store.ids.add(pet.id);
  return pet;
}

/**
 * How a Pet differs from what it should carry: name and categoryId exactly, and
 * status when one is expected (an omitted status may come back as anything).
 * One entry per field, `field received for expected`; empty when it matches.
 */
export function petMismatches(pet: PetView, expected: NewPetInput): string[] {
  const wrong: string[] = [];
  if (pet.name !== expected.name) wrong.push(`name ${showString(pet.name)} for ${showString(expected.name)}`);
  if (pet.categoryId !== expected.categoryId) wrong.push(`categoryId ${pet.categoryId} for ${expected.categoryId}`);
  if (expected.status !== undefined && pet.status !== expected.status) wrong.push(`status ${pet.status === undefined ? 'absent' : JSON.stringify(pet.status)} for ${JSON.stringify(expected.status)}`);
  return wrong;
}

/** CREATE-ECHO: name, categoryId and (when sent) status come back exactly. */
export function judgeEcho(a: Asserter, exchange: SentExchange, sent: NewPetInput, pet: PetView): void {
  const wrong = petMismatches(pet, sent);
  if (wrong.length === 0) a.pass('CREATE-ECHO');
  else a.fail('CREATE-ECHO', expected('the created Pet to carry the name, categoryId and status sent', wrong.join('; ')), [exchange], wrong.map((w) => w.split(' ')[0]).join(','), CREATE);
}

/** GET-RESPONSE: getPet of an animal created as `sent` with `id` answers 200 with it. */
export function judgeFetched(assert: Asserter, fetched: SentExchange, sent: NewPetInput, id: bigint, created: SentExchange): void {
  if (fetched.response?.status !== 200) {
    assert.fail('GET-RESPONSE', expected(`200 with animal ${id}, created just before`, describeResponse(fetched)), [created, fetched], `status ${fetched.response?.status ?? 'none'}`, fetchJudgement(id, sent));
    return;
  }
  const pet = petView(jsonOf(fetched) ?? null);
  if (!pet) return; // PET-SCHEMA reports the shape
  const wrong = [...(pet.id === id ? [] : [`id ${pet.id}`]), ...petMismatches(pet, sent)];
  if (wrong.length === 0) assert.pass('GET-RESPONSE');
  else assert.fail('GET-RESPONSE', expected(`animal ${id} as created`, wrong.join('; ')), [created, fetched], wrong.map((w) => w.split(' ')[0]).join(','), fetchJudgement(id, sent));
}

/** How many animals matching `query` the store provably holds, counted before a request is sent. */
export function provenMatches(store: StoreState, status: string | undefined): number {
  if (status === undefined) return store.ids.size;
  return store.created.filter((c) => c.sent.status === status && c.pet.status === status).length;
}

/**
 * Judges a listPets answer to a valid query: LIST-RESPONSE, LIST-LIMIT-DEFAULT
 * (no limit) or LIST-LIMIT-HONOURED (limit n), LIST-STATUS-FILTER (status s) and
 * LIST-PAGE-FULL against `proven`, the matching animals known before sending.
 * Returns the list items, and notes their ids in the store.
 */
export function judgeList(a: Asserter, exchange: SentExchange, query: ListQuery, store: StoreState, proven: number): Json[] | undefined {
  const again: Judgement = { kind: 'list', query, proven };
  const body = exchange.response?.status === 200 ? jsonOf(exchange) : undefined;
  if (!Array.isArray(body)) {
    a.fail('LIST-RESPONSE', expected('200 with a JSON array of Pet', describeResponse(exchange)), [exchange], `status ${exchange.response?.status ?? 'none'}, ${body === undefined ? 'no JSON' : 'not an array'}`, again);
    return undefined;
  }
  a.pass('LIST-RESPONSE');
  const count = body.length;
  if (query.limit === undefined) {
    if (count > 20) a.fail('LIST-LIMIT-DEFAULT', expected('at most 20 animals when limit is absent', `${count}`), [exchange], 'over 20', again);
    else a.pass('LIST-LIMIT-DEFAULT');
  } else if (count > query.limit) {
    a.fail('LIST-LIMIT-HONOURED', expected(`at most ${query.limit} animals for limit=${query.limit}`, `${count}`), [exchange], `limit+${count - query.limit}`, again);
  } else {
    a.pass('LIST-LIMIT-HONOURED');
  }
  if (query.status !== undefined) {
    const others = body.filter((item) => !isJsonObject(item) || item.status !== query.status);
    if (others.length > 0) {
      const shown = others.slice(0, 3).map((item) => (isJsonObject(item) ? `id ${show(item.id ?? null, 30)} with status ${show(item.status, 30)}` : show(item, 40)));
      a.fail('LIST-STATUS-FILTER', expected(`only animals with status "${query.status}"`, `${others.length} other(s): ${shown.join(', ')}`), [exchange], 'other status', again);
    } else {
      a.pass('LIST-STATUS-FILTER');
    }
  }
  // A page holds animals: rows repeating an animal do not fill it.
  const ids = body.map(rawId);
  const animals = new Set(ids.filter((id) => id !== undefined)).size + ids.filter((id) => id === undefined).length;
  const size = query.limit ?? 20;
  const floor = Math.min(size, proven);
  if (floor > 0) {
    if (animals < floor) {
      const matching = query.status === undefined ? 'animals' : `animals with status "${query.status}"`;
      const received = animals === count ? `${count}` : `${count} items, ${animals} distinct animals`;
      a.fail('LIST-PAGE-FULL', expected(`${floor} animals (limit ${size}; the store holds at least ${proven} ${matching})`, received), [exchange], `short by ${floor - animals}`, again);
    } else {
      a.pass('LIST-PAGE-FULL');
    }
  }
  judgeListedAsCreated(a, exchange, body, store);
  store.noteIds(ids.filter((id): id is bigint => id !== undefined));
  return body;
}

/**
 * LIST-RESPONSE: a listed animal the suite created is that animal: same name,
 * categoryId and status as created. (Items that are not valid Pets are
 * PET-SCHEMA's business.)
 */
function judgeListedAsCreated(a: Asserter, exchange: SentExchange, items: Json[], store: StoreState): void {
  for (const item of items) {
    const pet = petView(item);
    const created = pet && store.createdWithId(pet.id);
    if (!pet || !created) continue;
    const wrong = petMismatches(pet, { name: created.pet.name, categoryId: created.pet.categoryId, ...(created.sent.status === undefined ? {} : { status: created.sent.status }) });
    if (wrong.length > 0) {
      a.fail('LIST-RESPONSE', expected(`animal ${pet.id} listed as it was created`, wrong.join('; ')), [created.exchange, exchange], `listed ${wrong.map((w) => w.split(' ')[0]).join(',')}`);
      return;
    }
  }
}

/** Judges a rejection: the listed answer is 400 (its Error body is judged by ERROR-SCHEMA on every response). */
export function judgeRejected(a: Asserter, rule: 'CREATE-REJECT-MISSING' | 'CREATE-REJECT-INVALID' | 'CREATE-REJECT-MALFORMED', exchange: SentExchange, defect: string): void {
  if (exchange.response?.status === 400) a.pass(rule);
  else a.fail(rule, expected(`400 for a body where ${defect}`, describeResponse(exchange)), [exchange], `${defect}: ${exchange.response?.status ?? 'none'}`, { kind: 'status', rule, expected: [400], what: `a body where ${defect}` });
}
