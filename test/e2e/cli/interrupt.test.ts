/**
 * SIGINT and SIGTERM: the run stops sending, the reports are written for what
 * ran (verdict `interrupted`, the rest "not run"), the embedded reference is
 * stopped, the exit code is 130 or 143, promptly; a second signal exits at once.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unpackBundle } from '../../../certification/bundle.js';
import { renderVerification } from '../../../certification/format.js';
import { verifyBundle } from '../../../certification/verify.js';
import { watchInterrupts } from '../../../cli/interrupt.js';
import type { Handler } from '../../../reference/handler.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult } from '../../../result/model.js';
import { exitCode } from '../../../result/policy.js';
import { BIN, DISTINCTIVE_KEY, reportErrors, tempDir, withServer } from '../../helpers.js';

/** Every answer 40 ms late: a run long enough to interrupt. */
const slow =
  (inner: Handler): Handler =>
  async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    return inner(request);
  };

interface Spawned {
  pid: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal that ended it). */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnCli(args: string[], env: Record<string, string> = {}): Spawned {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return {
    pid: child.pid!,
    stdout: () => stdout,
    stderr: () => stderr,
    ended: new Promise((resolve) => {
      child.on('close', (code, signal) => {
        clearTimeout(killer);
        resolve({ code, signal });
      });
    }),
  };
}

/** Waits until `stderr` matches `pattern` (at most 30 s). */
async function until(spawned: Spawned, pattern: RegExp): Promise<void> {
  for (let i = 0; i < 600 && !pattern.test(spawned.stderr()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(spawned.stderr()).toMatch(pattern);
}

const portClosed = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe('interruption', () => {
  it("the first signal aborts the run's signal; the second runs the hard-exit hooks and raises the signal again", () => {
    let handler: ((signal: 'SIGINT' | 'SIGTERM' | 'SIGHUP') => void) | undefined;
    const raised: string[] = [];
    const killed: string[] = [];
    let watching = false;
    const stderr: string[] = [];
    const interrupts = watchInterrupts({
      signals: (h) => {
        handler = h;
        watching = true;
        return () => (watching = false);
      },
      raise: (signal) => void raised.push(signal),
      stderr: { write: (text: string) => stderr.push(text) } as unknown as NodeJS.WritableStream,
    });
    interrupts.onHardExit(() => void killed.push('embedded'));
    expect(interrupts.signal.aborted).toBe(false);
    handler!('SIGTERM');
    expect(interrupts.signal.aborted).toBe(true);
    expect(interrupts.signal.reason).toBe('SIGTERM');
    expect(stderr.join('')).toMatch(/SIGTERM: stopping; the reports are written for what ran \(SIGTERM again to exit at once\)/);
    expect(killed).toEqual([]);
    handler!('SIGINT');
    expect(killed).toEqual(['embedded']);
    expect(raised).toEqual(['SIGINT']);
    expect(watching).toBe(false);
  });

  it('in-process: an aborted run keeps what ran, the rest is not run, verdict interrupted, exit 143 for SIGTERM', async () => {
    await withServer({ wrap: slow }, async (url) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort('SIGTERM'), 1500);
      const result = await runConformance({
        baseUrl: url,
        apiKey: DISTINCTIVE_KEY,
        seed: 3,
        numRuns: 5,
        timeoutMs: 5000,
        load: 'smoke',
        signal: controller.signal,
      });
      expect(result.summary.verdict).toBe('interrupted');
      expect(result.summary.interrupted).toBe('SIGTERM');
      expect(result.summary.reason).toMatch(/^interrupted by SIGTERM: \d+ of 33 rules decided before it, the rest not run/);
      expect(exitCode(result.summary)).toBe(143);
      const decided = result.rules.filter((r) => r.outcome !== 'skip');
      const skipped = result.rules.filter((r) => r.outcome === 'skip');
      expect(decided.length).toBeGreaterThan(0);
      expect(skipped.length).toBeGreaterThan(0);
      expect(skipped.flatMap((r) => r.checks.map((c) => c.reason))).toContainEqual(
        expect.stringMatching(/^(not run|cut short): interrupted by SIGTERM$/),
      );
      expect(result.load).toEqual([]);
      expect(result.skippedPhases.map((p) => p.phase)).toContain('load');
      expect(result.rules.flatMap((r) => r.checks.flatMap((c) => c.findings)).filter((f) => f.outcome === 'fail')).toEqual([]);
    });
  });

  it('in-process: interrupted during the load profile, the profile stops at once and what it measured is kept', async () => {
    await withServer({}, async (url) => {
      const controller = new AbortController();
      const result = await runConformance({
        baseUrl: url,
        apiKey: DISTINCTIVE_KEY,
        seed: 3,
        numRuns: 5,
        load: 'long',
        loadProfiles: {
          long: {
            name: 'long',
            description: 'long',
            kind: 'closed',
            connections: 4,
            durationSec: 60,
            maxRequests: 10_000_000,
            mix: { listPets: 1, getPet: 1, createPet: 1 },
            thresholds: ['errorRate < 1%'],
          },
        },
        onEvent: (event) => {
          if (event.type === 'load-start') setTimeout(() => controller.abort('SIGINT'), 1000);
        },
        signal: controller.signal,
      });
      expect(result.summary.verdict).toBe('interrupted');
      const [load] = result.load;
      expect(load!.stoppedEarly).toBe('interrupted');
      expect(load!.durationMs).toBeLessThan(3000);
      expect(load!.overall.requests).toBeGreaterThan(10);
      // Requests in flight when it stopped are dropped, never counted as the target's failures.
      expect(load!.overall.errors).toEqual({ non2xx: 0, timeouts: 0, socketErrors: 0 });
      expect(exitCode(result.summary)).toBe(130);
    });
  });

  // SIGHUP: the terminal closed, an ssh session dropped (before, the process died of it without its reports).
  it.each([
    ['SIGINT', 130],
    ['SIGHUP', 129],
  ] as const)(
    'CLI, %s mid-run against a slow target: exit %i promptly, every report written, verdict interrupted',
    async (signal, exit) => {
      await withServer({ wrap: slow }, async (url) => {
        const dir = tempDir();
        const run = spawnCli(['--base-url', url, '--num-runs', '5', '--report-dir', dir], { PETSTORE_API_KEY: DISTINCTIVE_KEY });
        await until(run, /· createPet/);
        process.kill(run.pid, signal);
        // A hangup twice (the shell passes it on, the session's end sends it again): still the reports, not "at once".
        if (signal === 'SIGHUP') setTimeout(() => process.kill(run.pid, 'SIGHUP'), 20);
        const ended = await run.ended;
        // A hangup's run ends by the signal itself once its reports are written: the shell counts 128 and its number.
        expect(ended.code ?? (ended.signal === 'SIGHUP' ? 129 : ended.signal)).toBe(exit);
        for (const file of ['report.json', 'junit.xml', 'report.html']) expect(existsSync(join(dir, file))).toBe(true);
        const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceResult;
        expect(reportErrors(report)).toEqual([]);
        expect(report.summary).toMatchObject({ verdict: 'interrupted', interrupted: signal });
        expect(report.rules.some((r) => r.outcome === 'pass')).toBe(true);
        // Checks that had started are cut short, the others not run.
        expect(report.rules.filter((r) => r.outcome === 'skip').flatMap((r) => r.checks.map((c) => c.reason))).toContainEqual(
          expect.stringMatching(new RegExp(`^(not run|cut short): interrupted by ${signal}$`)),
        );
        expect(run.stdout()).toMatch(new RegExp(`INTERRUPTED: interrupted by ${signal}`));
        expect(run.stderr()).not.toMatch(/petstore-conformance: error/);
        expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/Interrupted/);
      });
    },
  );

  it('CLI --embedded, SIGTERM during the load profile: exit 143, reports written, the embedded reference stopped (its port closed)', async () => {
    const dir = tempDir();
    const run = spawnCli(['--embedded', '--num-runs', '5', '--load', 'baseline', '--report-dir', dir]);
    await until(run, /load profile "baseline"/);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    process.kill(run.pid, 'SIGTERM');
    const { code } = await run.ended;
    expect(code).toBe(143);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceResult;
    expect(report.summary).toMatchObject({ verdict: 'interrupted', interrupted: 'SIGTERM' });
    expect(report.load[0]!.stoppedEarly).toBe('interrupted');
    expect(report.rules.filter((r) => r.outcome === 'pass').length).toBeGreaterThan(20);
    expect(await portClosed(Number(new URL(report.target).port))).toBe(true);
  });

  it('certify, SIGTERM mid-run: exit 143, one line saying what was kept, the bundle written of what ran, NOT CERTIFIED (interrupted)', async () => {
    await withServer({ wrap: slow }, async (url) => {
      const dir = tempDir();
      writeFileSync(
        join(dir, 'product.json'),
        JSON.stringify({ name: 'Acme Petstore', version: '2.4.1', contact: 'certification@acme.example' }),
      );
      const bundle = join(dir, 'acme.tar.gz');
      const run = spawnCli(['certify', '--base-url', url, '--product', join(dir, 'product.json'), '--out', bundle], {
        PETSTORE_API_KEY: DISTINCTIVE_KEY,
      });
      await until(run, /testing http/);
      process.kill(run.pid, 'SIGTERM');
      const { code } = await run.ended;
      expect(code).toBe(143);
      expect(run.stderr()).toMatch(/SIGTERM: stopping; the bundle is written for what ran, NOT CERTIFIED \(interrupted\)/);
      expect(
        run
          .stderr()
          .split('\n')
          .filter((line) => line.startsWith('petstore-conformance: SIGTERM: the run was interrupted')),
      ).toEqual([
        `petstore-conformance: SIGTERM: the run was interrupted; the bundle ${bundle} keeps what ran, NOT CERTIFIED (interrupted)`,
      ]);
      expect(run.stderr()).not.toMatch(/petstore-conformance: error/);
      const { files } = await unpackBundle(readFileSync(bundle));
      const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8')) as { certified: boolean; reasons: string[] };
      expect(manifest.certified).toBe(false);
      expect(manifest.reasons[0]).toBe('interrupted by SIGTERM: the run did not finish');
      const report = JSON.parse(files.get('report.json')!.toString('utf8')) as ConformanceResult;
      expect(report.summary).toMatchObject({ verdict: 'interrupted', interrupted: 'SIGTERM' });
      expect(files.get('transcript.har')!.length).toBeGreaterThan(0);
      // Nothing half-written is left beside it.
      expect(readdirSync(dir).sort()).toEqual(['acme.tar.gz', 'product.json']);
      // verify says what the bundle is: intact, its verdicts not recomputed (the run stopped between requests), never a certificate.
      const verified = await verifyBundle(readFileSync(bundle));
      expect(verified.problems).toEqual([]);
      expect(verified.steps).toContainEqual({ code: 'INTERRUPTED_NOT_RECOMPUTED', signal: 'SIGTERM' });
      expect(renderVerification(verified, 'acme.tar.gz')).toMatch(
        /VERIFIED: every file matches the manifest; the run was interrupted, so no verdict was recomputed; the bundle's decision: NOT CERTIFIED\n$/,
      );
      expect(verified.steps).toContainEqual({ code: 'DECISION_FOLLOWS', certified: false });
    });
  });

  it('CLI --embedded, killed outright (SIGKILL): the embedded reference still stops by itself', async () => {
    const dir = tempDir();
    const run = spawnCli(['--embedded', '--num-runs', '5', '--load', 'baseline', '--report-dir', dir]);
    await until(run, /testing http:\/\/127\.0\.0\.1:(\d+)/);
    const port = Number(/testing http:\/\/127\.0\.0\.1:(\d+)/.exec(run.stderr())![1]);
    expect(await portClosed(port)).toBe(false);
    process.kill(run.pid, 'SIGKILL');
    await run.ended;
    let closed = false;
    for (let i = 0; i < 100 && !closed; i++) {
      closed = await portClosed(port);
      if (!closed) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(closed).toBe(true);
  });
});
