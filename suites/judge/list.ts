/**
 * The shared judgements of a listPets answer (LIST-RESPONSE, the limits, the
 * status filter, LIST-PAGE-FULL), and what the store provably holds before a
 * listing is sent.
 */
import { type Json, isJsonObject, show } from '../../core/json.js';
import type { ListQuery } from '../../generators/listQuery.js';
import type { RuleId } from '../../spec/rules.js';
import type { Asserter, SentExchange, StoreState } from '../check.js';
import type { Judgement } from '../../result/model.js';
import { bodyNotRead, describeResponse, jsonOf, notAPet, petView, rawId } from './answer.js';
import { comparePet, type Judge, noteAll } from './pet-compare.js';

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
export function judgeList(
  a: Judge,
  exchange: SentExchange,
  query: ListQuery,
  store: StoreState,
  proven: number,
  pageFull: 'now' | 'later' = 'now',
  concurrent = false,
): Json[] | undefined {
  const again: Judgement = { kind: 'list', query, proven };
  if (
    exchange.response?.status === 200 &&
    bodyNotRead(a, listRules(query, pageFull === 'now' && Math.min(query.limit ?? 20, proven) > 0), exchange, 'array')
  )
    return undefined;
  const body = exchange.response?.status === 200 ? jsonOf(exchange) : undefined;
  if (!Array.isArray(body)) {
    a.fail(
      'LIST-RESPONSE',
      { code: 'LIST_NOT_ARRAY', args: { received: describeResponse(exchange) } },
      [exchange],
      `status ${exchange.response?.status ?? 'none'}, ${body === undefined ? 'no JSON' : 'not an array'}`,
      again,
    );
    return undefined;
  }
  const bad = body.findIndex((item) => notAPet(item) !== undefined);
  if (bad >= 0)
    a.fail(
      'LIST-RESPONSE',
      { code: 'LIST_ITEM_NOT_A_PET', args: { index: bad, problem: notAPet(body[bad]!)! } },
      [exchange],
      'item not a Pet',
      again,
    );
  else a.pass('LIST-RESPONSE');
  const count = body.length;
  if (query.limit === undefined) {
    if (count > 20)
      a.fail('LIST-LIMIT-DEFAULT', { code: 'TOO_MANY_ANIMALS', args: { bound: 'default', max: 20, count } }, [exchange], 'over 20', again);
    else a.pass('LIST-LIMIT-DEFAULT');
  } else if (count > query.limit) {
    a.fail(
      'LIST-LIMIT-HONOURED',
      { code: 'TOO_MANY_ANIMALS', args: { bound: 'limit', max: query.limit, count } },
      [exchange],
      `limit+${count - query.limit}`,
      again,
    );
  } else {
    a.pass('LIST-LIMIT-HONOURED');
  }
  if (query.status !== undefined) {
    const others = body.filter((item) => !isJsonObject(item) || item.status !== query.status);
    if (others.length > 0) {
      const shown = others
        .slice(0, 3)
        .map((item) => (isJsonObject(item) ? `id ${show(item.id ?? null, 30)} with status ${show(item.status, 30)}` : show(item, 40)));
      a.fail(
        'LIST-STATUS-FILTER',
        { code: 'OTHER_STATUS_LISTED', args: { status: query.status, count: others.length, shown } },
        [exchange],
        'other status',
        again,
      );
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
  return [
    'LIST-RESPONSE',
    query.limit === undefined ? 'LIST-LIMIT-DEFAULT' : 'LIST-LIMIT-HONOURED',
    ...(query.status === undefined ? [] : ['LIST-STATUS-FILTER' as const]),
    ...(pageFull ? ['LIST-PAGE-FULL' as const] : []),
  ];
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
  a.fail(
    'LIST-PAGE-FULL',
    { code: 'PAGE_SHORT', args: { ...page, expected: floor, ...(query.status === undefined ? {} : { status: query.status }) } },
    [exchange],
    `short by ${floor - animals}`,
    { kind: 'list', query, proven },
  );
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
    const comparison =
      asSent.wrong.length === 0
        ? asSent
        : comparePet(pet, { ...created.sent, name: created.pet.name, categoryId: created.pet.categoryId }, true);
    noteAll(a, 'listPets', comparison, exchange);
    store.noteStatus(pet.id, pet.status);
    if (comparison.wrong.length > 0 && !failed) {
      failed = true;
      a.fail(
        'LIST-RESPONSE',
        { code: 'LISTED_DIFFERS', args: { id: `${pet.id}`, differences: comparison.wrong } },
        [created.exchange, exchange],
        `listed ${comparison.wrong.map((w) => w.split(' ')[0]).join(',')}`,
      );
    }
  }
}
