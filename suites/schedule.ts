/**
 * Scheduling: bounded concurrency, and the plan position of the work in
 * flight. Checks of a phase and the cases of a property run concurrently;
 * what they leave behind (the animals they created) is kept in plan order, so
 * a report does not depend on which answer came back first.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Maps with at most `limit` calls in flight; results in input order. When one
 * call throws, no further item is started, the calls in flight are awaited,
 * and the first error is thrown: nothing keeps sending behind a check that ended.
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * Calls made while an item of {@link mapInItemOrder} runs, kept until every item before it has settled; once they
 * took effect (`done`), a call made by work the item left running goes to the enclosing item's, or takes effect at
 * once.
 */
interface Deferred {
  calls: (() => void)[];
  done: boolean;
  parent: Deferred | undefined;
}

const deferred = new AsyncLocalStorage<Deferred>();

/**
 * `fn`, whose calls made while an item of {@link mapInItemOrder} runs take
 * effect in item order; elsewhere at once. A check's findings recorded as
 * each answer comes back would otherwise be in completion order: which come
 * first (and which are kept, past the most a check keeps) would depend on
 * timing and on how many were in flight.
 */
export function inItemOrder<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
  return (...args) => {
    let queue = deferred.getStore();
    while (queue?.done) queue = queue.parent;
    if (queue) queue.calls.push(() => fn(...args));
    else fn(...args);
  };
}

/**
 * {@link mapBounded}, where what `fn` does through {@link inItemOrder}
 * takes effect in item order: item i's calls once items 0…i have settled
 * (nested, into the enclosing item's). When an item throws, what the items
 * that ran did still takes effect, in item order, before the error is thrown.
 */
export async function mapInItemOrder<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const parent = deferred.getStore();
  const queues = items.map((): Deferred => ({ calls: [], done: false, parent }));
  const settled = items.map(() => false);
  let next = 0;
  const flush = () => {
    while (next < items.length && settled[next]) {
      const queue = queues[next++]!;
      queue.done = true;
      let into = parent;
      while (into?.done) into = into.parent;
      for (const call of queue.calls.splice(0))
        if (into) into.calls.push(call);
        else call();
    }
  };
  try {
    return await mapBounded(items, limit, async (item, i) => {
      try {
        return await deferred.run(queues[i]!, () => fn(item, i));
      } finally {
        settled[i] = true;
        flush();
      }
    });
  } finally {
    // Items never started (one threw) did nothing.
    settled.fill(true);
    flush();
  }
}

/** Where in the plan the running code is: the check's position, and the property case's. */
interface Slot {
  check: number;
  case: number;
}

const slot = new AsyncLocalStorage<Slot>();

/** Runs `fn` as the check at plan position `check`. */
export function inCheck<R>(check: number, fn: () => Promise<R>): Promise<R> {
  return slot.run({ check, case: 0 }, fn);
}

/** Runs `fn` as property case `index` of the current check. */
export function inCase<R>(index: number, fn: () => Promise<R>): Promise<R> {
  return slot.run({ check: slot.getStore()?.check ?? 0, case: index + 1 }, fn);
}

/** The plan position of the running code, comparable with {@link comparePlace}. */
export function place(): readonly [number, number] {
  const here = slot.getStore();
  return here ? [here.check, here.case] : [0, 0];
}

export function comparePlace(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

/**
 * Runs each phase once every phase it comes after has ended; phases with
 * nothing between them run concurrently. `run` is handed the end of any
 * phases, for work of its phase that waits for more than the phase does.
 * Resolves when all have ended.
 */
export async function runPhases<P extends string>(
  plan: readonly { name: P; after: readonly P[] }[],
  run: (phase: P, ended: (phases: readonly P[]) => Promise<void>) => Promise<void>,
): Promise<void> {
  const ended = new Map<P, Promise<void>>();
  const all = (phases: readonly P[]): Promise<void> => Promise.all(phases.map(start)).then(() => undefined);
  const start = (phase: P): Promise<void> => {
    let done = ended.get(phase);
    if (!done) {
      const spec = plan.find((p) => p.name === phase);
      if (!spec) throw new Error(`phase ${phase} is not in the plan`);
      done = all(spec.after).then(() => run(phase, all));
      ended.set(phase, done);
    }
    return done;
  };
  await all(plan.map((p) => p.name));
}

/**
 * Emits what concurrent work produces in plan order: slot i's events go out
 * once every slot before it has settled.
 */
export class InPlanOrder<E> {
  readonly #slots: (readonly E[] | undefined)[];
  #next = 0;

  constructor(
    slots: number,
    readonly emit: (event: E) => void,
  ) {
    this.#slots = new Array<readonly E[] | undefined>(slots);
  }

  settle(slot: number, events: readonly E[]): void {
    this.#slots[slot] = events;
    while (this.#next < this.#slots.length && this.#slots[this.#next]) {
      for (const event of this.#slots[this.#next]!) this.emit(event);
      this.#slots[this.#next++] = [];
    }
  }
}
