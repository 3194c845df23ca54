import { describe, expect, it } from 'vitest';
import type { Handler } from '../reference/handler.js';
import { runConformance } from '../suites/engine.js';
import type { ConformanceResult } from '../suites/model.js';
import { DISTINCTIVE_KEY, withServer } from './helpers.js';

const outcomes = (r: ConformanceResult) => r.rules.map((rule) => `${rule.id}=${rule.outcome}`);
/** Each check's tally per rule, in report order: what the report says, without the ids the target chose. */
const tallies = (r: ConformanceResult) => r.rules.flatMap((rule) => rule.checks.map((c) => `${rule.id} ${c.id} ${c.outcome} ${c.passed}/${c.failed}/${c.inconclusive}`));

/** Names lose their last code unit when longer than 20 code units: caught only by some generated names. */
const truncating = (inner: Handler): Handler => async (request) => {
  const answer = await inner(request);
  if (request.method === 'POST' && answer.status === 201) {
    const body = answer.body as { name: string };
    if (body.name.length > 20) return { ...answer, body: { ...body, name: body.name.slice(0, -1) } };
  }
  return answer;
};

describe('determinism', () => {
  it.each([
    ['the reference', undefined],
    ['a mutant that breaks only on some generated data', truncating],
  ])('the same seed gives the same rule outcomes, three runs in a row, against %s', async (_label, wrap) => {
    const runs: string[][] = [];
    for (let i = 0; i < 3; i++) {
      runs.push(outcomes(await withServer(wrap ? { wrap } : {}, (url) => runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 2024, numRuns: 20 }))));
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
    if (wrap) expect(runs[0]).toContain('CREATE-ECHO=fail');
  });

  it.each([
    ['the reference', undefined],
    ['a mutant that breaks only on some generated data', truncating],
  ])('one request at a time (--concurrency 1) gives the outcomes and tallies of the default concurrency, against %s', async (_label, wrap) => {
    const run = (concurrency?: number) => withServer(wrap ? { wrap } : {}, (url) => runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 2024, numRuns: 20, ...(concurrency ? { concurrency } : {}) }));
    const [byDefault, oneAtATime] = [await run(), await run(1)];
    expect(outcomes(oneAtATime)).toEqual(outcomes(byDefault));
    expect(tallies(oneAtATime)).toEqual(tallies(byDefault));
    expect(oneAtATime.summary.requests).toBe(byDefault.summary.requests);
  });
});

describe('intermittent failures', () => {
  it('a property failure that does not reproduce on replay stays a failure, labelled intermittent, with both exchanges', async () => {
    let creates = 0;
    // One creation, during the property check (after the 101 of the set-up), loses the name's last character.
    const sometimes = (inner: Handler): Handler => async (request) => {
      const answer = await inner(request);
      if (request.method === 'POST' && answer.status === 201 && ++creates === 105) {
        const body = answer.body as { name: string };
        return { ...answer, body: { ...body, name: body.name.slice(0, -1) } };
      }
      return answer;
    };
    const result = await withServer({ wrap: sometimes }, (url) => runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 7, numRuns: 30, only: ['CREATE-ECHO'] }));
    const check = result.rules.find((r) => r.id === 'CREATE-ECHO')!.checks.find((c) => c.id === 'createPet.valid-property')!;
    const intermittent = check.findings.find((f) => f.message.startsWith('Intermittent: '));
    expect(intermittent, JSON.stringify(check.findings.map((f) => f.message))).toBeDefined();
    expect(intermittent!.outcome).toBe('fail');
    expect(intermittent!.message).toMatch(/the same input passed when replayed, but the failing answer was observed/);
    expect(intermittent!.evidence.length).toBeGreaterThanOrEqual(2);
    expect(intermittent!.counterexample).toBeDefined();
    expect(result.summary.verdict).toBe('non-conformant');
  });
});
