/**
 * One model of the load, measured: the Artillery script export-load writes for
 * a profile, run by Artillery, and the suite's own load phase on the same
 * profile, each against a reference of its own (in-process, port 0, loopback),
 * send the same request mix as the reference sees it (each operation's share,
 * and the share sent without a key), and judge the same thresholds (names and
 * limits). Artillery is found as test/export-load.test.ts finds it
 * (`ARTILLERY_PATH`, `.ci/install-artillery`): without one the test is skipped
 * with the reason, and under CI=true that is an error.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Handler } from '../../../reference/handler.js';
import { runConformance } from '../../../suites/engine.js';
import { LOAD_SETUP_ANIMALS } from '../../../suites/load/mix.js';
import type { LoadProfile } from '../../../suites/load/profiles.js';
import { DISTINCTIVE_KEY, findArtillery, runInProcess, tempDir, withServer } from '../../helpers.js';

const ARTILLERY = findArtillery('test/e2e/load/export-parity.test.ts');

/** The load phase's cycle is 240 requests (suites/load/mix.ts MIX_LENGTH): a bound of whole cycles per connection. */
const CYCLES_PER_CONNECTION = 4;
const PROFILE: LoadProfile = {
  name: 'parity',
  description: 'the same load, sent by the suite and by Artillery',
  kind: 'closed',
  connections: 2,
  // An upper bound: both end at the request bound long before on a quiet machine (about 3 s for the suite).
  durationSec: 30,
  maxRequests: 2 * 240 * CYCLES_PER_CONNECTION,
  mix: { listPets: 6, getPet: 3, createPet: 1 },
  thresholds: ['errorRate < 1%', 'p99 < 2000ms', 'getPet.p50 < 1000ms', 'p97_5 < 2000ms'],
};
/**
 * Artillery's start (it loads its plugins and cloud SDKs) and its reports take
 * up to about 15 s on a quiet 2-core machine; with the profile's own bound, and
 * twice that for a busy one.
 */
const ARTILLERY_BUDGET_MS = 2 * (15 + PROFILE.durationSec) * 1000;

type Kind = 'listPets' | 'getPet' | 'createPet' | 'authProbe';

/** How the reference saw a request: a request without a key is an auth probe, whatever it asked. */
function kindOf(method: string, path: string, keyed: boolean): Kind {
  if (!keyed) return 'authProbe';
  return method === 'POST' ? 'createPet' : /^\/pets\/[^/]+$/.test(path) ? 'getPet' : 'listPets';
}

/** The reference, counting the requests it answers by kind while `counting()` says so. */
function counter(counting: (method: string) => boolean) {
  const counts: Record<Kind, number> = { listPets: 0, getPet: 0, createPet: 0, authProbe: 0 };
  const wrap =
    (inner: Handler): Handler =>
    (request) => {
      if (counting(request.method)) counts[kindOf(request.method, request.path, request.headers.authorization !== undefined)]++;
      return inner(request);
    };
  return { counts, wrap };
}

const total = (counts: Record<Kind, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Runs `artillery run <file>` against `url`, killed past its budget: its exit code and its output. */
function runArtillery(file: string, url: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const env = {
      ...process.env,
      PETSTORE_API_KEY: DISTINCTIVE_KEY,
      PETSTORE_BASE_URL: url,
      ARTILLERY_DISABLE_TELEMETRY: 'true',
      FORCE_COLOR: '0',
    };
    const child = spawn(ARTILLERY!, ['run', file], { cwd: dirname(file), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    const kill = setTimeout(() => child.kill('SIGKILL'), ARTILLERY_BUDGET_MS);
    child.on('close', (code) => {
      clearTimeout(kill);
      resolve({ code, out });
    });
  });
}

/** The Artillery side: the script export-load writes, run by Artillery; the set-up's creates left out as Artillery leaves them out. */
async function artillerySide(): Promise<{ counts: Record<Kind, number>; conditions: string[]; script: string; out: string }> {
  const dir = tempDir();
  const { name: _, ...inConfig } = PROFILE;
  writeFileSync(join(dir, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { parity: inConfig } }));
  const file = join(dir, 'parity.artillery.yml');
  const exported = await runInProcess(['export-load', '--profile', 'parity', '--format', 'artillery', '--out', file], { cwd: dir });
  expect(exported.code, exported.stderr).toBe(0);
  const script = readFileSync(file, 'utf8');
  // Artillery's `before` flow sends the set-up's creates one after another before any virtual user starts.
  const setup: string[] = [];
  const { counts, wrap } = counter((method) => {
    if (setup.length >= LOAD_SETUP_ANIMALS) return true;
    setup.push(method);
    return false;
  });
  const ran = await withServer({ wrap }, (url) => runArtillery(file, url));
  // Outcomes are not compared (a busy machine may break a latency limit in one run and not the other): Artillery exits
  // non-zero for a condition that failed, which is fine here; for anything else (it crashed, or never judged) it is not.
  if (ran.code !== 0) expect(ran.out, ran.out.slice(-3000)).toMatch(/^fail: /m);
  expect(setup).toEqual(Array.from({ length: LOAD_SETUP_ANIMALS }, () => 'POST'));
  const conditions = (
    parse(script) as { config: { plugins: { ensure: { conditions: { expression: string }[] } } } }
  ).config.plugins.ensure.conditions.map((c) => c.expression);
  return { counts, conditions, script, out: ran.out };
}

/** The suite's side: a run with the profile as its load phase, counted from the phase's first request to its last. */
async function suiteSide() {
  let inLoad = false;
  const { counts, wrap } = counter(() => inLoad);
  const result = await withServer({ wrap }, (url) =>
    runConformance({
      baseUrl: url,
      apiKey: DISTINCTIVE_KEY,
      seed: 7,
      numRuns: 5,
      load: PROFILE.name,
      loadProfiles: { [PROFILE.name]: PROFILE },
      onEvent: (event) => {
        if (event.type === 'load-start') inLoad = true;
        if (event.type === 'load-end') inLoad = false;
      },
    }),
  );
  const [load] = result.load;
  return { counts, thresholds: load!.thresholds };
}

/**
 * The largest gap between two measured shares of one kind that sampling
 * explains: four standard deviations of the difference of two proportions.
 * (Both senders cycle through the same 240 requests, so their gap is smaller
 * still; a bound on draws holds for cycles too.)
 */
function tolerance(a: number, na: number, b: number, nb: number): number {
  const p = (a + b) / (na + nb);
  return 4 * Math.sqrt(p * (1 - p) * (1 / na + 1 / nb));
}

/** How an Artillery condition names a threshold's metric (its operation's, for one on an operation). */
function artilleryMetric(t: { metric: string; operation: string }): string {
  if (t.metric === 'errorRate') return 'http.requests - ';
  if (t.metric === 'throughput') return 'http.request_rate';
  if (t.metric === 'answered') return 'http.responses';
  return t.operation === 'all' ? `http.response_time.${t.metric}` : `metrics-by-endpoint.response_time.${t.operation}.${t.metric}`;
}

describe.skipIf(!ARTILLERY)("export-load's Artillery script and the load phase, on the same profile", () => {
  it(
    'send the same request mix, as the reference counts it, and judge the same thresholds',
    async () => {
      // Side by side: Artillery spends most of its time starting and reporting, the suite in its functional phases.
      const [artillery, suite] = await Promise.all([artillerySide(), suiteSide()]);
      const [na, ns] = [total(artillery.counts), total(suite.counts)];
      const rows = (Object.keys(artillery.counts) as Kind[]).map((kind) => {
        const [a, s] = [artillery.counts[kind], suite.counts[kind]];
        return { kind, artillery: a / na, suite: s / ns, gap: Math.abs(a / na - s / ns), tolerance: tolerance(a, na, s, ns) };
      });
      console.info(
        `export parity: Artillery ${na} requests, the suite ${ns}\n${rows.map((r) => `  ${r.kind}: ${(r.artillery * 100).toFixed(2)}% / ${(r.suite * 100).toFixed(2)}% (gap ${(r.gap * 100).toFixed(2)}, tolerance ${(r.tolerance * 100).toFixed(2)})`).join('\n')}`,
      );
      // Fewer than one cycle each: the machine starved both runs of their time, and no mix can be compared.
      expect(
        Math.min(na, ns),
        `requests counted: Artillery ${na}, the suite ${ns} (starved: fewer than one cycle of 240)`,
      ).toBeGreaterThanOrEqual(240);
      // Both end at the profile's request bound at the latest (Artillery's processor counts whole cycles of the mix).
      expect(Math.max(na, ns), `requests counted: Artillery ${na}, the suite ${ns}`).toBeLessThanOrEqual(PROFILE.maxRequests);
      for (const row of rows)
        expect(row.gap, `${row.kind}: Artillery ${row.artillery}, the suite ${row.suite}`).toBeLessThanOrEqual(row.tolerance);

      // Every threshold the load phase judged is an ensure condition with its limit that Artillery checked, or the
      // script says Artillery cannot hold it; and Artillery checks nothing else but the answers it judged (the phase's
      // sampled judgements, which the suite counts as rules), which were all right on the reference.
      const notReproduced = (expression: string) =>
        artillery.script.split('\n').some((line) => line.startsWith(`# Not reproduced: ${expression}: `));
      const held = suite.thresholds.filter((t) => !notReproduced(t.expression));
      expect(suite.thresholds.map((t) => t.expression)).toEqual([...PROFILE.thresholds, 'answered >= 90%']);
      expect(held.map((t) => t.expression)).toEqual(['errorRate < 1%', 'p99 < 2000ms', 'getPet.p50 < 1000ms', 'answered >= 90%']);
      expect(artillery.conditions).toHaveLength(held.length + 1);
      expect(artillery.conditions.at(-1)).toBe('petstore.wrong_answers == 0');
      expect(artillery.out).toContain('\nok: petstore.wrong_answers == 0\n');
      for (const [i, t] of held.entries()) {
        const condition = artillery.conditions[i]!;
        expect(condition, t.expression).toContain(artilleryMetric(t));
        expect(condition, t.expression).toMatch(new RegExp(` ${t.comparator} ${t.limit}$`));
        expect(artillery.out, t.expression).toMatch(new RegExp(`^(ok|fail): ${condition.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
      }
    },
    ARTILLERY_BUDGET_MS + 60_000,
  );
});
