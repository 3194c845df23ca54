/**
 * The in-flight limit widens with a long round trip only when none was given:
 * the CLI against the reference behind this project's delay proxy
 * (scripts/delay-proxy.js) 60 ms away. What report.json records and the most
 * requests the proxy saw in flight are asserted, never a time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DISTINCTIVE_KEY, reportErrors, runInProcess, tempDir, withServer } from '../../helpers.js';

// A functional run of about 20 waves of 60 ms and 770 exchanges: a few seconds on a quiet two-core machine, ×8 for a shared one.
vi.setConfig({ testTimeout: 120_000 });

interface Proxy {
  url: string;
  stats(): { requests: number; waves: number; maxInFlight: number };
  close(): Promise<void>;
}
// A plain script, not a typed module: imported by a URL TypeScript does not resolve.
const script = new URL('../../../scripts/delay-proxy.js', import.meta.url).href;
const { startDelayProxy } = (await import(script)) as { startDelayProxy(o: { target: string; rttMs: number }): Promise<Proxy> };

/** One CLI run 60 ms away with `args` and `env`: its report's `options.concurrency` and the most the proxy saw in flight. */
async function runAway(args: string[], env: Record<string, string> = {}) {
  return withServer({}, async (target) => {
    const proxy = await startDelayProxy({ target, rttMs: 60 });
    const dir = tempDir();
    try {
      const ran = await runInProcess(['--base-url', proxy.url, '--report-dir', dir, '--reporter', 'json', '-q', ...args], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, ...env },
        timeoutMs: 110_000,
      });
      expect(ran.stderr).toBe('');
      const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
        options: { concurrency?: { limit: number; source: string; rttMs?: number } };
        summary: { verdict: string };
      };
      expect(reportErrors(report)).toEqual([]);
      expect(report.summary.verdict).toBe('conformant');
      return { concurrency: report.options.concurrency, maxInFlight: proxy.stats().maxInFlight };
    } finally {
      await proxy.close();
    }
  });
}

describe('the in-flight limit 60 ms away', () => {
  it('asked to widen (--widen-concurrency), it widens past 32 once the preflight measured the round trip, and more are in flight', async () => {
    const { concurrency, maxInFlight } = await runAway(['--widen-concurrency']);
    expect(concurrency?.source).toBe('widened');
    expect(concurrency!.limit).toBeGreaterThan(32);
    expect(concurrency!.limit).toBeLessThanOrEqual(128);
    // The proxy adds 60 ms to each exchange: the preflight's time cannot fall under it.
    expect(concurrency!.rttMs).toBeGreaterThanOrEqual(30);
    expect(maxInFlight).toBeGreaterThan(32);
    expect(maxInFlight).toBeLessThanOrEqual(concurrency!.limit);
  });

  it('not asked to widen, the default 32 stays the limit however far the target', async () => {
    const { concurrency, maxInFlight } = await runAway([]);
    expect(concurrency).toEqual({ limit: 32, source: 'default' });
    expect(maxInFlight).toBeLessThanOrEqual(32);
  });

  it.each([
    ['--concurrency 32', ['--concurrency', '32', '--widen-concurrency'], {}],
    ['PETSTORE_CONCURRENCY=32', [], { PETSTORE_CONCURRENCY: '32', PETSTORE_WIDEN_CONCURRENCY: 'true' }],
  ])('given (%s), 32 is a hard limit, even asked to widen', async (_label, args, env) => {
    const { concurrency, maxInFlight } = await runAway(args, env);
    expect(concurrency).toEqual({ limit: 32, source: 'given' });
    expect(maxInFlight).toBeLessThanOrEqual(32);
  });
});
