/**
 * The suite against implementations in real frameworks (Express 5, Fastify 5,
 * FastAPI, Go net/http), written from the interface document alone (test/fixtures/frameworks/).
 * Correct variants make legitimate choices where the document says "not shown":
 * they must pass, and those that follow every SHOULD must pass under --strict.
 * Broken variants carry a typical bug of their framework: each must fail
 * exactly the rules variants.json lists.
 *
 * The FastAPI variants need Debian's python3-fastapi and python3-uvicorn
 * (`.ci/run` installs them); the Go variants need Debian's golang-go (the
 * server is built once, standard library only, into a temporary folder).
 * Without them these rows are skipped with a warning on a developer's
 * machine, and fail under CI. The rows with `deployment` (nginx, a load
 * shedder) are judged by test/deployments.test.ts, through the CLI with load.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ruleById, type RuleId } from '../../../spec/rules.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult } from '../../../result/model.js';
import { FIXTURES_ROOT, readVariants, type Variant } from '../../fixtures/frameworks/variants.js';
import { findProgram, pool, startListening, tempDir } from '../../helpers.js';

// A row starts a framework's server (Python, Go, Node) and runs the suite against it: up to 9 s on a quiet two-core
// machine, ×6 for a runner that shares its cores.
vi.setConfig({ testTimeout: 60_000 });

const VARIANTS = readVariants();
const API_KEY = 'fw-Key_7c1e.9b2d~contract';
const PYTHON = '/usr/bin/python3';
const PARALLEL = 4;

const fastapiMissing = spawnSync(PYTHON, ['-c', 'import fastapi, uvicorn'], { stdio: 'ignore' }).status !== 0;
if (fastapiMissing && process.env.CI !== 'true')
  console.warn(
    `\n!!! test/frameworks.test.ts: ${PYTHON} cannot import fastapi and uvicorn; the FastAPI rows are SKIPPED (apt-get install python3-fastapi python3-uvicorn)\n`,
  );
const GO = findProgram(['go'], { envVar: 'GO_PATH', debianPath: '/usr/bin/go' });
if (!GO && process.env.CI !== 'true')
  console.warn('\n!!! test/frameworks.test.ts: no go (GO_PATH, PATH, /usr/bin/go); the Go rows are SKIPPED (apt-get install golang-go)\n');
let goServer = '';

/**
 * Builds the Go server once per run, into a temporary folder, with GOPATH there
 * and GOCACHE under the OS temp dir (HOME may not be writable; nothing is
 * downloaded: standard library only). Measured: 5 s cold (the standard library compiled into the
 * fresh cache) on two cores, 1 s warm; the hook allows for a starved machine.
 */
async function buildGo(): Promise<string> {
  if (!GO)
    throw new Error(
      'no go (GO_PATH, PATH, /usr/bin/go): under CI=true the Go rows may not be skipped. Install it: apt-get install golang-go',
    );
  const dir = tempDir();
  const out = join(dir, 'petstore-go');
  // The build cache outlives the run (Go's cache is safe to share between concurrent builds): later runs build in 1 s.
  const env = {
    ...process.env,
    GOCACHE: join(tmpdir(), 'petstore-conformance-go-cache'),
    GOPATH: join(dir, 'gopath'),
    GO111MODULE: 'off',
    CGO_ENABLED: '0',
    GOFLAGS: '',
  };
  const child = spawn(GO, ['build', '-o', out, new URL('go/main.go', FIXTURES_ROOT).pathname], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`go build failed (${code}): ${err}`);
  return out;
}

function command(v: Variant): [string, string[]] {
  if (v.framework === 'go') return [goServer, []];
  const file = new URL(v.framework === 'fastapi' ? 'fastapi/server.py' : `${v.framework}/server.mjs`, FIXTURES_ROOT).pathname;
  return v.framework === 'fastapi' ? [PYTHON, [file]] : [process.execPath, [file]];
}

/** Starts a variant and resolves with its base URL once it prints its LISTENING line. */
function start(v: Variant): Promise<{ url: string; child: ChildProcess }> {
  const [cmd, args] = command(v);
  return startListening(
    `${v.framework}/${v.variant}`,
    cmd,
    args,
    { ...process.env, ...v.env, API_KEY, PORT: '0', VARIANT: v.variant },
    15_000,
  );
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}

async function judge(v: Variant): Promise<ConformanceResult> {
  const { url, child } = await start(v);
  try {
    return await runConformance({
      baseUrl: url,
      apiKey: API_KEY,
      seed: 20_261_122,
      numRuns: 20,
      strict: v.correct && v.followsEveryShould,
    });
  } finally {
    await stop(child);
  }
}

const FRAMEWORKS = VARIANTS.filter((v) => v.deployment === undefined);
const runnable = FRAMEWORKS.filter(
  (v) =>
    !(v.framework === 'fastapi' && fastapiMissing && process.env.CI !== 'true') &&
    !(v.framework === 'go' && !GO && process.env.CI !== 'true'),
);

// A cold build compiles the standard library into the fresh GOCACHE (5 s measured): twelve times that for a busy machine.
beforeAll(async () => {
  if (runnable.some((v) => v.framework === 'go')) goServer = await buildGo();
}, 60_000);
const results = new Map<Variant, Promise<ConformanceResult>>();
const started = () => {
  if (results.size === 0) {
    pool(
      runnable.map((v) => () => judge(v)),
      PARALLEL,
    ).forEach((p, i) => {
      p.catch(() => {}); // reported by the row that awaits it
      results.set(runnable[i]!, p);
    });
  }
  return results;
};

const failing = (r: ConformanceResult, severity?: 'MUST' | 'SHOULD') =>
  r.rules
    .filter((rule) => rule.outcome === 'fail' && (severity === undefined || rule.severity === severity))
    .map((rule) => rule.id)
    .sort();
const evidence = (r: ConformanceResult) =>
  r.rules
    .filter((rule) => rule.outcome === 'fail' || rule.outcome === 'error')
    .map((rule) =>
      `${rule.id}: ${rule.checks.flatMap((c) => c.findings)[0]?.message ?? rule.checks.find((c) => c.reason)?.reason ?? ''}`.slice(0, 300),
    )
    .join('\n');

describe('real frameworks, written from the document alone', () => {
  for (const v of FRAMEWORKS) {
    const name = `${v.framework}/${v.variant}: ${v.correct ? (v.followsEveryShould ? 'passes with --strict' : 'passes') : `fails ${v.expectFail.join(', ')}`}`;
    const skip = !runnable.includes(v);
    it.skipIf(skip)(name, { timeout: 300_000 }, async () => {
      const result = await started().get(v)!;
      const errored = result.rules.filter((r) => r.outcome === 'error').map((r) => r.id);
      expect(errored, evidence(result)).toEqual([]);
      if (v.correct) {
        expect(failing(result, v.followsEveryShould ? undefined : 'MUST'), `${v.choices}\n${evidence(result)}`).toEqual([]);
        expect(result.summary.verdict, result.summary.reason).toBe('conformant');
      } else {
        expect(failing(result), `${v.choices}\n${evidence(result)}`).toEqual(expect.arrayContaining([...v.expectFail].sort()));
        const mustFail = failing(result, 'MUST').filter((id) => !v.mayAlsoFail?.includes(id));
        expect(mustFail, `${v.choices}\n${evidence(result)}`).toEqual(
          v.expectFail.filter((id) => ruleById(id as RuleId).severity === 'MUST').sort(),
        );
      }
    });
  }
});
