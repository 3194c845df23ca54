import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Handler } from '../reference/handler.js';
import { runConformance } from '../suites/engine.js';
import { DISTINCTIVE_KEY, runCli, withServer } from './helpers.js';

/** A loopback server that accepts connections and never answers. */
async function silentServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(() => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('hostile targets', () => {
  it('a server that never answers: exit 2, one line, within the timeout', async () => {
    const server = await silentServer();
    try {
      const ran = await runCli(['--base-url', server.url, '--api-key', 'k', '--timeout', '1000']);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toMatch(/petstore-conformance: error: no complete response from 127\.0\.0\.1:\d+ within 1000 ms/);
      expect(ran.ms).toBeLessThan(10_000);
    } finally {
      await server.close();
    }
  });

  it('a server that answers for a while, then stops: what was measured is kept, the rest is not run', async () => {
    let served = 0;
    const tiring = (inner: Handler): Handler => (request) => (++served > 150 ? new Promise(() => {}) : inner(request));
    const started = Date.now();
    const result = await withServer({ wrap: tiring }, (url) => runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 3, numRuns: 10, timeoutMs: 500 }));
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.summary.reason).toMatch(/stopped answering/);
    const byId = Object.fromEntries(result.rules.map((r) => [r.id, r]));
    expect(byId['CREATE-RESPONSE']!.checks.find((c) => c.id === 'store.seed')!.passed).toBeGreaterThan(90);
    const auth = byId['AUTH-REQUIRED']!;
    expect(auth.outcome).toBe('skip');
    expect(auth.checks[0]!.reason).toMatch(/not run: the target stopped answering/);
    expect(result.skippedPhases.map((p) => p.phase)).toContain('auth');
  });
});
