/**
 * What a run waits for, by dependency (issue 23): the preflight's page is the setup's first look at the store, the
 * setup's animals go out with learnCategory's first create, and checks that read nothing a phase makes do not wait
 * for it. Each is shown by the order requests reach the reference (a wrapper records it), never by a time.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ApiRequest, Handler } from '../../../reference/handler.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult } from '../../../result/model.js';
import { DISTINCTIVE_KEY, withServer } from '../../helpers.js';

// A whole functional run against the in-process reference: a few seconds on a quiet two-core machine, ×8 for a shared one.
vi.setConfig({ testTimeout: 90_000 });

const line = (r: ApiRequest) => `${r.method} ${r.path}${r.query.size > 0 ? `?${r.query.toString()}` : ''}`;
const withKey = (r: ApiRequest) => r.headers.authorization === `Bearer ${DISTINCTIVE_KEY}`;

/** A run with seed 42 against the reference wrapped by `wrap`, recording every request with the key as it arrives. */
async function recorded(wrap: (inner: Handler) => Handler = (inner) => inner, options: Parameters<typeof withServer>[0] = {}) {
  const arrived: string[] = [];
  const result = await withServer(
    { ...options, wrap: (inner) => wrap(async (r) => (withKey(r) && arrived.push(line(r)), inner(r))) },
    (url) => runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 42, numRuns: 20 }),
  );
  return { arrived, result };
}

const outcome = (r: ConformanceResult, rule: string) => r.rules.find((x) => x.id === rule)?.outcome;

describe('the start of a run', () => {
  it("the preflight's GET /pets?limit=100 is the setup's look at the store: one listing before the first create", async () => {
    const { arrived, result } = await recorded();
    expect(result.summary.verdict).toBe('conformant');
    expect(
      arrived.slice(
        0,
        arrived.findIndex((r) => r.startsWith('POST ')),
      ),
    ).toEqual(['GET /pets?limit=100']);
  });

  it("the setup's creates go out before learnCategory's answer, and one refused for its category is judged once a category is learnt", async () => {
    // Only categories 1..100 exist: the setup's drawn categoryIds are refused with 400 and sent again with the learnt one.
    // learnCategory's first create (categoryId 1, the first candidate of an empty store) is held until creates of other
    // categories were answered 400, so their refusals arrive before any category is learnt; a bound releases it anyway.
    const REFUSED_FIRST = 8;
    const BOUND_MS = 5_000;
    let release: ((by: string) => void) | undefined;
    let releasedBy: string | undefined;
    let refused = 0;
    const holdLearning =
      (inner: Handler): Handler =>
      async (r) => {
        const body = r.method === 'POST' && withKey(r) ? Buffer.from(r.body).toString('utf8') : '';
        if (/"categoryId":1[,}]/.test(body) && releasedBy === undefined && !release) {
          const by = await new Promise<string>((resolve) => {
            release = resolve;
            setTimeout(() => resolve('the bound'), BOUND_MS).unref();
          });
          releasedBy ??= by;
          return inner(r);
        }
        const answer = await inner(r);
        if (release && answer.status === 400 && body !== '' && ++refused === REFUSED_FIRST) release('refusals');
        return answer;
      };
    const { result } = await recorded(holdLearning, { categories: { min: 1n, max: 100n } });
    expect(releasedBy).toBe('refusals');
    expect(outcome(result, 'CREATE-RESPONSE')).toBe('pass');
    expect(result.summary.verdict).toBe('conformant');
    const seeded = result.rules.flatMap((r) => r.checks).filter((c) => c.id === 'store.seed');
    expect(seeded.every((c) => c.failed === 0)).toBe(true);
  });

  it("a store that knows none of learnCategory's categories: CREATE-RESPONSE fails as before, the animals sent with it are not judged, and what was sent does not depend on the width", async () => {
    const runAt = async (concurrency: number) => {
      const arrived: string[] = [];
      const record =
        (inner: Handler): Handler =>
        (r) => (withKey(r) && arrived.push(line(r)), inner(r));
      const result = await withServer({ categories: { min: 1000n, max: 1000n }, wrap: record }, (url) =>
        runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 42, numRuns: 20, concurrency }),
      );
      return { arrived, result };
    };
    const [narrow, wide] = [await runAt(4), await runAt(32)];
    for (const { result } of [narrow, wide]) {
      const seed = result.rules.find((r) => r.id === 'CREATE-RESPONSE')!.checks.find((c) => c.id === 'store.seed')!;
      expect(seed.outcome).toBe('fail');
      expect(seed.findings.map((f) => f.code)).toEqual(['NO_CATEGORY_ACCEPTED']);
    }
    // Which answer came first decides nothing: as many requests, and the same creates, 4 or 32 in flight.
    expect(wide.result.summary.requests).toBe(narrow.result.summary.requests);
    const creates = (a: string[]) => a.filter((r) => r === 'POST /pets').length;
    expect(creates(wide.arrived)).toBe(creates(narrow.arrived));
  });

  it('checks that read nothing a phase makes start before it ends: GET /store/orders during the setup, unknown and malformed ids beside createPet', async () => {
    const { arrived } = await recorded();
    // The preflight's page is the only listing before listPets starts, which waits for the setup's end.
    const listPetsStarts = arrived.findIndex((r, i) => i > 0 && r.startsWith('GET /pets?'));
    expect(arrived.indexOf('GET /store/orders')).toBeLessThan(listPetsStarts);
    // createPet sends creates to its end: the getPet checks that wait only for listPets go out before its last create.
    const lastCreate = arrived.findLastIndex((r) => r === 'POST /pets');
    expect(arrived.indexOf('GET /pets/9223372036854775807')).toBeLessThan(lastCreate);
    expect(arrived.indexOf('GET /pets/abc')).toBeLessThan(lastCreate);
  });
});
