import { describe, expect, it } from 'vitest';
import { stringifyJson } from '../../../core/json.js';
import { swapCase } from '../../../core/redact.js';
import type { Handler } from '../../../reference/handler.js';
import { startReference } from '../../../reference/server.js';
import { runConformance } from '../../../suites/engine.js';
import { rerunCommand } from '../../../reports/commands.js';
import { DISTINCTIVE_KEY, reportErrors, withServer } from '../../helpers.js';
import { notAsked } from '../../../result/policy.js';

const run = (baseUrl: string, seed = 11) => runConformance({ baseUrl, apiKey: DISTINCTIVE_KEY, seed, numRuns: 15 });

describe('runConformance against the reference', () => {
  it('passes every rule, MUST and SHOULD, and writes a report valid against its schema', async () => {
    const result = await withServer({}, (url) => run(url));
    expect(result.summary.verdict).toBe('conformant');
    expect(result.rules.filter((r) => r.outcome !== 'pass' && !notAsked(r)).map((r) => `${r.id}: ${r.outcome}`)).toEqual([]);
    expect(reportErrors(JSON.parse(JSON.stringify(result)))).toEqual([]);
    expect(result.observations.length).toBeGreaterThan(0);
    expect(result.skippedPhases).toEqual([{ phase: 'load', why: { code: 'load-none' }, reason: 'load profile "none"' }]);
  });

  it('waits out 429 answers (rate limits are not shown) instead of failing the target, and records it', async () => {
    let n = 0;
    // Every 7th request is refused once with 429, as a rate limiter would.
    const limited =
      (inner: Handler): Handler =>
      (request) =>
        ++n % 7 === 0
          ? {
              status: 429,
              headers: { 'content-type': 'application/json', 'retry-after': '0' },
              body: { code: 'rate_limited', message: 'slow down', status: 429 },
            }
          : inner(request);
    const result = await withServer({ wrap: limited }, (url) => run(url));
    expect(result.rules.filter((r) => r.outcome !== 'pass' && !notAsked(r)).map((r) => r.id)).toEqual([]);
    expect(result.observations.find((o) => o.gap === 'GAP-RATE-LIMITS')?.summary).toMatch(
      /429 answered; every request paused 0 ms \(Retry-After honoured\), then sent again/,
    );
  });

  it("a property's time limit stops its cases: past it, no case starts (with widening allowed, the run's widest is 128)", async () => {
    const runWith = (propertyTimeLimitMs?: number) =>
      withServer({}, (url) =>
        runConformance({
          baseUrl: url,
          apiKey: DISTINCTIVE_KEY,
          seed: 11,
          numRuns: 40,
          ...(propertyTimeLimitMs ? { propertyTimeLimitMs } : {}),
        }),
      );
    const full = await runWith();
    const short = await runWith(1);
    // The first cases of each property start at once, within the limit; those that waited for a turn do not.
    expect(short.summary.requests).toBeLessThan(full.summary.requests);
  });

  it('names every animal it creates with the run prefix', async () => {
    const server = await startReference({ apiKey: DISTINCTIVE_KEY });
    try {
      const result = await run(server.url);
      expect(result.namePrefix).toMatch(/^pctest-[0-9a-f]{4} $/);
      const names = [...server.store.values()].map((pet) => pet.name);
      expect(names.length).toBeGreaterThan(100);
      expect(names.filter((name) => !name.startsWith(result.namePrefix!))).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('honours only: other rules are skipped, with the reason', async () => {
    const result = await withServer({}, (url) =>
      runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 1, numRuns: 5, only: ['LIST-LIMIT-DEFAULT'] }),
    );
    const byId = Object.fromEntries(result.rules.map((r) => [r.id, r]));
    expect(byId['LIST-LIMIT-DEFAULT']!.outcome).toBe('pass');
    expect(byId['CREATE-ECHO']!.outcome).toBe('skip');
    expect(byId['CREATE-ECHO']!.checks[0]).toMatchObject({ why: { code: 'not-selected' }, reason: 'not among the rules selected to run' });
  });

  it('never writes the key, even when the target echoes every header and body back', async () => {
    const echo =
      (inner: Handler): Handler =>
      async (request) => {
        const answer = await inner(request);
        const echoed = JSON.stringify({ headers: request.headers, body: Buffer.from(request.body).toString('utf8') });
        // Break the Error shape on purpose so failures (with evidence) are recorded.
        return {
          ...answer,
          headers: {
            ...answer.headers,
            'x-echo': Buffer.from(echoed)
              .toString('latin1')
              .replace(/[^\x20-\x7e]/g, '?'),
          },
          body: answer.status >= 400 ? { echoed } : answer.body,
        };
      };
    const result = await withServer({ wrap: echo }, (url) => run(url));
    expect(result.summary.verdict).toBe('non-conformant');
    const text = stringifyJson(result);
    expect(text).toContain('<API_KEY>');
    for (const secret of [
      DISTINCTIVE_KEY,
      DISTINCTIVE_KEY.slice(0, -1),
      swapCase(DISTINCTIVE_KEY),
      Buffer.from(`conformance:${DISTINCTIVE_KEY}`).toString('base64'),
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('reports a property failure with its shrunk counterexample, seed and a re-run command', async () => {
    // categoryId through a double: wrong beyond 2^53.
    const lossy =
      (inner: Handler): Handler =>
      async (request) => {
        const answer = await inner(request);
        if (request.method === 'POST' && answer.status === 201) {
          const body = answer.body as { categoryId: bigint };
          return { ...answer, body: { ...body, categoryId: BigInt(Number(body.categoryId)) } };
        }
        return answer;
      };
    const result = await withServer({ wrap: lossy }, (url) => run(url, 99));
    const echo = result.rules.find((r) => r.id === 'CREATE-ECHO')!;
    expect(echo.outcome).toBe('fail');
    const finding = echo.checks.find((c) => c.id === 'createPet.valid-property')!.findings[0]!;
    expect(finding.counterexample?.input).toMatch(/categoryId/);
    expect(finding.message).toMatch(/^Expected .* \/ Received .*categoryId/);
    expect(finding.rerun.only).toContain('CREATE-ECHO');
    expect(rerunCommand(result, finding.rerun)).toMatch(/ --seed 99 .* --only CREATE-ECHO/);
    expect(finding.evidence[0]!.curl).toMatch(/^curl .*-X POST/);
  });
});

describe('sleeping requests and the run signal', () => {
  it('a run with jitter and a signal wakes its sleepers without a listener each (no MaxListenersExceededWarning), and an abort still wakes them', async () => {
    const warnings: string[] = [];
    const warned = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', warned);
    try {
      const controller = new AbortController();
      const result = await withServer({}, (baseUrl) =>
        runConformance({ baseUrl, apiKey: DISTINCTIVE_KEY, seed: 5, numRuns: 3, jitterMs: 20, signal: controller.signal }),
      );
      expect(result.summary.verdict).toBe('conformant');
      // Sleepers woken by an abort: a run interrupted while its requests sleep 10 s each ends, interrupted.
      const stopping = new AbortController();
      const interrupted = await withServer({}, (baseUrl) => {
        const running = runConformance({
          baseUrl,
          apiKey: DISTINCTIVE_KEY,
          seed: 5,
          numRuns: 3,
          jitterMs: 10_000,
          signal: stopping.signal,
        });
        setTimeout(() => stopping.abort('SIGTERM'), 200);
        return running;
      });
      expect(interrupted.summary.verdict).toBe('interrupted');
    } finally {
      await new Promise((resolve) => setImmediate(resolve));
      process.off('warning', warned);
    }
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  }, 120_000);
});
