/**
 * export-load: a load profile as a k6 or an Artillery script. The k6 scripts
 * are type-checked against @types/k6 with tsc. Artillery (590 MB with its
 * cloud SDKs, and Node 22 for its current releases) is not a dependency of the
 * project: the generated YAML's structure is checked here, its processor run,
 * and, when an `artillery` is installed (ARTILLERY_PATH or PATH), the script is
 * run against the reference implementation too.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { builtinProfiles } from '../suites/load/profiles.js';
import { DISTINCTIVE_KEY, findProgram, runInProcess, tempDir, withServer } from './helpers.js';

const require = createRequire(import.meta.url);
const TSC = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
const TYPE_ROOTS = join(dirname(require.resolve('@types/k6/package.json')), '..');

/** A config file with a fixed-rate and a ramp profile, beside the built-in ones. */
const CONFIG = {
  profiles: {
    steady: { kind: 'rate', rate: 40, connections: 8, durationSec: 2, maxRequests: 1000, mix: { listPets: 2, getPet: 1, createPet: 1 }, thresholds: ['p99 < 500ms', 'getPet.p50 < 200ms', 'errorRate < 1%', 'throughput > 5/s', 'getPet.errorRate < 1%', 'p97_5 < 900ms'] },
    climb: { kind: 'ramp', stages: [1, 2, 4], stageSec: 1, maxRequests: 5000, mix: { listPets: 1, getPet: 1 }, thresholds: ['p99 < 1000ms', 'drift < 2x'] },
  },
};

function project(): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'petstore-conformance.config.json'), JSON.stringify(CONFIG));
  return dir;
}

async function exportScript(dir: string, profile: string, format: 'k6' | 'artillery', extra: string[] = []): Promise<string> {
  const out = join(dir, `${profile}.${format === 'k6' ? 'k6.js' : 'artillery.yml'}`);
  const ran = await runInProcess(['export-load', '--profile', profile, '--format', format, '--out', out, ...extra], { cwd: dir, env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } });
  expect(ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  expect(ran.stdout).toContain(`wrote ${out}`);
  return out;
}

describe('export-load --format k6', () => {
  it('writes scripts that type-check against @types/k6, for every kind of profile', async () => {
    const dir = project();
    const names = [...Object.keys(builtinProfiles), 'steady', 'climb'];
    const files = [];
    for (const name of names) files.push(await exportScript(dir, name, 'k6', name === 'smoke' ? ['--base-url', 'http://127.0.0.1:8080/v1'] : []));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { allowJs: true, checkJs: true, noEmit: true, strict: true, target: 'ES2020', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2020'], types: ['k6'], typeRoots: [TYPE_ROOTS] },
      files,
    }));
    let output = '';
    try {
      execFileSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    expect(output).toBe('');
    for (const file of files) expect(readFileSync(file, 'utf8')).not.toContain(DISTINCTIVE_KEY);
  });

  it("reproduces the profile's pacing, mix, bound and thresholds, with the key from the environment", async () => {
    const dir = project();
    const smoke = readFileSync(await exportScript(dir, 'smoke', 'k6', ['--base-url', 'http://127.0.0.1:8080/v1']), 'utf8');
    const options = JSON.parse(/export const options = (\{[\s\S]*?\n\});/.exec(smoke)![1]!) as { scenarios: Record<string, Record<string, unknown>>; thresholds: Record<string, unknown[]> };
    expect(options.scenarios).toEqual({ smoke: { executor: 'constant-vus', vus: 4, duration: '3s' } });
    expect(options.thresholds).toEqual({ 'http_req_failed{load:yes}': ['rate<0.01'], 'http_req_duration{load:yes}': ['p(99)<1000'] });
    expect(smoke).toContain('const API_KEY = __ENV.PETSTORE_API_KEY;');
    expect(smoke).toContain('authorization: `Bearer ${API_KEY}`');
    expect(smoke).toContain('const MAX_REQUESTS = 20000;');
    expect(smoke).toContain('const MIX = [["listPets",6],["getPet",3],["createPet",1]];');
    expect(smoke).toContain('const AUTH_PROBE_SHARE = 0.02;');
    expect(smoke).toContain('__ENV.PETSTORE_BASE_URL || "http://127.0.0.1:8080/v1"');

    const steady = readFileSync(await exportScript(dir, 'steady', 'k6'), 'utf8');
    const steadyOptions = JSON.parse(/export const options = (\{[\s\S]*?\n\});/.exec(steady)![1]!) as typeof options;
    expect(steadyOptions.scenarios.steady).toEqual({ executor: 'constant-arrival-rate', rate: 40, timeUnit: '1s', duration: '2s', preAllocatedVUs: 8, maxVUs: 8 });
    expect(steadyOptions.thresholds).toMatchObject({ 'http_req_duration{operation:getPet}': ['p(50)<200'], 'http_reqs{load:yes}': ['rate>5'], 'http_req_failed{operation:getPet}': ['rate<0.01'], 'http_req_duration{load:yes}': ['p(99)<500', 'p(97.5)<900'] });

    const climb = readFileSync(await exportScript(dir, 'climb', 'k6'), 'utf8');
    const climbOptions = JSON.parse(/export const options = (\{[\s\S]*?\n\});/.exec(climb)![1]!) as typeof options;
    expect(Object.values(climbOptions.scenarios).map((s) => [s.vus, s.startTime])).toEqual([[1, '0s'], [2, '1s'], [4, '2s']]);
    expect(climbOptions.thresholds['http_req_duration{load:yes}']).toEqual([{ threshold: 'p(99)<1000', abortOnFail: true, delayAbortEval: '1s' }]);
    expect(climb).toMatch(/^\/\/ Not reproduced: drift < 2x: k6 has no drift metric/m);
  });
});

describe('export-load --format artillery', () => {
  interface Script {
    config: { target: string; processor?: string; phases: Record<string, number | string>[]; plugins: { ensure: { conditions: { expression: string }[] }; 'metrics-by-endpoint': unknown } };
    before: { flow: { post?: { url: string; capture: { regexp: string; group: number; as: string }[] }; get?: { url: string; headers?: unknown } }[] };
    scenarios: { name: string; weight?: number; flow: Record<string, unknown>[] }[];
  }

  it('a closed profile: its connections at once, looping through the mix until the duration (processor), the thresholds as ensure conditions', async () => {
    const dir = project();
    const file = await exportScript(dir, 'smoke', 'artillery');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(DISTINCTIVE_KEY);
    const script = parse(text) as Script;
    expect(script.config.target).toBe('{{ $env.PETSTORE_BASE_URL }}');
    expect(script.config.phases).toEqual([{ name: 'smoke', duration: 1, arrivalCount: 4 }]);
    expect(script.config.plugins.ensure.conditions.map((c) => c.expression)).toEqual(['(http.requests - http.codes.200 - http.codes.201 - http.codes.401) / http.requests * 100 < 1', 'http.response_time.p99 < 1000']);
    // 20 animals first, ids captured as digits; then one 200 and one 401 so that every code the error rate names occurs.
    const creates = script.before.flow.filter((s) => s.post);
    expect(creates).toHaveLength(20);
    expect(creates[19]!.post!.capture).toEqual([{ regexp: '"id"\\s*:\\s*(-?\\d+)', group: 1, as: 'petId19' }]);
    expect(new RegExp(creates[0]!.post!.capture[0]!.regexp).exec('{"id": 9223372036854775807, "name": "x"}')?.[1]).toBe('9223372036854775807');
    expect(script.before.flow.filter((s) => s.get).map((s) => Boolean(s.get!.headers))).toEqual([true, false]);
    // The mix: one loop over a cycle of 50 requests in the profile's proportions, one of them without a key.
    const loop = script.scenarios[0]!.flow[0] as { loop: Record<string, { name: string; url: string; headers?: { authorization: string } }>[]; whileTrue: string };
    expect(loop.whileTrue).toBe('withinProfile');
    const requests = loop.loop.map((step) => Object.values(step)[0]!);
    const count = (name: string) => requests.filter((r) => r.name === name).length;
    expect([requests.length, count('listPets'), count('getPet'), count('createPet'), count('authProbe')]).toEqual([50, 29, 15, 5, 1]);
    expect(requests.filter((r) => r.name !== 'authProbe').every((r) => r.headers?.authorization === 'Bearer {{ $env.PETSTORE_API_KEY }}')).toBe(true);
    expect(requests.find((r) => r.name === 'authProbe')!.headers).toBeUndefined();
    // The processor bounds the loop by the profile's duration and its request bound.
    expect(script.config.processor).toBe('./smoke.artillery.processor.cjs');
    const processorFile = join(dir, 'smoke.artillery.processor.cjs');
    const processor = require(processorFile) as { withinProfile(context: { vars: Record<string, number> }, next: (go: boolean) => void): void };
    const asked: boolean[] = [];
    const context = { vars: {} as Record<string, number> };
    processor.withinProfile(context, (go) => asked.push(go));
    expect(asked).toEqual([true]);
    expect(readFileSync(processorFile, 'utf8')).toMatch(/const DURATION_MS = 3000;\n.*\nconst MAX_CYCLES = 100;/);
  });

  it('a fixed-rate profile: arrivals at the rate, one request each in the mix proportions; what Artillery cannot judge is said', async () => {
    const dir = project();
    const script = parse(readFileSync(await exportScript(dir, 'steady', 'artillery', ['--base-url', 'http://127.0.0.1:8080/v1']), 'utf8')) as Script;
    expect(script.config.target).toBe('http://127.0.0.1:8080/v1');
    expect(script.config.processor).toBeUndefined();
    expect(script.config.phases).toEqual([{ name: 'steady', duration: 2, arrivalRate: 40, maxVusers: 8 }]);
    expect(script.scenarios.every((s) => s.weight === 1 && s.flow.length === 1)).toBe(true);
    expect(script.config.plugins.ensure.conditions.map((c) => c.expression)).toEqual([
      'http.response_time.p99 < 500',
      'plugins.metrics-by-endpoint.response_time.getPet.p50 < 200',
      '(http.requests - http.codes.200 - http.codes.201 - http.codes.401) / http.requests * 100 < 1',
      'http.request_rate > 5',
    ]);
    const text = readFileSync(join(dir, 'steady.artillery.yml'), 'utf8');
    expect(text).toMatch(/^# Not reproduced: getPet\.errorRate < 1%: /m);
    expect(text).toMatch(/^# Not reproduced: p97_5 < 900ms: Artillery reports no p97\.5 percentile/m);
  });

  it('a ramp: each stage\'s new users arrive in turn, all looping until the ramp ends', async () => {
    const dir = project();
    const script = parse(readFileSync(await exportScript(dir, 'climb', 'artillery'), 'utf8')) as Script;
    expect(script.config.phases).toEqual([
      { name: 'stage 1 (1 connections)', duration: 1, arrivalCount: 1 },
      { name: 'stage 2 (2 connections)', duration: 1, arrivalCount: 1 },
      { name: 'stage 3 (4 connections)', duration: 1, arrivalCount: 2 },
    ]);
    expect(readFileSync(join(dir, 'climb.artillery.processor.cjs'), 'utf8')).toContain('const DURATION_MS = 3000;');
  });

  it('runs against the reference implementation when Artillery is installed (ARTILLERY_PATH or PATH)', async (context) => {
    const artillery = findProgram(['artillery'], { envVar: 'ARTILLERY_PATH' });
    if (!artillery) {
      console.warn('test/export-load.test.ts: no artillery installed (ARTILLERY_PATH, PATH); the generated script was checked by structure only');
      context.skip();
      return;
    }
    const dir = project();
    const file = await exportScript(dir, 'smoke', 'artillery');
    await withServer({}, async (url) => {
      const ran = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(artillery, ['run', file], { env: { ...process.env, PETSTORE_API_KEY: DISTINCTIVE_KEY, PETSTORE_BASE_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d));
        child.stderr.on('data', (d: Buffer) => (out += d));
        child.on('close', (code) => resolve({ code, out }));
      });
      expect(ran.code, ran.out.slice(-3000)).toBe(0);
      expect(ran.out).toMatch(/^ok: http\.response_time\.p99 < 1000$/m);
      expect(ran.out).toMatch(/plugins\.metrics-by-endpoint\.getPet\.codes\.200: \.+ \d+/);
      expect(ran.out).toMatch(/plugins\.metrics-by-endpoint\.authProbe\.codes\.401: \.+ \d+/);
      expect(ran.out).not.toContain(DISTINCTIVE_KEY);
    });
  }, 120_000);
});

describe('export-load usage', () => {
  // Nothing shared: side by side.
  it.concurrent.each([
    [['export-load', '--format', 'k6'], /export-load needs --profile \(known: smoke, baseline, stress, soak\)/],
    [['export-load', '--profile', 'smoke'], /export-load needs --format \(k6 or artillery\)/],
    [['export-load', '--profile', 'hurricane', '--format', 'k6'], /unknown profile "hurricane"/],
    [['export-load', '--profile', 'smoke', '--format', 'jmeter'], /invalid value for --format \(choices: "k6", "artillery"\)/],
    [['export-load', '--profile', 'smoke', '--format', 'artillery'], /needs a processor file beside it: give --out/],
  ])('%j is a usage error: exit 2', async (args, message) => {
    const ran = await runInProcess(args);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(message);
  });

  it('prints a k6 script to stdout without --out', async () => {
    const ran = await runInProcess(['export-load', '--profile', 'baseline', '--format', 'k6']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^\/\/ Generated by petstore-conformance /);
    expect(ran.stdout).toContain('"executor": "constant-vus"');
  });
});
