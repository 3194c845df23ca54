/**
 * The differential probe's prelude order and the preflight's drawn page
 * (suites/probe/prelude.ts): what a run sends first is what any client sends
 * first, as one client, before any tell of the suite; the rest follows in an
 * order drawn from the seed. Pure: no socket, no clock.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../core/errors.js';
import { resolve } from '../../../suites/options.js';
import { drawnLimit, PRELUDE, preludeOrder } from '../../../suites/probe/prelude.js';

const SEEDS = Array.from({ length: 200 }, (_, i) => i * 7919 - 500_000);

describe('the prelude, drawn', () => {
  it('opens with a listing, a create, its read-back and a listing by its status as one client; then the rest, each as another client', () => {
    for (const seed of SEEDS) {
      const order = preludeOrder(seed, 'drawn');
      expect(order.slice(0, 4)).toEqual([
        { kind: 'list-key', client: 0 },
        { kind: 'create-valid', client: 0 },
        { kind: 'get-existing', client: 0 },
        { kind: 'list-status', client: 0 },
      ]);
      // Every kind once; no key, an invalid body, a missing id: after the ordinary ones, each as a client of its own.
      expect([...order.map((o) => o.kind)].sort()).toEqual([...PRELUDE, 'list-status'].sort());
      expect(order.slice(4).map((o) => o.client)).toEqual([1, 2, 3, 4]);
    }
  });

  it('draws the order of the rest from the seed: every order of the four, none fixed', () => {
    const tails = new Set(
      SEEDS.map((seed) =>
        preludeOrder(seed, 'drawn')
          .slice(4)
          .map((o) => o.kind)
          .join(' '),
      ),
    );
    expect(tails.size).toBe(24);
    // The same seed, the same order (verify's replay sends what the run sent).
    expect(preludeOrder(42, 'drawn')).toEqual(preludeOrder(42, 'drawn'));
  });

  it('fixed: the order of earlier versions, each kind as the next client (bundles certified then)', () => {
    expect(preludeOrder(42, 'fixed')).toEqual(PRELUDE.map((kind, client) => ({ kind, client })));
  });
});

describe("the preflight's page, drawn", () => {
  it('is a limit from 1 to 100, or none, from the seed: no constant first request', () => {
    const limits = SEEDS.map((seed) => drawnLimit(seed, 'preflight'));
    for (const limit of limits) if (limit !== 'none') expect(limit >= 1 && limit <= 100 && Number.isInteger(limit)).toBe(true);
    const counts = new Map<number | 'none', number>();
    for (const limit of limits) counts.set(limit, (counts.get(limit) ?? 0) + 1);
    // About a quarter without a limit; the rest spread over the range, none of them common.
    expect(counts.get('none')).toBeGreaterThan(SEEDS.length / 8);
    expect(counts.get('none')).toBeLessThan(SEEDS.length / 2);
    expect(counts.size).toBeGreaterThan(60);
    expect(Math.max(...[...counts].filter(([limit]) => limit !== 'none').map(([, n]) => n))).toBeLessThan(SEEDS.length / 20);
    expect(drawnLimit(42, 'preflight')).toBe(drawnLimit(42, 'preflight'));
  });
});

describe("a caller's preflight page (verify's replay gives the recorded one)", () => {
  const at = (preflightLimit: unknown) => () =>
    resolve({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'a-real-key-1234', preflightLimit: preflightLimit as number });
  it('is a page size the interface takes, 1 to 100, or none; anything else is a usage error', () => {
    for (const ok of [1, 50, 100, 'none']) expect(at(ok)).not.toThrow();
    for (const bad of [0, 101, 1.5, -3, 'all'])
      expect(at(bad)).toThrow(new UsageError(`preflightLimit must be an integer from 1 to 100, or 'none', got ${String(bad)}`));
  });
});
