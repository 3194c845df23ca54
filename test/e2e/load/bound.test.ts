/**
 * A latency the load generator could not measure honestly is never a breach
 * blamed on the target (result/generator.ts). The load phase runs in this
 * process, so the test makes its generator bound for real: while the profile
 * runs, a timer of this process stalls the event loop most of the time, as a
 * machine too busy to schedule the generator would. The target is the
 * reference in a process of its own (built, from dist/), so that it is not
 * held too. And the converse: a slow target with an idle generator still
 * fails its latency threshold.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Handler } from '../../../reference/handler.js';
import { renderSummary } from '../../../reports/console.js';
import { renderHtml } from '../../../reports/html.js';
import { renderJunit } from '../../../reports/junit.js';
import type { ConformanceResult, RunEvent } from '../../../result/model.js';
import { exitCode } from '../../../result/policy.js';
import { runConformance } from '../../../suites/engine.js';
import type { LoadProfile } from '../../../suites/load/profiles.js';
import { DISTINCTIVE_KEY, reportErrors, startListening, withServer } from '../../helpers.js';
import { starvedStep } from '../../starvation.js';

// Each run: the functional phases (a few seconds on a quiet two-core machine) and a profile of 2 s; ×7 for a shared runner.
vi.setConfig({ testTimeout: 60_000 });

/** How long the timer stalls the loop each time, ms: far above the fast target's latency, so the loop's delay is what is measured. */
const BUSY_MS = 80;
/** What the stalls wait on: nothing ever notifies it, so each waits its whole time. */
const STALL = new Int32Array(new SharedArrayBuffer(4));

/** Starts the built reference on loopback, port 0, and says where (test/helpers.ts `startListening`'s contract). */
const REFERENCE_PROCESS = `import { startReference } from ${JSON.stringify(new URL('../../../dist/reference/server.js', import.meta.url).href)};
const server = await startReference({ apiKey: process.env.PETSTORE_API_KEY });
console.log('LISTENING ' + server.url);`;

const tight = (thresholds: string[]): LoadProfile => ({
  name: 'tight',
  description: 'a test profile',
  kind: 'closed',
  connections: 2,
  durationSec: 2,
  maxRequests: 20_000,
  mix: { listPets: 6, getPet: 3, createPet: 1 },
  thresholds,
});

/**
 * Runs the suite with `profile` against the reference (wrapped by `wrap`);
 * with `busy`, from the load phase's start to its end a timer of this process
 * stalls the event loop for {@link BUSY_MS} of every {@link BUSY_MS} + 10 ms.
 */
async function run(
  profile: LoadProfile,
  options: { busy?: boolean; wrap?: (inner: Handler) => Handler; url?: string } = {},
): Promise<ConformanceResult> {
  let busy: NodeJS.Timeout | undefined;
  const onEvent = (event: RunEvent) => {
    if (event.type === 'load-start' && options.busy)
      busy = setInterval(() => {
        // Blocks this thread without spending CPU (the tests beside this one keep the cores): a stall of the loop, as
        // when the machine does not schedule the generator.
        Atomics.wait(STALL, 0, 0, BUSY_MS);
      }, 10);
    if (event.type === 'load-end') clearInterval(busy);
  };
  try {
    const suite = (url: string) =>
      runConformance({
        baseUrl: url,
        apiKey: DISTINCTIVE_KEY,
        seed: 5,
        numRuns: 5,
        load: profile.name,
        loadProfiles: { [profile.name]: profile },
        onEvent,
      });
    return await (options.url ? suite(options.url) : withServer(options.wrap ? { wrap: options.wrap } : {}, suite));
  } finally {
    clearInterval(busy);
  }
}

describe('a bound generator blames no latency on the target', () => {
  it('its event loop stalled most of the time: the latency threshold reads "not measured: the generator was bound", the error rate is still judged, the run does not fail on it', async () => {
    const target = await startListening(
      'the reference in a process of its own',
      process.execPath,
      ['--input-type=module', '-e', REFERENCE_PROCESS],
      { ...process.env, PETSTORE_API_KEY: DISTINCTIVE_KEY },
      30_000,
    );
    let result: ConformanceResult;
    try {
      result = await run(tight(['p50 < 1ms', 'errorRate < 1%']), { busy: true, url: target.url });
    } finally {
      target.child.kill();
    }
    const [load] = result.load;
    expect(load!.generatorLoad.bound).toBe(true);
    expect(load!.generatorLoad.boundBy).toContain('eventLoopDelay');
    expect(load!.generatorLoad.eventLoopDelayP99Ms).toBeGreaterThan(BUSY_MS / 2);
    // The median, not a tail: a tail of answers can wait through more than one of the loop's stalls, the median waits about one.
    const p50 = load!.thresholds.find((t) => t.metric === 'p50')!;
    expect(p50).toMatchObject({ id: 'LOAD-TIGHT-ALL-P50', outcome: 'inconclusive' });
    expect(p50.reason).toMatch(/^not measured: the generator was bound \(its event loop ran [\d.]+ ms late at p99/);
    expect(load!.thresholds.filter((t) => t.metric !== 'p50').map((t) => [t.id, t.outcome])).toEqual([
      ['LOAD-TIGHT-ALL-ERRORRATE', 'pass'],
      ['LOAD-TIGHT-ALL-ANSWERED', 'pass'],
    ]);
    expect(result.summary.verdict).toBe('conformant');
    expect(result.summary.thresholds).toBe('pass');
    expect(exitCode(result.summary)).toBe(0);
    expect(reportErrors(JSON.parse(JSON.stringify(result)))).toEqual([]);
    // Every load section says why: the threshold's reason, and which signal made the generator bound.
    const text = renderSummary(result, [], false);
    expect(text).toMatch(/\? LOAD-TIGHT-ALL-P50: p50 < 1ms, not measured: the generator was bound \(its event loop ran/);
    expect(text).toMatch(
      /generator: \d+% of a core, event-loop delay p99 [\d.]+ ms — generator-bound by (its CPU \(\d+% of a core\) and )?its event loop/,
    );
    const junit = renderJunit(result);
    expect(junit).toMatch(/<testcase name="LOAD-TIGHT-ALL-P50"[^>]*>\s*<skipped>[^<]*not measured: the generator was bound/);
    const html = renderHtml(result);
    expect(html).toContain('not measured: the generator was bound (its event loop ran');
    expect(html).toMatch(/<strong>generator-bound by (its CPU \(\d+% of a core\) and )?its event loop/);
  });

  it('a slow target with an idle generator still fails the latency threshold: the breach is the target’s', async () => {
    const slow =
      (inner: Handler): Handler =>
      async (request) => {
        if (request.method === 'GET' && request.path === '/pets') await new Promise((resolve) => setTimeout(resolve, 100));
        return inner(request);
      };
    // The generator idles while the target sleeps; only a machine that starves this process past the sleep could make it bound.
    const result = await starvedStep(50, async () => {
      const result = await run(tight(['listPets.p50 < 10ms', 'errorRate < 1%']), { wrap: slow });
      const [load] = result.load;
      expect(load!.generatorLoad).toMatchObject({ bound: false, boundBy: [] });
      expect(load!.thresholds.map((t) => [t.id, t.outcome])).toEqual([
        ['LOAD-TIGHT-LISTPETS-P50', 'fail'],
        ['LOAD-TIGHT-ALL-ERRORRATE', 'pass'],
        ['LOAD-TIGHT-ALL-ANSWERED', 'pass'],
      ]);
      return result;
    });
    const [load] = result.load;
    expect(load!.thresholds[0]!.measured).toBeGreaterThanOrEqual(100);
    expect(load!.thresholds[0]!.reason).toBeUndefined();
    expect(result.summary.thresholds).toBe('fail');
    expect(exitCode(result.summary)).toBe(3);
    expect(renderSummary(result, [], false)).toMatch(/✗ LOAD-TIGHT-LISTPETS-P50: listPets\.p50 < 10ms, measured \d+(\.\d+)? ms\n/);
  });
});
