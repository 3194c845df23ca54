/**
 * The visibility window (issue 25): no read-after-write guarantee is stated, so
 * an animal the suite created is asked for again while it is missing, within
 * the window after its 201; once seen, it must stay visible.
 */
import { describe, expect, it } from 'vitest';
import { StoreState, type SentExchange, type SendOptions } from '../../../suites/check.js';
import { runConformance } from '../../../suites/engine.js';
import { MAX_READS, readBack, type Visibility } from '../../../suites/visibility.js';
import type { ConformanceResult } from '../../../result/model.js';
import { lagging, splitStore } from '../../fixtures/mutants/index.js';
import { DISTINCTIVE_KEY, runInProcess, withServer } from '../../helpers.js';

/** A fake target answering getPet with `statuses` in turn (the last one again once they run out). */
function scripted(statuses: number[], store: StoreState, windowMs: number) {
  const sent: SendOptions[] = [];
  const observed: string[] = [];
  let seq = 100;
  const v: Visibility = {
    store,
    windowMs,
    send: (request) => {
      sent.push(request);
      const status = statuses[Math.min(sent.length - 1, statuses.length - 1)]!;
      return Promise.resolve({
        seq: ++seq,
        response: { status, headers: {}, body: new Uint8Array(), truncated: false },
      } as unknown as SentExchange);
    },
    observer: { observe: (gap, _operation, summary) => observed.push(`${gap}: ${summary}`) },
  };
  return { v, sent, observed };
}

function storeWith(id: bigint): StoreState {
  const store = new StoreState();
  store.addCreated({
    sent: { name: 'x', categoryId: 1n },
    pet: { id, name: 'x', categoryId: 1n },
    exchange: { seq: 1 } as unknown as SentExchange,
  });
  return store;
}

describe('readBack', () => {
  it('asks again with backoff while a just-created animal answers 404, and observes the lag once it is readable', async () => {
    const { v, sent, observed } = scripted([404, 404, 200], storeWith(7n), 60_000);
    const last = await readBack(v, 7n);
    expect(last.response?.status).toBe(200);
    expect(sent).toHaveLength(3);
    expect(observed).toEqual([expect.stringMatching(/^GAP-READ-AFTER-WRITE: animal 7 answered 404 \(request 101\), then 200 on read 3/)]);
  });

  it('asks once when the window is 0, when the suite did not create the animal, or when a 200 showed it before', async () => {
    const closed = scripted([404, 200], storeWith(7n), 0);
    expect((await readBack(closed.v, 7n)).response?.status).toBe(404);
    expect(closed.sent).toHaveLength(1);
    const unknown = scripted([404, 200], storeWith(7n), 60_000);
    await readBack(unknown.v, 8n);
    expect(unknown.sent).toHaveLength(1);
    const store = storeWith(7n);
    store.noteSeen(7n, 50);
    const seen = scripted([404, 200], store, 60_000);
    expect((await readBack(seen.v, 7n)).response?.status).toBe(404);
    expect(seen.sent).toHaveLength(1);
    expect(seen.observed).toEqual([]);
  });

  it('is bounded in reads whatever the window', async () => {
    const { v, sent } = scripted([404], storeWith(7n), 600_000);
    await readBack(v, 7n);
    expect(sent).toHaveLength(MAX_READS);
  });
});

const failing = (r: ConformanceResult) =>
  r.rules
    .filter((rule) => rule.outcome === 'fail')
    .map((rule) => rule.id)
    .sort();
const codesOf = (r: ConformanceResult, rule: string) =>
  r.rules.find((x) => x.id === rule)!.checks.flatMap((c) => c.findings.map((f) => f.code));

describe('a run against stores that are not read-after-write', () => {
  it('read replicas 1.5 s behind (within the default window) fail GET-RESPONSE with --visibility-window 0, as they did before the window', async () => {
    const result = await withServer({ wrap: lagging(1_500) }, (url) =>
      runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 7, numRuns: 10, visibilityWindowMs: 0 }),
    );
    expect(failing(result)).toContain('GET-RESPONSE');
    expect(result.observations.map((o) => o.gap)).not.toContain('GAP-READ-AFTER-WRITE');
  });

  it('a split store fails GET-RESPONSE for an animal answered 404 after a 200 showed it, whatever the window (here 5 s)', async () => {
    const result = await withServer({ wrap: splitStore }, (url) =>
      runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 7, numRuns: 10, visibilityWindowMs: 5_000 }),
    );
    expect(failing(result)).toContain('GET-RESPONSE');
    expect(codesOf(result, 'GET-RESPONSE')).toContain('SEEN_THEN_MISSING');
  });
});

describe('--visibility-window', () => {
  it.concurrent.each([
    [['--visibility-window', '-1'], {}],
    [[], { PETSTORE_VISIBILITY_WINDOW: '601' }],
  ] as const)(
    'is seconds from 0 to 600, from the flag or PETSTORE_VISIBILITY_WINDOW; %j %j is refused in one line, exit 2',
    async (args, env) => {
      const ran = await runInProcess(['--base-url', 'http://127.0.0.1:9/v1', '--api-key', DISTINCTIVE_KEY, ...args], { env });
      expect(ran.code).toBe(2);
      expect(ran.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^petstore-conformance: error: --visibility-window must be a number of seconds from 0 to 600, got (-1|601) \(see --help\)$/,
        ),
      ]);
    },
  );
});
