// Runs the conformance suite against an independent Python implementation of
// the Animal Store interface (test/fixtures/independent/animal_store.py), written
// from spec/animal-store-interface.md alone.  Each variant switches on
// behaviour the document leaves open ("not shown"); a conformant verdict is
// expected for every one, so any 'fail' or 'error' here is either a bug in the
// fixture or a false alarm of the suite.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { runConformance } from '../../../suites/engine.js';

// A variant starts the Python implementation and runs the suite against it: up to 7 s on a quiet two-core machine, ×8
// for a runner that shares its cores.
vi.setConfig({ testTimeout: 60_000 });

const SERVER = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'independent', 'animal_store.py');
const API_KEY = 'indep-7f3c9a1e-key_~.+/=';
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 3_000;

interface Server {
  baseUrl: string;
  child: ChildProcess;
  stderr: () => string;
}

function startServer(flags: readonly string[]): Promise<Server> {
  const child = spawn('python3', [SERVER, '--port', '0', '--api-key', API_KEY, ...flags], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise<Server>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${why}; stdout=${JSON.stringify(out)} stderr=${JSON.stringify(err)}`));
    };
    const timer = setTimeout(() => fail(`no LISTENING line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.once('error', (e) => fail(`spawn failed: ${e.message}`));
    child.once('exit', (code, signal) => fail(`server exited early (code ${code}, signal ${signal})`));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^LISTENING (http:\/\/127\.0\.0\.1:\d+\/v1)\r?$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ baseUrl: m[1]!, child, stderr: () => err });
      }
    });
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS)));
  if (await Promise.race([exited.then(() => false), timedOut])) {
    child.kill('SIGKILL');
    await exited;
  }
  clearTimeout(timer);
}

/** `fails`: the rules a variant that breaks the document must fail, exactly; none for the others. */
const VARIANTS: ReadonlyArray<{ name: string; flags: string[]; fails?: string[] }> = [
  { name: 'plain', flags: [] },
  { name: 'ids beyond 2^53', flags: ['--id-start', '9007199254740993'] },
  { name: 'clamped limit, 300 prefilled animals', flags: ['--clamp-limit', '--prefill', '300'] },
  {
    name: 'default status, charset, newest first',
    flags: ['--default-status', 'available', '--charset', '--newest-first'],
  },
  {
    name: 'extra error field, lenient filter, any Content-Type',
    flags: ['--error-extra', '--lenient-status-filter', '--ignore-content-type'],
  },
  {
    // status is "string, enum PetStatus" and not required: an absent status is omitted, never null.
    name: 'null status (broken: "status": null is not a Pet)',
    flags: ['--null-status'],
    fails: ['CREATE-RESPONSE', 'GET-RESPONSE', 'LIST-RESPONSE', 'PET-SCHEMA'],
  },
];

describe('conformance suite against an independent implementation', () => {
  // Each variant is its own server process, mostly waited on: side by side.
  for (const variant of VARIANTS) {
    it.concurrent(`${variant.name} (${variant.flags.join(' ') || 'no flags'})`, async () => {
      const server = await startServer(variant.flags);
      try {
        const report = await runConformance({ baseUrl: server.baseUrl, apiKey: API_KEY, seed: 7, numRuns: 20 });
        const bad = report.rules
          .filter((rule) => rule.outcome === 'fail' || rule.outcome === 'error')
          .map((rule) => {
            const first = rule.checks.flatMap((check) => check.findings)[0];
            return `${rule.id} [${rule.outcome}]: ${first?.message ?? '(no finding)'}`;
          });
        if (bad.length > 0 && !variant.fails)
          console.error(`variant "${variant.name}":\n  ${bad.join('\n  ')}\nserver stderr: ${server.stderr()}`);
        expect(bad.map((line) => line.split(' ')[0]).sort()).toEqual(variant.fails ?? []);
        expect(report.rules.length).toBeGreaterThan(0);
      } finally {
        await stopServer(server.child);
      }
    });
  }
});
