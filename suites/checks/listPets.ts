/** listPets: `GET /pets` (Endpoints › listPets; Limits). */
import { isJsonObject, type Json } from '../../core/json.js';
import { type ListQuery, listQuery } from '../../generators/listQuery.js';
import { PET_STATUSES } from '../../spec/openapi.js';
import { defineCheck, type CheckContext, type CreatedPet, type SentExchange } from '../check.js';
import {
  bodyNotRead,
  describeResponse,
  JUDGE_GAPS,
  jsonOf,
  judgeFetched,
  judgeList,
  judgePageFull,
  petView,
  provenMatches,
  rawId,
} from '../judge.js';
import { listPets } from '../requests.js';
import { listAgain, readBackAll, visibilityOf } from '../visibility.js';

/** Headers that would carry paging data, recorded when present (rule 3: not shown). */
const PAGING_HEADERS = ['link', 'x-total-count', 'x-total', 'x-next-cursor', 'x-next-page', 'x-page', 'x-per-page'];

/** Rule 1: "When `limit` is absent, at most 20 animals are returned." */
export const defaultLimit = defineCheck({
  kind: 'example',
  id: 'listPets.default-limit',
  title: 'GET /pets without limit returns 20 animals from a store of more than 20',
  phase: 'listPets',
  operation: 'listPets',
  rules: ['LIST-RESPONSE', 'LIST-LIMIT-DEFAULT', 'LIST-PAGE-FULL'],
  gaps: ['GAP-PAGINATION', ...JUDGE_GAPS],
  async run(ctx) {
    const proven = provenMatches(ctx.store, undefined);
    const x = await ctx.send(listPets());
    judgeList(ctx, x, {}, ctx.store, proven);
    const paging = PAGING_HEADERS.filter((h) => x.response?.headers[h] !== undefined);
    ctx.observe(
      'GAP-PAGINATION',
      'listPets',
      paging.length ? `paging headers: ${paging.join(', ')}` : 'no paging headers; the body is the array alone',
      x,
    );
  },
});

/** Query parameter limit: "Maximum number of animals to return", minimum 1, maximum 100. */
export const everyLimit = defineCheck({
  kind: 'example',
  id: 'listPets.every-limit',
  title: 'GET /pets?limit=n for every n in 1..100',
  phase: 'listPets',
  operation: 'listPets',
  rules: ['LIST-RESPONSE', 'LIST-LIMIT-HONOURED', 'LIST-LIMIT-BOUNDS', 'LIST-PAGE-FULL'],
  gaps: JUDGE_GAPS,
  async run(ctx) {
    const proven = provenMatches(ctx.store, undefined);
    const limits = Array.from({ length: 100 }, (_, i) => i + 1);
    const exchanges = await ctx.sendAll(limits.map((limit) => listPets({ limit })));
    exchanges.forEach((x, i) => {
      const limit = limits[i]!;
      judgeList(ctx, x, { limit }, ctx.store, proven);
      if (limit === 1 || limit === 100) {
        if (x.response?.status === 200) ctx.pass('LIST-LIMIT-BOUNDS');
        else
          ctx.fail(
            'LIST-LIMIT-BOUNDS',
            { code: 'WRONG_STATUS', args: { status: '200', request: `limit=${limit}, within the bounds`, received: describeResponse(x) } },
            [x],
            `limit=${limit}`,
            { kind: 'status', rule: 'LIST-LIMIT-BOUNDS', expected: [200], what: `limit=${limit}` },
          );
      }
    });
  },
});

/**
 * Rule 2: "When `status` is given, only animals with that status are
 * returned", and none that has it is left out. Transitions are not shown, so
 * an animal missing from its status's page is read again first: one that
 * moved is no longer expected there, nor counted towards a full page.
 */
export const statusFilter = defineCheck({
  kind: 'example',
  id: 'listPets.status-filter',
  title: 'GET /pets?status=s returns every animal last read with s and no other',
  phase: 'listPets',
  operation: 'listPets',
  rules: [
    'LIST-RESPONSE',
    'LIST-LIMIT-DEFAULT',
    'LIST-LIMIT-HONOURED',
    'LIST-STATUS-FILTER',
    'LIST-PAGE-FULL',
    'LIST-STATUS-COMPLETE',
    'GET-RESPONSE',
  ],
  gaps: [...JUDGE_GAPS, 'GAP-READ-AFTER-WRITE', 'GAP-PAGINATION'],
  async run(ctx) {
    // Every status's pages are sent at once (a run far from its target waits one round trip, not one per status),
    // then judged status after status, as when sent one status after another. Expected on a page: the animals last
    // read with its status before it was sent (the pages, answered one after another, may show an animal that moved
    // in between: that read does not bind the others).
    const pages = PET_STATUSES.map((status) => {
      const queries: ListQuery[] = [{ status, limit: 100 }, { status }, ...[1, 2, 5].map((limit) => ({ status, limit }))];
      return { status, queries, known: ctx.store.createdWithStatus(status) };
    });
    const sent = await ctx.sendAll(pages.flatMap((p) => p.queries.map((query) => listPets(query))));
    let at = 0;
    for (const { status, queries, known } of pages) {
      const exchanges = sent.slice(at, (at += queries.length));
      const items = exchanges.map((x, i) => judgeList(ctx, x, queries[i]!, ctx.store, 0, 'later'));
      if (items[0]) await judgeComplete(ctx, status, queries[0]!, exchanges[0]!, known);
      else if (known.length > 0) bodyNotRead(ctx, ['LIST-STATUS-COMPLETE'], exchanges[0]!, 'array');
      for (const [i, x] of exchanges.entries()) await settlePageFull(ctx, status, x, queries[i]!, known);
    }
  },
});

/**
 * LIST-PAGE-FULL for a status page, with statuses that may move: counted from
 * `known`, the animals last read with `status` before the page was sent; when
 * the page comes back short, the known animals it does not show are read
 * again first, and those that moved no longer count (they may have moved
 * after the page was answered: the benefit of the doubt goes to the target).
 */
async function settlePageFull(
  ctx: CheckContext,
  status: string,
  x: SentExchange,
  query: ListQuery,
  known: readonly CreatedPet[],
): Promise<void> {
  if (known.length > 0 && x.response?.status === 200 && bodyNotRead(ctx, ['LIST-PAGE-FULL'], x, 'array')) return;
  const items = jsonOf(x);
  if (!Array.isArray(items)) return;
  const shown = new Set(items.map(rawId));
  let proven = known.length;
  if (shown.size < Math.min(query.limit ?? 20, proven)) {
    const unseen = known.filter((c) => !shown.has(c.pet.id));
    const again = await readBackAll(
      ctx,
      unseen.map((c) => c.pet.id),
    );
    unseen.forEach((c, i) => judgeFetched(ctx, again[i]!, c.sent, c.pet.id, c.exchange, ctx.store));
    const moved = unseen.filter((c) => ctx.store.statusOf(c.pet.id) !== status);
    proven -= moved.length;
    // Animals left out that may not have been readable yet when the page was sent: the page is asked for again.
    const stayed = unseen.filter((c) => !moved.includes(c)).map((c) => c.pet.id);
    const later = await listAgain(visibilityOf(ctx), query, x, stayed, listedIds);
    if (later) {
      if (bodyNotRead(ctx, ['LIST-PAGE-FULL'], later, 'array')) return;
      x = later;
    }
  }
  judgePageFull(ctx, x, query, proven, true);
}

/** The ids a 200 listing shows, or undefined when it is not a JSON array. */
function listedIds(x: SentExchange): ReadonlySet<bigint> | undefined {
  const items = x.response?.status === 200 ? jsonOf(x) : undefined;
  return Array.isArray(items) ? new Set(items.map(rawId).filter((id): id is bigint => id !== undefined)) : undefined;
}

/**
 * LIST-STATUS-COMPLETE: every animal last read with `status` is on its page,
 * unless the page is full: 100 distinct animals, all with that status, are
 * a complete answer of the filter within the limit (no order is stated, so
 * any 100 of them are). One left out is read again; one created so recently
 * that it may not have been readable yet (no read-after-write guarantee is
 * stated) is waited for within the visibility window, and the page asked for
 * again.
 */
async function judgeComplete(
  ctx: CheckContext,
  status: string,
  query: ListQuery,
  first: SentExchange,
  known: readonly CreatedPet[],
): Promise<void> {
  let page = first;
  const listed = new Set((jsonOf(page) as unknown[]).map((item) => rawId(item as never)));
  let missing = known.filter((c) => !listed.has(c.pet.id));
  let room = roomOn(page, status);
  if (missing.length > 0 && room.items < 100) {
    const later = await listAgain(
      visibilityOf(ctx),
      query,
      page,
      missing.map((c) => c.pet.id),
      listedIds,
    );
    const shown = later && listedIds(later);
    if (later && shown) {
      judgeList(ctx, later, query, ctx.store, 0, 'later');
      page = later;
      room = roomOn(later, status);
      missing = missing.filter((c) => !shown.has(c.pet.id));
    }
  }
  for (let i = known.length - missing.length; i > 0; i--) ctx.pass('LIST-STATUS-COMPLETE');
  if (missing.length === 0) return;
  if (room.others === 0 && room.matching >= 100) {
    // No client can be shown the animals a full page leaves out: the page meets the rule, and what it left out is observed.
    ctx.pass('LIST-STATUS-COMPLETE');
    ctx.observe(
      'GAP-PAGINATION',
      'listPets',
      `status=${status}: a full page of 100; ${missing.length} animal(s) last read with that status are not on it (no order is stated)`,
      page,
    );
    return;
  }
  if (room.items >= 100 && room.others > 0) {
    // The limit is reached with animals the filter should have left out (LIST-STATUS-FILTER fails on this page):
    // whether it would also have dropped these cannot be told from it.
    ctx.inconclusive('LIST-STATUS-COMPLETE', { code: 'MISSING_FROM_MIXED_PAGE', args: { count: missing.length, status } }, [page]);
    return;
  }
  const refetched = await readBackAll(
    ctx,
    missing.map((c) => c.pet.id),
  );
  missing.forEach((created, i) => {
    const again = refetched[i]!;
    judgeFetched(ctx, again, created.sent, created.pet.id, created.exchange, ctx.store);
    const now = again.response?.status === 200 ? petView(jsonOf(again) ?? null) : undefined;
    if (now && now.id === created.pet.id && now.status !== status) return; // it moved (observed by judgeFetched): no longer expected on this page
    if (!now) {
      ctx.inconclusive('LIST-STATUS-COMPLETE', { code: 'MISSING_UNREADABLE', args: { id: `${created.pet.id}`, status } }, [page, again]);
      return;
    }
    ctx.fail(
      'LIST-STATUS-COMPLETE',
      { code: 'LISTED_MISSING', args: { id: `${created.pet.id}`, status, count: room.matching } },
      [created.exchange, page, again],
      'created animal missing',
    );
  });
}

/**
 * What a page holds: its items, the distinct animals with `status` among them,
 * and the items that are not (another status, none, or no Pet). Repeats and
 * other animals leave room: only 100 distinct animals of the status fill it.
 */
function roomOn(page: SentExchange, status: string): { items: number; matching: number; others: number } {
  const items = jsonOf(page) as Json[];
  const ids = new Set<bigint>();
  let others = 0;
  for (const item of items) {
    const pet = petView(item);
    if (pet?.status === status) ids.add(pet.id);
    else others++;
  }
  return { items: items.length, matching: ids.size, others };
}

/** Rules 1 and 2 and the limit, over generated queries. */
export const queryProperty = defineCheck({
  kind: 'property',
  id: 'listPets.query-property',
  title: 'Any valid query: a JSON array, within the limit, only the status asked for, a full page',
  phase: 'listPets',
  operation: 'listPets',
  rules: ['LIST-RESPONSE', 'LIST-LIMIT-DEFAULT', 'LIST-LIMIT-HONOURED', 'LIST-STATUS-FILTER', 'LIST-PAGE-FULL'],
  gaps: JUDGE_GAPS,
  async run(ctx) {
    await ctx.property(listQuery(), async (query, assert) => {
      const proven = provenMatches(ctx.store, query.status);
      const x = await ctx.send(listPets(query));
      judgeList(assert, x, query, ctx.store, proven);
    });
  },
});

const OUT_OF_RANGE = ['0', '-1', '101', '1000', '2147483648', '9223372036854775807', '9223372036854775808', '-9223372036854775809'];
const MALFORMED = ['abc', '', '1.5', '1e2', '0x10', '%20', 'null', '10abc'];

/**
 * Limits: minimum 1, maximum 100. Outside them the answer is not shown: a 400
 * Error and a clamped list are both accepted, but never more than 100 animals.
 */
export const outOfRangeLimit = defineCheck({
  kind: 'example',
  id: 'listPets.limit-outside-bounds',
  title: 'GET /pets with limit outside 1..100 or not an integer: never more than 100 animals',
  phase: 'listPets',
  operation: 'listPets',
  rules: ['LIST-RESPONSE', 'LIST-LIMIT-BOUNDS'],
  gaps: ['GAP-LIMIT-OUT-OF-RANGE', 'GAP-LIMIT-MALFORMED'],
  async run(ctx) {
    const values = [...OUT_OF_RANGE, ...MALFORMED];
    const exchanges = await ctx.sendAll(values.map((v) => listPets(`?limit=${v}`)));
    exchanges.forEach((x, i) => {
      const value = values[i]!;
      const gap = OUT_OF_RANGE.includes(value) ? 'GAP-LIMIT-OUT-OF-RANGE' : 'GAP-LIMIT-MALFORMED';
      const count = judgeAnyList(ctx, x, `limit=${value}`, 'LIST-LIMIT-BOUNDS');
      if (count !== undefined) {
        if (count > 100)
          ctx.fail(
            'LIST-LIMIT-BOUNDS',
            { code: 'TOO_MANY_ANIMALS', args: { bound: 'maximum', max: 100, query: `limit=${value}`, count } },
            [x],
            `limit=${value} over 100`,
            { kind: 'response', check: 'responses.list-maximum' },
          );
        else ctx.pass('LIST-LIMIT-BOUNDS');
      }
      ctx.observe(gap, 'listPets', `limit=${value}: ${summarise(x, count)}`, x);
    });
  },
});

/** PetStatus values only; what another value does is not shown. Rule 1 still applies. */
export const unknownStatus = defineCheck({
  kind: 'example',
  id: 'listPets.status-outside-enum',
  title: 'GET /pets with a status outside PetStatus: an Error, or a list within the default limit',
  phase: 'listPets',
  operation: 'listPets',
  rules: ['LIST-RESPONSE', 'LIST-LIMIT-DEFAULT'],
  gaps: ['GAP-STATUS-FILTER-VALUE'],
  async run(ctx) {
    const values = ['unknown', 'AVAILABLE', 'Available', '', 'available,sold', 'sold%20'];
    const exchanges = await ctx.sendAll(values.map((v) => listPets(`?status=${v}`)));
    exchanges.forEach((x, i) => {
      const value = values[i]!;
      const count = judgeAnyList(ctx, x, `status=${value}`, 'LIST-LIMIT-DEFAULT');
      if (count !== undefined) {
        if (count > 20)
          ctx.fail(
            'LIST-LIMIT-DEFAULT',
            { code: 'TOO_MANY_ANIMALS', args: { bound: 'default', max: 20, query: `status=${value}`, count } },
            [x],
            `status=${value} over 20`,
          );
        else ctx.pass('LIST-LIMIT-DEFAULT');
      }
      const items = count === undefined ? [] : (jsonOf(x) as unknown[]);
      const statuses = [
        ...new Set(
          items.map((item) => (isJsonObject(item as never) ? JSON.stringify((item as { status?: unknown }).status ?? null) : '?')),
        ),
      ];
      ctx.observe(
        'GAP-STATUS-FILTER-VALUE',
        'listPets',
        `status=${value}: ${summarise(x, count)}${statuses.length ? ` (statuses ${statuses.join(', ')})` : ''}`,
        x,
      );
    });
  },
});

/**
 * For a request whose answer may be an Error: when it is 200, it must be Pets.
 * Returns the item count then, which the caller judges against `bound`.
 */
function judgeAnyList(
  ctx: CheckContext,
  x: SentExchange,
  what: string,
  bound: 'LIST-LIMIT-BOUNDS' | 'LIST-LIMIT-DEFAULT',
): number | undefined {
  if (x.response?.status !== 200 || bodyNotRead(ctx, ['LIST-RESPONSE', bound], x, 'array')) return undefined;
  const body = jsonOf(x);
  if (!Array.isArray(body)) {
    ctx.fail(
      'LIST-RESPONSE',
      { code: 'LIST_NOT_ARRAY', args: { request: what, received: describeResponse(x) } },
      [x],
      `${what} not an array`,
    );
    return undefined;
  }
  ctx.pass('LIST-RESPONSE');
  return body.length;
}

function summarise(x: SentExchange, count: number | undefined): string {
  if (!x.response) return `no response (${x.error?.message})`;
  if (count !== undefined) return `200 with ${count} animal${count === 1 ? '' : 's'}`;
  const body = jsonOf(x);
  const code = isJsonObject(body) && typeof body.code === 'string' ? ` code ${JSON.stringify(body.code)}` : '';
  return `${x.response.status}${code}`;
}

export const listPetsChecks = [defaultLimit, everyLimit, statusFilter, queryProperty, outOfRangeLimit, unknownStatus] as const;
