/**
 * A report does not depend on how many requests were in flight: what a check
 * judges of each item of a `parallel` (store.seed's creations) is recorded in
 * item order (suites/schedule.ts `mapInItemOrder`), not in the order the
 * answers came back. Against a target that loses categoryId digits
 * (the contract's categoryId-through-double) and answers each creation after
 * a delay drawn from its body, the answers of a wide run come back in another
 * order than they were sent; the findings are those of a run one request at a
 * time.
 */
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import type { Handler } from '../../../reference/handler.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult } from '../../../result/model.js';
import { int64 } from '../../fixtures/mutants/int64.js';
import { DISTINCTIVE_KEY, withServer } from '../../helpers.js';

// Two runs of store.seed's rules alone, one of them one request at a time: a few seconds on a quiet two-core machine, ×8 for a shared one.
vi.setConfig({ testTimeout: 90_000 });

const throughDouble = int64.find((m) => m.name === 'categoryId-through-double')!;

/** Creations answered after 0–15 ms drawn from their body: answers overtake each other when several are in flight. */
const shuffled =
  (inner: Handler): Handler =>
  async (request) => {
    if (request.method === 'POST') await delay(createHash('sha256').update(request.body).digest()[0]! % 16);
    return inner(request);
  };

/** store.seed's findings, rule by rule, in report order: message and the request body each was about. */
const seedFindings = (r: ConformanceResult) =>
  r.rules.flatMap((rule) =>
    rule.checks
      .filter((c) => c.id === 'store.seed')
      .flatMap((c) => c.findings.map((f) => `${rule.id} ${f.message} ${f.evidence.map((e) => e.request.body ?? '').join(' | ')}`)),
  );

function run(concurrency: number | undefined): Promise<ConformanceResult> {
  return withServer({ wrap: (inner) => shuffled(throughDouble.wrap(inner)) }, (url) =>
    runConformance({
      baseUrl: url,
      apiKey: DISTINCTIVE_KEY,
      seed: 20_241_205,
      numRuns: 5,
      only: ['CREATE-RESPONSE', 'CREATE-ECHO', 'CREATE-ID-UNIQUE'],
      ...(concurrency === undefined ? {} : { concurrency }),
    }),
  );
}

describe('the report does not depend on the width', () => {
  it("store.seed's findings against categoryId-through-double, answers overtaking each other: those of one request at a time", async () => {
    const wide = await run(undefined);
    const narrow = await run(1);
    const findings = seedFindings(narrow);
    // The mutant loses digits of large categoryIds: store.seed fails several creations, and keeps the first.
    expect(findings.length).toBeGreaterThan(0);
    expect(seedFindings(wide)).toEqual(findings);
    expect(seedFindings(await run(7))).toEqual(findings);
  });
});
