/**
 * Judgements shared by several checks. Each names the rules it asserts; the
 * calling check must declare them. Here: createPet's and getPet's answers and
 * rejections; reading an answer is judge/answer.ts, comparing a Pet with what
 * it should carry judge/pet-compare.ts, listPets' answers judge/list.ts (all
 * importable from here).
 */
import { stringifyJson } from '../core/json.js';
import type { Names } from '../generators/names.js';
import type { NewPetInput } from '../generators/newPet.js';
import { outsideRepertoire } from '../generators/petName.js';
import { toBody } from '../generators/invalidNewPet.js';
import type { FindingMessage } from '../spec/findings.js';
import type { Asserter, PetView, SendOptions, SentExchange, StoreState } from './check.js';
import { createPet } from './requests.js';
import type { Judgement } from '../result/model.js';
import { bodyNotRead, describeResponse, jsonOf, notAPet, petView } from './judge/answer.js';
import { comparePet, type Judge, JUDGE_GAPS, noteAll } from './judge/pet-compare.js';

export { bodyNotRead, describeResponse, jsonOf, notAPet, petView, petViolations, rawId, withoutNullStatus } from './judge/answer.js';
export { codePoints, comparePet, type Judge, JUDGE_GAPS, nameDifference, showString } from './judge/pet-compare.js';
export { judgeList, judgePageFull, provenMatches } from './judge/list.js';

/** createPet's judgement again, alone (id uniqueness needs the run's store, so it is not judged again). */
const CREATE: Judgement = { kind: 'create' };

/** getPet's judgement again: animal `id`, created as `sent`. */
function fetchJudgement(id: bigint, sent: NewPetInput): Judgement {
  return {
    kind: 'fetch',
    id: id.toString(),
    sent: stringifyJson(sent.status === undefined ? { name: sent.name, categoryId: sent.categoryId } : sent),
  };
}

/** Gaps {@link createAndJudge} observes besides {@link JUDGE_GAPS}. */
export const CREATE_GAPS = [...JUDGE_GAPS, 'GAP-NAME-REPERTOIRE', 'GAP-CATEGORY-RECORDS'] as const;

/**
 * Judges a createPet answer to a valid body: CREATE-RESPONSE (201 and a Pet in
 * JSON), CREATE-ECHO (name, categoryId, status as sent) and CREATE-ID-UNIQUE.
 * Returns the created Pet, and notes its id and categoryId in the store.
 */
export function judgeCreated(a: Judge, exchange: SentExchange, sent: NewPetInput, store: StoreState): PetView | undefined {
  const status = exchange.response?.status;
  if (status !== 201) {
    a.fail(
      'CREATE-RESPONSE',
      { code: 'NOT_CREATED', args: { received: describeResponse(exchange) } },
      [exchange],
      `status ${status ?? 'none'}`,
      CREATE,
    );
    return undefined;
  }
  if (bodyNotRead(a, ['CREATE-RESPONSE', 'CREATE-ECHO', 'CREATE-ID-UNIQUE'], exchange, 'object')) return undefined;
  const body = jsonOf(exchange);
  if (body === undefined) {
    a.fail(
      'CREATE-RESPONSE',
      { code: 'CREATED_NOT_JSON', args: { received: describeResponse(exchange) } },
      [exchange],
      'body not JSON',
      CREATE,
    );
    return undefined;
  }
  const pet = petView(body);
  const why = notAPet(body);
  if (why !== undefined)
    a.fail('CREATE-RESPONSE', { code: 'CREATED_NOT_A_PET', args: { problem: why } }, [exchange], 'body not a Pet', CREATE);
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
export async function createAndJudge(
  a: Judge,
  send: (request: SendOptions) => Promise<SentExchange>,
  sent: NewPetInput,
  store: StoreState,
  names: Names,
): Promise<{ pet?: PetView; sent: NewPetInput; exchange: SentExchange }> {
  const exchange = await send(createPet(toBody(sent)));
  const nameIssue = outsideRepertoire(sent.name);
  const known = store.categories.find((c) => c !== sent.categoryId);
  const categoryIssue = !store.categories.includes(sent.categoryId) && known !== undefined;
  if (exchange.response?.status !== 400 || (!nameIssue && !categoryIssue))
    return { sent, exchange, ...optional('pet', judgeCreated(a, exchange, sent, store)) };
  // With both open, the category alone is tried first, so that the observation names the right cause.
  let again: NewPetInput = { ...sent, ...(categoryIssue ? { categoryId: known } : { name: ordinaryNameFor(names, '', sent.name) }) };
  let retried = await send(createPet(toBody(again)));
  let blamed = { name: !categoryIssue, category: categoryIssue };
  if (nameIssue && categoryIssue && retried.response?.status === 400) {
    again = { ...again, name: ordinaryNameFor(names, '', sent.name) };
    retried = await send(createPet(toBody(again)));
    blamed = { name: true, category: false };
  }
  const what = [nameIssue ? `the name (${nameIssue})` : '', categoryIssue ? `categoryId ${sent.categoryId}` : '']
    .filter(Boolean)
    .join(' or ');
  if (retried.response?.status !== 201) {
    const swapped = [
      again.name !== sent.name ? 'an ordinary name' : '',
      again.categoryId !== sent.categoryId ? `categoryId ${again.categoryId} (accepted before)` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    a.fail(
      'CREATE-RESPONSE',
      { code: 'VALID_BODY_REFUSED', args: { refused: what, swapped, received: describeResponse(retried) } },
      [exchange, retried],
      'valid body refused',
      CREATE,
    );
    return { sent, exchange };
  }
  if (blamed.name)
    a.observe(
      'GAP-NAME-REPERTOIRE',
      'createPet',
      `a name refused with 400 because ${nameIssue}; the same body with an ordinary name was created`,
      exchange,
    );
  if (blamed.category)
    a.observe(
      'GAP-CATEGORY-RECORDS',
      'createPet',
      `categoryId ${magnitude(sent.categoryId)} refused with 400; the same body with categoryId ${again.categoryId} was created`,
      exchange,
    );
  return { sent: again, exchange: retried, ...optional('pet', judgeCreated(a, retried, again, store)) };
}

const optional = <K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, V>);

/** A categoryId class for observations, so one observation stands for many values. */
function magnitude(id: bigint): string {
  const abs = id < 0n ? -id : id;
  return abs > 2n ** 53n
    ? 'beyond ±2^53'
    : abs > 2n ** 31n
      ? 'beyond ±2^31'
      : abs > 100n
        ? 'above 100'
        : id <= 0n
          ? 'of 0 or less'
          : 'from 1 to 100';
}

/** CREATE-ECHO: name, categoryId and (when sent) status come back exactly. */
export function judgeEcho(a: Judge, exchange: SentExchange, sent: NewPetInput, pet: PetView): void {
  const comparison = comparePet(pet, sent, false);
  noteAll(a, 'createPet', comparison, exchange);
  const { wrong } = comparison;
  if (wrong.length === 0) a.pass('CREATE-ECHO');
  else
    a.fail(
      'CREATE-ECHO',
      { code: 'ECHO_DIFFERS', args: { differences: wrong } },
      [exchange],
      wrong.map((w) => w.split(' ')[0]).join(','),
      CREATE,
    );
}

/**
 * GET-RESPONSE: getPet of an animal created as `sent` with `id` answers 200 with
 * a Pet in JSON: that animal, its status possibly moved since (transitions are
 * not shown). Notes the status read in `store`, when given.
 */
export function judgeFetched(
  assert: Judge,
  fetched: SentExchange,
  sent: NewPetInput,
  id: bigint,
  created: SentExchange,
  store?: StoreState,
): void {
  const fail = (message: FindingMessage<string>, key: string) =>
    assert.fail('GET-RESPONSE', message, [created, fetched], key, fetchJudgement(id, sent));
  const failed = (key: string) => fail({ code: 'FETCH_FAILED', args: { id: `${id}`, received: describeResponse(fetched) } }, key);
  // No read-after-write guarantee is stated, but once a 200 showed the animal, it exists: a store that loses it again
  // (two stores behind a balancer) answers the same id two ways.
  if (fetched.response?.status === 404 && store?.seenBefore(id, fetched.seq))
    return fail({ code: 'SEEN_THEN_MISSING', args: { id: `${id}`, received: describeResponse(fetched) } }, 'status 404 after 200');
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
  if (wrong.length > 0)
    fail({ code: 'FETCHED_DIFFERS', args: { id: `${id}`, differences: wrong } }, wrong.map((w) => w.split(' ')[0]).join(','));
  else if (why === undefined) assert.pass('GET-RESPONSE');
}

/** Judges a rejection: the listed answer is 400 (its Error body is judged by ERROR-SCHEMA on every response). */
export function judgeRejected(
  a: Asserter,
  rule: 'CREATE-REJECT-MISSING' | 'CREATE-REJECT-INVALID' | 'CREATE-REJECT-MALFORMED',
  exchange: SentExchange,
  defect: string,
): void {
  if (exchange.response?.status === 400) a.pass(rule);
  else
    a.fail(
      rule,
      { code: 'WRONG_STATUS', args: { status: '400', request: `a body where ${defect}`, received: describeResponse(exchange) } },
      [exchange],
      `${defect}: ${exchange.response?.status ?? 'none'}`,
      { kind: 'status', rule, expected: [400], what: `a body where ${defect}` },
    );
}
