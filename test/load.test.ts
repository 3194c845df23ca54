import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Handler } from '../reference/handler.js';
import { runConformance } from '../suites/engine.js';
import type { LoadProfile } from '../suites/load/profiles.js';
import type { ConformanceResult } from '../suites/model.js';
import { DISTINCTIVE_KEY, reportErrors, runCli, tempDir, withServer } from './helpers.js';

const MIX = { listPets: 6, getPet: 3, createPet: 1 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function profile(overrides: Partial<LoadProfile> & Pick<LoadProfile, 'kind'>): LoadProfile {
  return { name: 'test', description: 'a test profile', connections: 4, durationSec: 2, maxRequests: 100_000, mix: MIX, thresholds: [], ...overrides } as LoadProfile;
}

async function load(wrap: ((inner: Handler) => Handler) | undefined, p: LoadProfile, timeoutMs = 5000): Promise<ConformanceResult> {
  return withServer(wrap ? { wrap } : {}, (url) => runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 12, numRuns: 5, timeoutMs, load: p.name, loadProfiles: { [p.name]: p } }));
}

describe('load profiles', () => {
  it('smoke against the reference: figures per operation, thresholds as results, conformance held, report valid', async () => {
    const result = await withServer({}, (url) => runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 3, numRuns: 5, load: 'smoke' }));
    expect(result.summary.verdict).toBe('conformant');
    expect(result.summary.thresholds).toBe('pass');
    const [smoke] = result.load;
    expect(smoke!.profile).toBe('smoke');
    expect(smoke!.overall.requests).toBeGreaterThan(100);
    for (const op of ['listPets', 'getPet', 'createPet'] as const) expect(smoke!.operations[op].requests).toBeGreaterThan(0);
    expect(smoke!.overall.latencyMs.p50).toBeGreaterThan(0);
    expect(smoke!.overall.latencyMs.p50).toBeLessThan(smoke!.overall.latencyMs.max + 0.001);
    expect(smoke!.thresholds.map((t) => [t.id, t.outcome])).toEqual([
      ['LOAD-SMOKE-ALL-ERRORRATE', 'pass'],
      ['LOAD-SMOKE-ALL-P99', 'pass'],
      ['LOAD-SMOKE-ALL-ANSWERED', 'pass'],
    ]);
    expect(smoke!.generator).toBe('undici');
    expect(smoke!.answered!.due).toBe(smoke!.overall.requests + smoke!.overall.errors.timeouts + smoke!.overall.errors.socketErrors);
    expect(smoke!.answered!.answered).toBe(smoke!.overall.requests);
    expect(smoke!.conformance.sampled).toBeGreaterThan(50);
    expect(smoke!.conformance.failedRules).toEqual([]);
    expect(smoke!.timeline.length).toBeGreaterThanOrEqual(2);
    expect(result.rules.filter((r) => r.outcome !== 'pass').map((r) => r.id)).toEqual([]);
    expect(reportErrors(JSON.parse(JSON.stringify(result)))).toEqual([]);
  });

  it('a threshold breach against a slow variant fails the run with exit 3 and the measured value beside the limit', async () => {
    const slow = (inner: Handler): Handler => async (request) => {
      if (request.method === 'GET' && request.path === '/pets') await sleep(25);
      return inner(request);
    };
    await withServer({ wrap: slow }, async (url) => {
      const dir = tempDir();
      writeFileSync(join(dir, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { tight: { kind: 'closed', connections: 4, durationSec: 2, maxRequests: 50_000, mix: MIX, thresholds: ['listPets.p50 < 10ms', 'errorRate < 1%'] } } }));
      const ran = await runCli(['--base-url', url, '--load', 'tight', '--num-runs', '5', '--report-dir', join(dir, 'r')], { cwd: dir, env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } });
      expect(ran.code).toBe(3);
      expect(ran.stdout).toMatch(/✗ LOAD-TIGHT-LISTPETS-P50: listPets\.p50 < 10ms, measured (2\d|[3-9]\d)\.\d+ms/);
      expect(ran.stdout).toMatch(/✓ LOAD-TIGHT-ALL-ERRORRATE/);
      expect(ran.stdout).toMatch(/CONFORMANT: .*load threshold\(s\) breached: listPets\.p50 < 10ms/);
      const report = JSON.parse(readFileSync(join(dir, 'r', 'report.json'), 'utf8')) as ConformanceResult;
      expect(report.summary.thresholds).toBe('fail');
      const junit = readFileSync(join(dir, 'r', 'junit.xml'), 'utf8');
      expect(junit).toMatch(/testcase [^>]*name="LOAD-TIGHT-LISTPETS-P50[^"]*"/);
    });
  });

  it('fixed rate: a target that stalls for one second shows the stall in p99 (latency from when each request was due)', async () => {
    let stallUntil = 0;
    let stalls = 0;
    const stalling = (inner: Handler): Handler => async (request) => {
      const wait = stallUntil - Date.now();
      if (wait > 0) {
        stalls++;
        await sleep(wait);
      }
      return inner(request);
    };
    const p = profile({ name: 'steady', kind: 'rate', rate: 100, connections: 200, durationSec: 4, thresholds: ['p99 < 500ms'] });
    const result = await withServer({ wrap: stalling }, (url) =>
      runConformance({
        baseUrl: url,
        apiKey: DISTINCTIVE_KEY,
        seed: 12,
        numRuns: 5,
        load: 'steady',
        loadProfiles: { steady: p },
        onEvent: (event) => {
          if (event.type === 'load-tick' && event.elapsedSec === 1 && stallUntil === 0) stallUntil = Date.now() + 1000;
        },
      }),
    );
    const [run] = result.load;
    expect(stalls).toBeGreaterThan(20);
    expect(run!.generator).toBe('undici');
    expect(run!.overall.latencyMs.p99).toBeGreaterThan(700);
    expect(run!.overall.latencyMs.max).toBeGreaterThan(800);
    expect(run!.thresholds[0]!.outcome).toBe('fail');
    expect(run!.schedule!.due).toBe(400);
    expect(run!.schedule!.sent + run!.schedule!.dropped).toBe(400);
  });

  it('a rule broken only under concurrency is caught by the conformance-under-load check, with evidence', async () => {
    let inFlight = 0;
    // More than 10 requests at once (never at rest, where the suite keeps 8 in flight): the status filter is ignored.
    const racy = (inner: Handler): Handler => async (request) => {
      inFlight++;
      try {
        await sleep(1);
        if (inFlight > 10 && request.query.has('status')) {
          const query = new URLSearchParams(request.query);
          query.delete('status');
          return await inner({ ...request, query });
        }
        return await inner(request);
      } finally {
        inFlight--;
      }
    };
    const result = await load(racy, profile({ name: 'busy', kind: 'closed', connections: 24, durationSec: 2 }));
    const filter = result.rules.find((r) => r.id === 'LIST-STATUS-FILTER')!;
    expect(filter.outcome).toBe('fail');
    const atRest = filter.checks.filter((c) => !c.id.startsWith('load.'));
    expect(atRest.every((c) => c.outcome === 'pass')).toBe(true);
    const underLoad = filter.checks.find((c) => c.id === 'load.busy.conformance')!;
    expect(underLoad.outcome).toBe('fail');
    expect(underLoad.findings[0]!.message).toMatch(/^Under load \(busy\): Expected only animals with status/);
    expect(underLoad.findings[0]!.evidence[0]!.response!.status).toBe(200);
    expect(result.load[0]!.conformance.failedRules).toContain('LIST-STATUS-FILTER');
  });

  it('refuses to start load against a target that does not authenticate', async () => {
    const open = (inner: Handler): Handler => (request) => inner({ ...request, headers: { ...request.headers, authorization: `Bearer ${DISTINCTIVE_KEY}` } });
    const result = await load(open, profile({ name: 'any', kind: 'closed' }));
    expect(result.load).toEqual([]);
    expect(result.skippedPhases).toContainEqual({ phase: 'load', reason: expect.stringMatching(/load not started: the target does not authenticate .*AUTH-REQUIRED/) });
  });

  it('stress: rising concurrency stops at the stage where a threshold breaks, and says where', async () => {
    let inFlight = 0;
    const crowded = (inner: Handler): Handler => async (request) => {
      inFlight++;
      try {
        await sleep(inFlight * 3);
        return await inner(request);
      } finally {
        inFlight--;
      }
    };
    const result = await load(crowded, profile({ name: 'ramp', kind: 'ramp', stages: [1, 2, 4, 8, 16, 32], stageSec: 1, thresholds: ['p50 < 20ms'] } as Partial<LoadProfile> & { kind: 'ramp' }));
    const [run] = result.load;
    expect(run!.brokeAt).toBeDefined();
    expect(run!.brokeAt!.connections).toBeGreaterThan(1);
    expect(run!.brokeAt!.connections).toBeLessThan(32);
    expect(run!.stoppedEarly).toMatch(/a threshold broke at \d+ connections/);
    expect(run!.thresholds[0]!.outcome).toBe('pass');
    expect(run!.thresholds[0]!.reason).toMatch(/the last stage that held/);
  });

  it('stops by itself within its bound when the target stops answering mid-profile', async () => {
    let served = 0;
    let silent = false;
    const tiring = (inner: Handler): Handler => (request) => {
      if (silent || ++served > 2000) {
        silent = true;
        return new Promise(() => {});
      }
      return inner(request);
    };
    const started = Date.now();
    const result = await load(tiring, profile({ name: 'tired', kind: 'closed', connections: 4, durationSec: 3, thresholds: ['errorRate < 0.1%'] }), 500);
    expect(Date.now() - started).toBeLessThan(15_000);
    const [run] = result.load;
    expect(run!.overall.errors.timeouts).toBeGreaterThan(0);
    expect(run!.thresholds[0]!.outcome).toBe('fail');
  });
});
