/**
 * The visibility window. The document states no read-after-write guarantee
 * (What the service does: "The service keeps a store of animals", nothing on
 * when an animal added is readable), so a correct store may show a new animal
 * a little after its 201 (read replicas). A created animal not yet seen is
 * asked for again with backoff until the window after its 201 has passed; the
 * lag is observed (GAP-READ-AFTER-WRITE). An animal once seen is never waited
 * for: a 404 then is judged at once (judge.ts, SEEN_THEN_MISSING).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckContext, Observer, SendOptions, SentExchange, StoreState } from './check.js';
import { getPet, listPets } from './requests.js';
import type { ListQuery } from '../generators/listQuery.js';

/** First pause before asking again, ms; it doubles up to {@link MAX_PAUSE_MS}. */
const FIRST_PAUSE_MS = 50;
/** Longest pause between two reads of one animal, ms. */
const MAX_PAUSE_MS = 500;
/** Reads of one animal at most, the first included: bounded in count whatever the window. */
export const MAX_READS = 12;

/** What the read-backs need of a check: its store, the window, a way to send, and to observe. */
export interface Visibility {
  readonly store: StoreState;
  readonly windowMs: number;
  send(request: SendOptions): Promise<SentExchange>;
  readonly observer: Observer;
}

/** The read-back services of a check context (`observer` is the check, or a property case's assert). */
export function visibilityOf(ctx: CheckContext, observer: Observer = ctx): Visibility {
  return { store: ctx.store, windowMs: ctx.settings.visibilityWindowMs, send: (request) => ctx.send(request), observer };
}

/** When the window of a created animal closes (`performance.now()` time), or undefined when the suite did not create it. */
function windowEnd(v: Visibility, id: bigint): number | undefined {
  const at = v.store.createdAt(id);
  return at === undefined ? undefined : at + v.windowMs;
}

/** Whether an animal the suite created may still be missing for lag from the `seq`-th request: within its window, and no 200 to an earlier request showed it. */
function mayLag(v: Visibility, id: bigint, seq: number): boolean {
  const end = windowEnd(v, id);
  return end !== undefined && performance.now() < end && !v.store.seenBefore(id, seq);
}

/** The pause before the `n`-th read again (from 1), not past `end`. */
function pauseBefore(n: number, end: number): number {
  return Math.max(0, Math.min(FIRST_PAUSE_MS * 2 ** (n - 1), MAX_PAUSE_MS, end - performance.now()));
}

/**
 * `GET /pets/{id}` of an animal the suite created, after `first` (the read
 * the caller sent) answered: asked again with backoff while it answers 404,
 * has never been seen, and its window is open. Returns the last exchange,
 * judged by the caller as any read-back; the lag, when a 200 came after
 * 404s, is observed. A first answer other than 404 is returned as it is,
 * without a turn of the event loop: the common path is the one it always was.
 */
export async function readAgain(v: Visibility, id: bigint, first: SentExchange): Promise<SentExchange> {
  let x = first;
  const end = windowEnd(v, id);
  for (let n = 1; end !== undefined && n < MAX_READS && x.response?.status === 404 && mayLag(v, id, x.seq); n++) {
    await sleep(pauseBefore(n, end));
    x = await v.send(getPet(id));
    if (x.response?.status === 200) observeLag(v, id, n + 1, first, x);
  }
  return x;
}

/** `GET /pets/{id}` of an animal the suite created, asked again while it may be missing for lag ({@link readAgain}). */
export async function readBack(v: Visibility, id: bigint): Promise<SentExchange> {
  const first = await v.send(getPet(id));
  return first.response?.status === 404 ? readAgain(v, id, first) : first;
}

/** {@link readBack} of several animals: sent together with the check's bounded concurrency, then those answered 404 asked again; results in input order. */
export async function readBackAll(ctx: CheckContext, ids: readonly bigint[]): Promise<SentExchange[]> {
  const v = visibilityOf(ctx);
  const first = await ctx.sendAll(ids.map((id) => getPet(id)));
  const missing = first.flatMap((x, i) => (x.response?.status === 404 ? [i] : []));
  if (missing.length === 0) return first;
  const again = await ctx.parallel(missing, (i) => readAgain(v, ids[i]!, first[i]!));
  missing.forEach((i, k) => (first[i] = again[k]!));
  return first;
}

/**
 * A listing sent again while animals it should show are missing for lag:
 * with backoff, until every one of `awaited` is listed or the last of their
 * windows closes. Returns the last page sent, or undefined when none may lag
 * (the page already judged stands).
 */
export async function listAgain(
  v: Visibility,
  query: ListQuery,
  page: SentExchange,
  awaited: readonly bigint[],
  listedIn: (x: SentExchange) => ReadonlySet<bigint> | undefined,
): Promise<SentExchange | undefined> {
  const lagging = awaited.filter((id) => mayLag(v, id, page.seq));
  if (lagging.length === 0) return undefined;
  const end = Math.max(...lagging.map((id) => windowEnd(v, id)!));
  let x = page;
  for (let n = 1; n < MAX_READS && performance.now() < end; n++) {
    await sleep(pauseBefore(n, end));
    x = await v.send(listPets(query));
    const listed = listedIn(x);
    if (!listed) return x;
    if (lagging.every((id) => listed.has(id))) {
      v.observer.observe(
        'GAP-READ-AFTER-WRITE',
        'listPets',
        `${lagging.length} animal${lagging.length === 1 ? '' : 's'} created just before left out of a listing (request ${page.seq}), listed when it was sent again (read ${n + 1})`,
        x,
      );
      return x;
    }
  }
  return x;
}

function observeLag(v: Visibility, id: bigint, reads: number, first: SentExchange, last: SentExchange): void {
  const at = v.store.createdAt(id);
  const after = at === undefined ? '' : `, about ${Math.round(performance.now() - at)} ms after its 201`;
  v.observer.observe(
    'GAP-READ-AFTER-WRITE',
    'getPet',
    `animal ${id} answered 404 (request ${first.seq}), then 200 on read ${reads}${after}`,
    last,
  );
}
