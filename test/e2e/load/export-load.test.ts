/**
 * export-load: a load profile as a k6 or an Artillery script. The k6 scripts
 * are type-checked against @types/k6 with tsc. Artillery (590 MB with its
 * cloud SDKs, and Node 22 for its current releases) is not a dependency of the
 * project: the generated YAML's structure is checked here, its processor run,
 * and the scripts are run by Artillery against the reference and against a
 * variant that breaks a threshold (.ci/run installs the pinned release of
 * .ci/artillery; elsewhere, without one, those runs are skipped loudly).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { builtinProfiles } from '../../../suites/load/profiles.js';
import type { Handler } from '../../../reference/handler.js';
import { DISTINCTIVE_KEY, findArtillery, runInProcess, tempDir, withServer } from '../../helpers.js';

const require = createRequire(import.meta.url);
const TSC = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
const TYPE_ROOTS = join(dirname(require.resolve('@types/k6/package.json')), '..');
const ARTILLERY = findArtillery('test/e2e/load/export-load.test.ts');

/** A config file with a fixed-rate and a ramp profile, beside the built-in ones. */
const CONFIG = {
  profiles: {
    steady: {
      kind: 'rate',
      rate: 40,
      connections: 8,
      durationSec: 2,
      maxRequests: 1000,
      mix: { listPets: 2, getPet: 1, createPet: 1 },
      thresholds: [
        'p99 < 500ms',
        'getPet.p50 < 200ms',
        'errorRate < 1%',
        'throughput > 5/s',
        'getPet.errorRate < 1%',
        'p97_5 < 900ms',
        'p99_9 < 900ms',
      ],
    },
    climb: {
      kind: 'ramp',
      stages: [1, 2, 4],
      stageSec: 1,
      maxRequests: 5000,
      mix: { listPets: 1, getPet: 1 },
      thresholds: ['p99 < 1000ms', 'drift < 2x'],
    },
    // Its request bound comes before its duration: 500 requests at 100/s.
    capped: {
      kind: 'rate',
      rate: 100,
      connections: 4,
      durationSec: 60,
      maxRequests: 500,
      mix: { listPets: 1, getPet: 0, createPet: 0 },
      thresholds: [],
    },
  },
};

function project(): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'petstore-conformance.config.json'), JSON.stringify(CONFIG));
  return dir;
}

async function exportScript(dir: string, profile: string, format: 'k6' | 'artillery', extra: string[] = []): Promise<string> {
  const out = join(dir, `${profile}.${format === 'k6' ? 'k6.js' : 'artillery.yml'}`);
  const ran = await runInProcess(['export-load', '--profile', profile, '--format', format, '--out', out, ...extra], {
    cwd: dir,
    env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
  });
  expect(ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  expect(ran.stdout).toContain(`wrote ${out}`);
  return out;
}

describe('export-load --format k6', () => {
  it('writes scripts that type-check against @types/k6, for every kind of profile', async () => {
    const dir = project();
    const names = [...Object.keys(builtinProfiles), 'steady', 'climb', 'capped'];
    const files = [];
    for (const name of names)
      files.push(await exportScript(dir, name, 'k6', name === 'smoke' ? ['--base-url', 'http://127.0.0.1:8080/v1'] : []));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          allowJs: true,
          checkJs: true,
          noEmit: true,
          strict: true,
          target: 'ES2020',
          module: 'ESNext',
          moduleResolution: 'bundler',
          lib: ['ES2020'],
          types: ['k6'],
          typeRoots: [TYPE_ROOTS],
        },
        files,
      }),
    );
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
    const options = JSON.parse(/export const options = (\{[\s\S]*?\n\});/.exec(smoke)![1]!) as {
      scenarios: Record<string, Record<string, unknown>>;
      thresholds: Record<string, unknown[]>;
    };
    // Bounded by its requests and its duration, ending normally at either (k6's test.abort() would exit non-zero).
    expect(options.scenarios).toEqual({ smoke: { executor: 'shared-iterations', vus: 4, iterations: 20000, maxDuration: '3s' } });
    expect(smoke).not.toContain('abort(');
    expect(options.thresholds).toEqual({
      'http_req_failed{load:yes}': ['rate<0.01'],
      'http_req_duration{load:yes}': ['p(99)<1000'],
      answered: ['rate>=0.9'],
      checks: ['rate==1'],
    });
    expect(smoke).toContain("const answered = new Rate('answered');");
    expect(smoke).toContain('answered.add(response.status !== 0);');
    // A 401 is an error unless the request went without a key, as in the suite.
    expect(smoke).toContain('const responseCallback = probe ? UNAUTHORIZED : OK;');
    expect(smoke).toContain('const API_KEY = __ENV.PETSTORE_API_KEY;');
    expect(smoke).toContain('authorization: `Bearer ${API_KEY}`');
    expect(smoke).toMatch(/^\/\/ Distributed \(k6 cloud run, k6-operator\): the virtual users, the rate and the request bound are split/m);
    // The load phase's cycle of requests (test/unit/load/export-mix.test.ts compares it with the phase's), not a draw of its own.
    expect(smoke).toMatch(/^const CYCLE = \[\["(listPets|getPet|createPet)",\d+,[01]\]/m);
    expect(smoke).not.toContain('Math.random() <');
    expect(smoke).toContain('__ENV.PETSTORE_BASE_URL || "http://127.0.0.1:8080/v1"');

    const steady = readFileSync(await exportScript(dir, 'steady', 'k6'), 'utf8');
    const steadyOptions = JSON.parse(/export const options = (\{[\s\S]*?\n\});/.exec(steady)![1]!) as typeof options;
    expect(steadyOptions.scenarios.steady).toEqual({
      executor: 'constant-arrival-rate',
      rate: 40,
      timeUnit: '1s',
      duration: '2s',
      preAllocatedVUs: 8,
      maxVUs: 8,
    });
    expect(steadyOptions.thresholds).toMatchObject({
      'http_req_duration{operation:getPet}': ['p(50)<200'],
      'http_reqs{load:yes}': ['rate>5'],
      'http_req_failed{operation:getPet}': ['rate<0.01'],
      'http_req_duration{load:yes}': ['p(99)<500', 'p(97.5)<900', 'p(99.9)<900'],
    });
    expect(steady).toMatch(/^\/\/ answered >= 90%: .*dropped_iterations\) are not in it/m);

    // At a fixed rate the count is rate × duration: a lower request bound shortens the duration.
    const capped = readFileSync(await exportScript(dir, 'capped', 'k6'), 'utf8');
    const cappedOptions = JSON.parse(/export const options = (\{[\s\S]*?\n\});/.exec(capped)![1]!) as typeof options;
    expect(cappedOptions.scenarios.capped).toMatchObject({ executor: 'constant-arrival-rate', rate: 100, duration: '5s' });
    expect(capped).toContain('the request bound, 500, ends it before 60 s');

    const climb = readFileSync(await exportScript(dir, 'climb', 'k6'), 'utf8');
    const climbOptions = JSON.parse(/export const options = (\{[\s\S]*?\n\});/.exec(climb)![1]!) as typeof options;
    expect(Object.values(climbOptions.scenarios).map((s) => [s.executor, s.vus, s.iterations, s.maxDuration, s.startTime])).toEqual([
      ['shared-iterations', 1, 5000, '1s', '0s'],
      ['shared-iterations', 2, 5000, '1s', '1s'],
      ['shared-iterations', 4, 5000, '1s', '2s'],
    ]);
    expect(climbOptions.thresholds['http_req_duration{load:yes}']).toEqual([
      { threshold: 'p(99)<1000', abortOnFail: true, delayAbortEval: '1s' },
    ]);
    expect(climbOptions.thresholds.answered).toEqual([{ threshold: 'rate>=0.9', abortOnFail: true, delayAbortEval: '1s' }]);
    expect(climb).toMatch(/^\/\/ Not reproduced: drift < 2x: k6 has no drift metric/m);
  });
});

/** The error rate as Artillery's ensure computes it: a 2xx to a request with the key, or a 401 to a probe, is not an error. */
/** The error rate by name: requests less the answers the processor counted as ok (a 2xx with the key, a 401 without). */
const ARTILLERY_ERROR_RATE = '(http.requests - petstore.ok_answers) / http.requests * 100';

describe('export-load --format artillery', () => {
  interface Script {
    config: {
      target: string;
      processor?: string;
      phases: Record<string, number | string>[];
      plugins: { ensure: { conditions: { expression: string }[] }; 'metrics-by-endpoint': unknown };
    };
    before: {
      flow: {
        post?: { url: string; capture: { regexp: string; group: number; as: string }[] };
        get?: { url: string; headers?: unknown };
      }[];
    };
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
    expect(script.config.plugins.ensure.conditions.map((c) => c.expression)).toEqual([
      `${ARTILLERY_ERROR_RATE} < 1`,
      'http.response_time.p99 < 1000',
      '(http.responses ? http.responses : 0) / http.requests * 100 >= 90',
      'petstore.wrong_answers == 0',
    ]);
    // 20 animals first, ids captured as digits.
    expect(script.before.flow).toHaveLength(20);
    const creates = script.before.flow.filter((s) => s.post);
    expect(creates).toHaveLength(20);
    expect(creates[19]!.post!.capture).toEqual([{ regexp: '"id"\\s*:\\s*(-?\\d+)', group: 1, as: 'petId19' }]);
    expect(new RegExp(creates[0]!.post!.capture[0]!.regexp).exec('{"id": 9223372036854775807, "name": "x"}')?.[1]).toBe(
      '9223372036854775807',
    );
    // The mix: one loop over the load phase's cycle of 240 requests in the profile's proportions (6:3:1), 4 of them without a key.
    const loop = script.scenarios[0]!.flow[0] as {
      loop: Record<string, { name: string; url: string; headers?: { authorization: string } }>[];
      whileTrue: string;
    };
    expect(loop.whileTrue).toBe('withinProfile');
    const requests = loop.loop.map((step) => Object.values(step)[0]!);
    const count = (name: string) => requests.filter((r) => r.name === name).length;
    expect([requests.length, count('listPets') + count('authProbe'), count('getPet'), count('createPet'), count('authProbe')]).toEqual([
      240, 144, 72, 24, 4,
    ]);
    expect(
      requests.filter((r) => r.name !== 'authProbe').every((r) => r.headers?.authorization === 'Bearer {{ $env.PETSTORE_API_KEY }}'),
    ).toBe(true);
    expect(requests.filter((r) => r.name === 'authProbe').every((r) => r.headers === undefined)).toBe(true);
    // The processor bounds the loop by the profile's duration and its request bound.
    expect(script.config.processor).toBe('./smoke.artillery.processor.cjs');
    const processorFile = join(dir, 'smoke.artillery.processor.cjs');
    const processor = require(processorFile) as {
      withinProfile(context: { vars: Record<string, number> }, next: (go: boolean) => void): void;
    };
    const asked: boolean[] = [];
    const context = { vars: {} as Record<string, number> };
    // Artillery asks after each pass of the loop: MAX_CYCLES passes (21 × 240 × 4 requests covers the bound of 20,000), not one more.
    for (let pass = 1; pass <= 21; pass++) processor.withinProfile(context, (go) => asked.push(go));
    expect(asked).toEqual([...Array.from({ length: 20 }, () => true), false]);
    expect(readFileSync(processorFile, 'utf8')).toMatch(/const DURATION_MS = 3000;\n.*\nconst MAX_CYCLES = 21;/);
    expect(readFileSync(processorFile, 'utf8')).toContain('per worker in a distributed run');
    expect(text).toMatch(/^# Distributed \(run-fargate, run-lambda --count N\): each worker runs the whole script/m);
  });

  it('a fixed-rate profile: arrivals at the rate, one request each in the mix proportions; what Artillery cannot judge is said', async () => {
    const dir = project();
    const script = parse(
      readFileSync(await exportScript(dir, 'steady', 'artillery', ['--base-url', 'http://127.0.0.1:8080/v1']), 'utf8'),
    ) as Script;
    expect(script.config.target).toBe('http://127.0.0.1:8080/v1');
    // A processor beside it too: it judges every answer.
    expect(script.config.processor).toBe('./steady.artillery.processor.cjs');
    expect(script.scenarios.every((s) => (s as { afterResponse?: string }).afterResponse === 'checkAnswer')).toBe(true);
    expect(script.config.phases).toEqual([{ name: 'steady', duration: 2, arrivalRate: 40, maxVusers: 8 }]);
    expect(script.scenarios.every((s) => s.weight === 1 && s.flow.length === 1)).toBe(true);
    expect(script.config.plugins.ensure.conditions.map((c) => c.expression)).toEqual([
      'http.response_time.p99 < 500',
      'plugins.metrics-by-endpoint.response_time.getPet.p50 < 200',
      `${ARTILLERY_ERROR_RATE} < 1`,
      'http.request_rate > 5',
      // Due requests: those sent, and the arrivals skipped at maxVusers.
      '(http.responses ? http.responses : 0) / (http.requests + (vusers.skipped ? vusers.skipped : 0)) * 100 >= 90',
      'petstore.wrong_answers == 0',
    ]);
    const text = readFileSync(join(dir, 'steady.artillery.yml'), 'utf8');
    expect(text).toMatch(/^# Not reproduced: getPet\.errorRate < 1%: /m);
    expect(text).toMatch(/^# Not reproduced: p97_5 < 900ms: Artillery reports no p97\.5 percentile/m);
    expect(text).toMatch(/^# Not reproduced: p99_9 < 900ms: Artillery's ensure plugin cannot name its p999 metric/m);
  });

  it('without probes in the mix, the error rate reads the same, by name', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'petstore-conformance.config.json'),
      JSON.stringify({
        profiles: {
          keyed: {
            kind: 'closed',
            connections: 1,
            durationSec: 1,
            maxRequests: 10,
            mix: { listPets: 1, getPet: 0, createPet: 0 },
            authProbeShare: 0,
            thresholds: ['errorRate < 1%'],
          },
        },
      }),
    );
    const script = parse(readFileSync(await exportScript(dir, 'keyed', 'artillery'), 'utf8')) as Script;
    expect(script.config.plugins.ensure.conditions[0]!.expression).toBe(`${ARTILLERY_ERROR_RATE} < 1`);
  });

  it("a ramp: each stage's new users arrive in turn, all looping until the ramp ends", async () => {
    const dir = project();
    const script = parse(readFileSync(await exportScript(dir, 'climb', 'artillery'), 'utf8')) as Script;
    expect(script.config.phases).toEqual([
      { name: 'stage 1 (1 connections)', duration: 1, arrivalCount: 1 },
      { name: 'stage 2 (2 connections)', duration: 1, arrivalCount: 1 },
      { name: 'stage 3 (4 connections)', duration: 1, arrivalCount: 2 },
    ]);
    expect(readFileSync(join(dir, 'climb.artillery.processor.cjs'), 'utf8')).toContain('const DURATION_MS = 3000;');
  });

  it('names the file it writes in its run command, and its processor after it', async () => {
    const dir = project();
    const ran = await runInProcess(['export-load', '--profile', 'smoke', '--format', 'artillery', '--out', 'release-gate.yml'], {
      cwd: dir,
    });
    expect(ran.code, ran.stderr).toBe(0);
    const text = readFileSync(join(dir, 'release-gate.yml'), 'utf8');
    expect(text).toMatch(/^# Run: PETSTORE_API_KEY=… artillery run release-gate\.yml$/m);
    expect((parse(text) as Script).config.processor).toBe('./release-gate.processor.cjs');
    await runInProcess(['export-load', '--profile', 'smoke', '--format', 'k6', '--out', 'gate.js'], { cwd: dir });
    expect(readFileSync(join(dir, 'gate.js'), 'utf8')).toMatch(/^\/\/ Run: PETSTORE_API_KEY=… k6 run gate\.js$/m);
  });
});

/** Runs `artillery run <file>` against `url`: its exit code and its output. */
function runArtillery(artillery: string, file: string, url: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const env = {
      ...process.env,
      PETSTORE_API_KEY: DISTINCTIVE_KEY,
      PETSTORE_BASE_URL: url,
      ARTILLERY_DISABLE_TELEMETRY: 'true',
      FORCE_COLOR: '0',
    };
    const child = spawn(artillery, ['run', file], { cwd: dirname(file), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** The reference, but every fifth listPets with a valid key answered 401: errors the error rate must count. */
const refusesKeyedLists = (inner: Handler): Handler => {
  let lists = 0;
  return (request) =>
    request.method === 'GET' && request.path === '/pets' && request.headers.authorization && lists++ % 5 === 0
      ? { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: { code: 401, message: 'unauthorized' } }
      : inner(request);
};

describe.skipIf(!ARTILLERY)('export-load: the Artillery script, run by Artillery', () => {
  const conditionsOf = (file: string) =>
    (
      parse(readFileSync(file, 'utf8')) as { config: { plugins: { ensure: { conditions: { expression: string }[] } } } }
    ).config.plugins.ensure.conditions.map((c) => c.expression);

  it('holds its thresholds against the reference; a target answering 401 to keyed requests breaks the error rate, and Artillery exits non-zero naming it', async () => {
    const dir = project();
    const [smoke, steady] = [await exportScript(dir, 'smoke', 'artillery'), await exportScript(dir, 'steady', 'artillery')];
    // Side by side: each run spends most of its time waiting for Artillery's reporting period.
    const [held, broken] = await Promise.all([
      withServer({}, (url) => runArtillery(ARTILLERY!, smoke, url)),
      withServer({ wrap: refusesKeyedLists }, (url) => runArtillery(ARTILLERY!, steady, url)),
    ]);

    expect(held.code, held.out.slice(-3000)).toBe(0);
    for (const condition of conditionsOf(smoke)) expect(held.out).toContain(`\nok: ${condition}\n`);
    expect(held.out).not.toMatch(/^fail: /m);
    expect(held.out).toMatch(/plugins\.metrics-by-endpoint\.getPet\.codes\.200: \.+ \d+/);
    expect(held.out).toMatch(/plugins\.metrics-by-endpoint\.authProbe\.codes\.401: \.+ \d+/);

    expect(broken.code, broken.out.slice(-3000)).not.toBe(0);
    expect(broken.out).toContain(`\nfail: ${ARTILLERY_ERROR_RATE} < 1\n`);
    // A 401 to a request with the key is a wrong answer too, as the load phase judges it.
    expect(broken.out).toContain('\nfail: petstore.wrong_answers == 0\n');
    expect(held.out).toContain('\nok: petstore.wrong_answers == 0\n');
    // Each request got an answer, a 401 or another: answered holds, only the error rate breaks.
    expect(broken.out).toContain(`\nok: ${conditionsOf(steady).at(-2)!}\n`);
    for (const ran of [held, broken]) expect(ran.out).not.toContain(DISTINCTIVE_KEY);
  }, 120_000);
});

describe('.ci/install-artillery', () => {
  const script = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '.ci', 'install-artillery');
  /** A folder with a stand-in `npm` that records how it was called. */
  function fakeNpm(): { bin: string; calls: string } {
    const bin = tempDir();
    const calls = join(bin, 'calls');
    writeFileSync(
      join(bin, 'npm'),
      ['#!/bin/sh', `echo "$PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD $*" >> ${calls}`, 'echo "npm output" >&2', ''].join('\n'),
    );
    chmodSync(join(bin, 'npm'), 0o755);
    return { bin, calls };
  }
  const run = (env: Record<string, string>) =>
    execFileSync(script, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: { HOME: tempDir(), ...env } }).trim();

  it('without an Artillery, installs the pinned release with its lock file outside the clone and prints its path alone', () => {
    const { bin, calls } = fakeNpm();
    const temp = tempDir();
    const printed = run({ PATH: `${bin}:/usr/bin:/bin`, RUNNER_TEMP: temp });
    const dir = printed.replace(/\/node_modules\/\.bin\/artillery$/, '');
    expect(dir).toMatch(new RegExp(`^${temp}/petstore-conformance-artillery-[0-9a-f]{12}$`));
    expect(readFileSync(calls, 'utf8')).toMatch(
      new RegExp(`^1 ci --prefix ${temp}/petstore-conformance-artillery\\.\\w{6} --no-audit --no-fund --loglevel=error\n$`),
    );
    expect(JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')).packages['node_modules/artillery'].version).toBe('2.0.21');
    expect(readdirSync(temp)).toEqual([basename(dir)]);
  });

  it('two installs side by side each print the same complete install; a third installs nothing', async () => {
    // A stand-in npm that takes its time, then leaves an artillery in the folder it was given.
    const bin = tempDir();
    const calls = join(bin, 'calls');
    writeFileSync(
      join(bin, 'npm'),
      [
        '#!/bin/sh',
        `echo "$*" >> ${calls}`,
        'prefix="$3"',
        'sleep 1',
        'mkdir -p "$prefix/node_modules/.bin" && printf "#!/bin/sh\\n" > "$prefix/node_modules/.bin/artillery" && chmod +x "$prefix/node_modules/.bin/artillery"',
        '',
      ].join('\n'),
    );
    chmodSync(join(bin, 'npm'), 0o755);
    const temp = tempDir();
    const env = { HOME: tempDir(), PATH: `${bin}:/usr/bin:/bin`, RUNNER_TEMP: temp };
    const install = () =>
      new Promise<{ code: number | null; out: string }>((done) => {
        const child = spawn(script, [], { env, stdio: ['ignore', 'pipe', 'ignore'] });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.on('close', (code) => done({ code, out: out.trim() }));
      });
    const [a, b] = await Promise.all([install(), install()]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.out).toBe(b.out);
    expect(existsSync(a.out)).toBe(true);
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toHaveLength(2);
    // The folder of the install that lost the race is gone; the winner's stays, complete.
    expect(readdirSync(temp)).toEqual([basename(dirname(dirname(dirname(a.out))))]);
    expect(run(env)).toBe(a.out);
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toHaveLength(2);
  }, 30_000);

  it('uses $ARTILLERY_PATH, or an artillery on PATH, and installs nothing', () => {
    const { bin, calls } = fakeNpm();
    expect(run({ PATH: `${bin}:/usr/bin:/bin`, ARTILLERY_PATH: '/opt/artillery/bin/artillery' })).toBe('/opt/artillery/bin/artillery');
    const onPath = tempDir();
    writeFileSync(join(onPath, 'artillery'), '#!/bin/sh\n');
    chmodSync(join(onPath, 'artillery'), 0o755);
    expect(run({ PATH: `${bin}:${onPath}:/usr/bin:/bin` })).toBe(join(onPath, 'artillery'));
    expect(existsSync(calls)).toBe(false);
  });
});

describe('export-load usage', () => {
  // Nothing shared: side by side.
  it.concurrent.each([
    [['export-load', '--format', 'k6'], /export-load needs --profile \(known: smoke, baseline, stress, soak\)/],
    [['export-load', '--profile', 'smoke'], /export-load needs --format \(k6 or artillery\)/],
    [['export-load', '--profile', 'hurricane', '--format', 'k6'], /unknown profile "hurricane"/],
    [['export-load', '--profile', 'smoke', '--format', 'jmeter'], /invalid value for --format \(choices: "k6", "artillery"\)/],
    [
      ['export-load', '--profile', 'smoke', '--format', 'artillery'],
      /comes with a processor file that judges each answer, so it cannot go to stdout: give --out <file>\.yml to write both/,
    ],
  ])('%j is a usage error: exit 2', async (args, message) => {
    const ran = await runInProcess(args);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(message);
  });

  it('prints a k6 script to stdout without --out', async () => {
    const ran = await runInProcess(['export-load', '--profile', 'baseline', '--format', 'k6']);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^\/\/ Generated by petstore-conformance /);
    expect(ran.stdout).toContain('"executor": "shared-iterations"');
  });
});
