/**
 * --wait-for: a target still starting (a CI job starts its server in the background and the suite at once) is waited
 * for until it gives any HTTP answer; one that never listens ends the run with one line and exit 2.
 */
import { createServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startReference } from '../../../reference/server.js';
import { DISTINCTIVE_KEY, runInProcess, tempDir } from '../../helpers.js';

/** A loopback port nothing listens on (taken, then let go). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const run = (port: number, extra: string[], env: Record<string, string> = {}) =>
  runInProcess(['--base-url', `http://127.0.0.1:${port}/v1`, '--load', 'none', '--num-runs', '3', '--report-dir', tempDir(), ...extra], {
    env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, ...env },
  });

describe('--wait-for', () => {
  it('waits for a server that starts after the suite, then runs it whole', async () => {
    const port = await freePort();
    const ran = run(port, ['--wait-for', '60']);
    // The server starts while the suite is already asking (refused, asked again with backoff).
    await sleep(700);
    const server = await startReference({ apiKey: DISTINCTIVE_KEY, port });
    try {
      const done = await ran;
      expect(done.stderr).not.toMatch(/error/);
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toMatch(/^CONFORMANT: /m);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('past the wait, one line naming the wait, exit 2; without it, the refused connection alone', async () => {
    const port = await freePort();
    const [waited, plain] = await Promise.all([run(port, [], { PETSTORE_WAIT_FOR: '1' }), run(port, [])]);
    expect(waited.code).toBe(2);
    const errors = waited.stderr.split('\n').filter((line) => line.includes('error'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^petstore-conformance: error: no HTTP answer within the 1 s waited for the target: connection refused/);
    expect(plain.code).toBe(2);
    expect(plain.stderr).not.toMatch(/waited/);
    for (const r of [waited, plain]) expect(r.stdout + r.stderr).not.toContain(DISTINCTIVE_KEY);
  }, 60_000);

  // The test's bound is a hang's: the request deadline given is four times it, the wait a thirtieth of it.
  it('a target that takes connections and never answers: the wait ends with its time, not with the request deadline', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as { port: number };
      const waited = await run(port, ['--wait-for', '1', '--timeout', '120000']);
      expect(waited.code).toBe(2);
      expect(waited.stderr).toMatch(/error: no HTTP answer within the 1 s waited for the target/);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 30_000);

  it('a wait that is not a number of seconds from 0 to 3600 is a usage error', async () => {
    const ran = await run(await freePort(), ['--wait-for', '-1']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/--wait-for must be a number of seconds from 0 to 3600, got -1/);
  });
});
