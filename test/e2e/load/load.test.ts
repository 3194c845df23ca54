import { readFileSync, writeFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { Pool } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import type { Handler } from '../../../reference/handler.js';
import { startReference } from '../../../reference/server.js';
import { certify } from '../../../certification/certify.js';
import { naturalNamesFor, runConformance } from '../../../suites/engine.js';
import { buildMix } from '../../../suites/load/mix.js';
import { LOAD_SETUP_ANIMALS } from '../../../suites/load/phase.js';
import { type LoadProfile, validateProfile } from '../../../suites/load/profiles.js';
import { answeredThreshold, evaluate, runProfile } from '../../../suites/load/run.js';
import type { ConformanceResult } from '../../../result/model.js';
import { stringifyJson } from '../../../core/json.js';
import { mutants } from '../../fixtures/mutants/index.js';
import { DISTINCTIVE_KEY, reportErrors, runInProcess, selfSignedCert, tempDir, withServer } from '../../helpers.js';
import { notAsked } from '../../../result/policy.js';
import { judgedUnlessBound } from '../../starvation.js';

// A test runs a load profile of 1 to 4 s after the functional phases, or certifies: up to 8 s on a quiet two-core machine,
// ×7 for a shared runner; the longer profiles set their own.
vi.setConfig({ testTimeout: 60_000 });

const MIX = { listPets: 6, getPet: 3, createPet: 1 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function profile(overrides: Partial<LoadProfile> & Pick<LoadProfile, 'kind'>): LoadProfile {
  return {
    name: 'test',
    description: 'a test profile',
    connections: 4,
    durationSec: 2,
    maxRequests: 100_000,
    mix: MIX,
    thresholds: [],
    ...overrides,
  } as LoadProfile;
}

async function load(
  wrap: ((inner: Handler) => Handler) | undefined,
  p: LoadProfile,
  timeoutMs = 5000,
  concurrency?: number,
): Promise<ConformanceResult> {
  return withServer(wrap ? { wrap } : {}, (url) =>
    runConformance({
      baseUrl: url,
      apiKey: DISTINCTIVE_KEY,
      seed: 12,
      numRuns: 5,
      timeoutMs,
      load: p.name,
      loadProfiles: { [p.name]: p },
      ...(concurrency ? { concurrency } : {}),
    }),
  );
}

describe('load profiles', () => {
  it('smoke against the reference: figures per operation, thresholds as results, conformance held, report valid', async () => {
    const result = await withServer({}, (url) =>
      runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 3, numRuns: 5, load: 'smoke' }),
    );
    expect(result.summary.verdict).toBe('conformant');
    expect(result.summary.thresholds).toBe('pass');
    const [smoke] = result.load;
    expect(smoke!.profile).toBe('smoke');
    expect(smoke!.overall.requests).toBeGreaterThan(100);
    for (const op of ['listPets', 'getPet', 'createPet'] as const) expect(smoke!.operations[op].requests).toBeGreaterThan(0);
    expect(smoke!.overall.latencyMs.p50).toBeGreaterThan(0);
    expect(smoke!.overall.latencyMs.p50).toBeLessThan(smoke!.overall.latencyMs.max + 0.001);
    expect(smoke!.thresholds.map((t) => [t.id, t.outcome])).toEqual([
      ['LOAD-SMOKE-ALL-ERRORRATE', 'pass'],
      ['LOAD-SMOKE-ALL-P99', 'pass'],
      ['LOAD-SMOKE-ALL-ANSWERED', 'pass'],
    ]);
    // A direct connection: the raw lanes sent it, and the report says so.
    expect(smoke!.generator).toBe('raw');
    expect(smoke!.answered!.due).toBe(smoke!.overall.requests + smoke!.overall.errors.timeouts + smoke!.overall.errors.socketErrors);
    expect(smoke!.answered!.answered).toBe(smoke!.overall.requests);
    expect(smoke!.conformance.sampled).toBeGreaterThan(50);
    expect(smoke!.conformance.failedRules).toEqual([]);
    expect(smoke!.timeline.length).toBeGreaterThanOrEqual(2);
    expect(result.rules.filter((r) => r.outcome !== 'pass' && !notAsked(r)).map((r) => r.id)).toEqual([]);
    expect(reportErrors(JSON.parse(JSON.stringify(result)))).toEqual([]);
  });

  it('a threshold breach against a slow variant fails the run with exit 3 and the measured value beside the limit', async () => {
    const slow =
      (inner: Handler): Handler =>
      async (request) => {
        if (request.method === 'GET' && request.path === '/pets') await sleep(100);
        return inner(request);
      };
    await withServer({ wrap: slow }, async (url) => {
      const dir = tempDir();
      writeFileSync(
        join(dir, 'petstore-conformance.config.json'),
        JSON.stringify({
          profiles: {
            tight: {
              kind: 'closed',
              connections: 4,
              durationSec: 2,
              maxRequests: 50_000,
              mix: MIX,
              thresholds: ['listPets.p50 < 10ms', 'errorRate < 1%'],
            },
          },
        }),
      );
      const ran = await runInProcess(['--base-url', url, '--load', 'tight', '--num-runs', '5', '--report-dir', join(dir, 'r')], {
        cwd: dir,
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      });
      const report = JSON.parse(readFileSync(join(dir, 'r', 'report.json'), 'utf8')) as ConformanceResult;
      // A generator the machine starved sets the breach aside as not measured: then the test says so.
      await judgedUnlessBound(report.load[0], 'the breach test', () => {
        expect(ran.code).toBe(3);
        expect(ran.stdout).toMatch(/✗ LOAD-TIGHT-LISTPETS-P50: listPets\.p50 < 10ms, measured (1\d\d)\.\d+ ms/);
        expect(ran.stdout).toMatch(/✓ LOAD-TIGHT-ALL-ERRORRATE/);
        expect(ran.stdout).toMatch(/CONFORMANT: .*load threshold\(s\) breached or unmeasured: listPets\.p50 < 10ms/);
        expect(report.summary.thresholds).toBe('fail');
      });
      const junit = readFileSync(join(dir, 'r', 'junit.xml'), 'utf8');
      expect(junit).toMatch(/testcase [^>]*name="LOAD-TIGHT-LISTPETS-P50[^"]*"/);
    });
  });

  it('fixed rate: a target that stalls for one second shows the stall in p99 (latency from when each request was due)', async () => {
    let stallUntil = 0;
    let stalls = 0;
    const stalling =
      (inner: Handler): Handler =>
      async (request) => {
        const wait = stallUntil - Date.now();
        if (wait > 0) {
          stalls++;
          await sleep(wait);
        }
        return inner(request);
      };
    const p = profile({ name: 'steady', kind: 'rate', rate: 100, connections: 200, durationSec: 4, thresholds: ['p99 < 500ms'] });
    const result = await withServer({ wrap: stalling }, (url) =>
      runConformance({
        baseUrl: url,
        apiKey: DISTINCTIVE_KEY,
        seed: 12,
        numRuns: 5,
        load: 'steady',
        loadProfiles: { steady: p },
        onEvent: (event) => {
          if (event.type === 'load-tick' && event.elapsedSec === 1 && stallUntil === 0) stallUntil = Date.now() + 1000;
        },
      }),
    );
    const [run] = result.load;
    expect(stalls).toBeGreaterThan(20);
    expect(run!.generator).toBe('raw');
    expect(run!.overall.latencyMs.p99).toBeGreaterThan(700);
    expect(run!.overall.latencyMs.max).toBeGreaterThan(800);
    expect(run!.thresholds[0]!.outcome).toBe('fail');
    expect(run!.schedule!.due).toBe(400);
    expect(run!.schedule!.sent + run!.schedule!.dropped).toBe(400);
  });

  it('a rule broken only under concurrency is caught by the conformance-under-load check, with evidence', async () => {
    let inFlight = 0;
    // More than 10 requests at once (never at rest, where this run keeps 8 in flight): the status filter is ignored.
    const racy =
      (inner: Handler): Handler =>
      async (request) => {
        inFlight++;
        try {
          await sleep(1);
          if (inFlight > 10 && request.query.has('status')) {
            const query = new URLSearchParams(request.query);
            query.delete('status');
            return await inner({ ...request, query });
          }
          return await inner(request);
        } finally {
          inFlight--;
        }
      };
    const result = await load(racy, profile({ name: 'busy', kind: 'closed', connections: 24, durationSec: 2 }), 5000, 8);
    const filter = result.rules.find((r) => r.id === 'LIST-STATUS-FILTER')!;
    expect(filter.outcome).toBe('fail');
    const atRest = filter.checks.filter((c) => !c.id.startsWith('load.'));
    expect(atRest.every((c) => c.outcome === 'pass')).toBe(true);
    const underLoad = filter.checks.find((c) => c.id === 'load.busy.conformance')!;
    expect(underLoad.outcome).toBe('fail');
    expect(underLoad.findings[0]!.message).toMatch(/^Under load \(busy\): Expected only animals with status/);
    expect(underLoad.findings[0]!.evidence[0]!.response!.status).toBe(200);
    expect(result.load[0]!.conformance.failedRules).toContain('LIST-STATUS-FILTER');
  });

  it('a listing answered while a create is in flight may show the new animal before its 201 arrives: never an id given twice', async () => {
    // Newest first (the order is not shown), and each 201 leaves 30 ms after the animal was stored: listings sent in
    // between show it first. A correct store; the ids of its 201s are all distinct.
    const newestFirst = mutants.find((m) => m.name === 'newest-first')!.wrap;
    const slow201 =
      (inner: Handler): Handler =>
      async (request) => {
        const response = await inner(request);
        if (request.method === 'POST' && response.status === 201) await sleep(30);
        return response;
      };
    const result = await load(
      (inner) => slow201(newestFirst(inner)),
      profile({ name: 'inflight', kind: 'closed', connections: 16, durationSec: 2, mix: { listPets: 5, getPet: 0, createPet: 5 } }),
      5000,
      8,
    );
    const unique = result.rules.find((r) => r.id === 'CREATE-ID-UNIQUE')!;
    expect(unique.checks.flatMap((c) => c.findings).map((f) => f.message)).toEqual([]);
    expect(unique.outcome).toBe('pass');
    expect(result.load[0]!.conformance.sampled).toBeGreaterThan(0);
  });

  it("judges its samples as the functional phases do, through the run's door and within the run's read bound: a page past maxBodyBytes is not judged on bytes it did not read", async () => {
    // Only the load sender's list pages (it sends no user-agent; the functional client does) hold 4 KiB of whitespace,
    // then the page, then bytes that are not JSON: past a 2 KiB read bound, what was read can still begin JSON.
    const padded =
      (inner: Handler): Handler =>
      async (request) => {
        const answer = await inner(request);
        if (request.headers['user-agent'] !== undefined || request.method !== 'GET' || request.path !== '/pets' || answer.status !== 200)
          return answer;
        return { ...answer, body: `${' '.repeat(4096)}${stringifyJson(answer.body)} not JSON` };
      };
    const p = profile({ name: 'bound', kind: 'closed', connections: 2, durationSec: 1 });
    const result = await withServer({ wrap: padded }, (url) =>
      runConformance({
        baseUrl: url,
        apiKey: DISTINCTIVE_KEY,
        seed: 12,
        numRuns: 3,
        load: p.name,
        loadProfiles: { [p.name]: p },
        maxBodyBytes: 2048,
        only: ['LIST-RESPONSE', 'PET-SCHEMA'],
      }),
    );
    expect(result.load[0]!.conformance.sampled).toBeGreaterThan(0);
    expect(result.load[0]!.conformance.failedRules).toEqual([]);
    const underLoad = result.rules.find((r) => r.id === 'LIST-RESPONSE')!.checks.find((c) => c.id === 'load.bound.conformance')!;
    expect(underLoad.outcome).toBe('inconclusive');
  });

  it('refuses to start load against a target that does not authenticate', async () => {
    const open =
      (inner: Handler): Handler =>
      (request) =>
        inner({ ...request, headers: { ...request.headers, authorization: `Bearer ${DISTINCTIVE_KEY}` } });
    const result = await load(open, profile({ name: 'any', kind: 'closed' }));
    expect(result.load).toEqual([]);
    expect(result.skippedPhases).toContainEqual({
      phase: 'load',
      why: { code: 'load-refused', failed: ['AUTH-REQUIRED'] },
      reason: expect.stringMatching(/load not started: the target does not authenticate .*AUTH-REQUIRED/),
    });
  });

  it('stress: rising concurrency stops at the stage where a threshold breaks, and says where', async () => {
    let inFlight = 0;
    const crowded =
      (inner: Handler): Handler =>
      async (request) => {
        inFlight++;
        try {
          await sleep(inFlight * 10);
          return await inner(request);
        } finally {
          inFlight--;
        }
      };
    const result = await load(
      crowded,
      profile({
        name: 'ramp',
        kind: 'ramp',
        stages: [1, 2, 4, 8, 16, 32],
        stageSec: 1,
        thresholds: ['p50 < 60ms'],
      } as Partial<LoadProfile> & { kind: 'ramp' }),
    );
    const [run] = result.load;
    // A stage breaks only on a breach its generator could not have caused: one the machine starved goes on, and the test says so.
    await judgedUnlessBound(run, 'the ramp', () => {
      expect(run!.brokeAt).toBeDefined();
      expect(run!.brokeAt!.connections).toBeGreaterThan(1);
      expect(run!.brokeAt!.connections).toBeLessThan(32);
      expect(run!.stoppedEarly).toMatch(/a threshold broke at \d+ connections/);
      // Judged on the last stage that held; on a machine that starved the generator there, not measured (never a breach).
      const [held] = run!.thresholds;
      if (run!.generatorLoad.bound && held!.outcome === 'inconclusive')
        expect(held!.reason).toMatch(/not measured: the (load )?generator was bound/);
      else {
        expect(held!.outcome).toBe('pass');
        expect(held!.reason).toMatch(/the last stage that held/);
      }
    });
  });

  it('stops by itself within its bound when the target stops answering mid-profile', async () => {
    let served = 0;
    let silent = false;
    const tiring =
      (inner: Handler): Handler =>
      (request) => {
        if (silent || ++served > 2000) {
          silent = true;
          return new Promise(() => {});
        }
        return inner(request);
      };
    // That it stops by itself is what the test's own time bound holds (no wall-clock assertion: the machine is shared). A
    // deadline of 2 s leaves a busy machine's functional phase its answers; the silent load requests all meet it.
    const result = await load(
      tiring,
      profile({ name: 'tired', kind: 'closed', connections: 4, durationSec: 3, thresholds: ['errorRate < 0.1%'] }),
      2000,
    );
    const [run] = result.load;
    expect(run!.overall.errors.timeouts).toBeGreaterThan(0);
    expect(run!.thresholds[0]!.outcome).toBe('fail');
  });
});

/** A request as the raw front server read it. */
interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** What the front server does with a request once the load phase has started. */
type LoadBehaviour = (socket: Socket, request: RawRequest, answer: () => Promise<Buffer>, n: number) => void | Promise<void>;

/** The name a create body carries, or undefined. */
function nameOf(body: Buffer): string | undefined {
  try {
    const name = (JSON.parse(body.toString('utf8')) as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A raw `net` server in front of the reference: it reads each HTTP/1.1 request
 * itself and answers it with the reference's answer (Content-Length framed),
 * until the load phase has started (its set-up created its 20 animals). From
 * then on `behaviour` decides what each request gets: a hostile target that is
 * conformant at rest, so the load phase runs. `n` counts the load-phase requests.
 */
async function front(
  behaviour: LoadBehaviour,
  setupNames?: ReadonlySet<string>,
): Promise<{ url: string; loadRequests: () => number; close: () => Promise<void> }> {
  const reference = await startReference({ apiKey: DISTINCTIVE_KEY });
  const upstream = new Pool(new URL(reference.url).origin, { connections: 16 });
  let setupAnimals = 0;
  let load = 0;
  const answerOf = async (request: RawRequest): Promise<Buffer> => {
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length', 'keep-alive'].includes(name)),
    );
    const response = await upstream.request({
      method: request.method as 'GET',
      path: request.path,
      headers,
      body: request.body.length > 0 ? request.body : null,
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    let head = `HTTP/1.1 ${response.statusCode} ${STATUS_CODES[response.statusCode] ?? 'Status'}\r\n`;
    for (const [name, value] of Object.entries(response.headers)) {
      if (['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name) || value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) head += `${name}: ${v}\r\n`;
    }
    return Buffer.concat([Buffer.from(`${head}content-length: ${body.length}\r\n\r\n`, 'latin1'), body]);
  };
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let buffer = Buffer.alloc(0);
    let busy = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [line = '', ...fields] = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers: Record<string, string> = {};
        for (const field of fields) {
          const colon = field.indexOf(':');
          headers[field.slice(0, colon).trim().toLowerCase()] = field.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const [method = 'GET', path = '/'] = line.split(' ');
        const request: RawRequest = { method, path, headers, body: buffer.subarray(end + 4, end + 4 + length) };
        buffer = buffer.subarray(end + 4 + length);
        // One request at a time per connection, in order, as HTTP/1.1 requires.
        busy = busy.then(async () => {
          if (socket.destroyed) return;
          if (setupAnimals >= LOAD_SETUP_ANIMALS) return behaviour(socket, request, () => answerOf(request), ++load);
          const answer = await answerOf(request);
          // A plain run names them `<prefix>load <i>`; a certification's natural names are known from its seed alone, and
          // one of them may also name an animal of the functional phases: the set-up is that many such creates in a row.
          if (request.method === 'POST')
            setupAnimals = (
              setupNames ? setupNames.has(nameOf(request.body) ?? '') : /"name":"[^"]*load \d+"/.test(request.body.toString())
            )
              ? setupAnimals + 1
              : 0;
          if (!socket.destroyed) socket.write(answer);
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    loadRequests: () => load,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await upstream.destroy();
      await reference.close();
    },
  };
}

/** Runs the CLI (main(), in this process) against `url` with a small closed-loop profile; returns the exit code, the output and the report. */
async function cliLoad(url: string, timeoutMs = 1000): Promise<{ code: number | null; stdout: string; report: ConformanceResult }> {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'petstore-conformance.config.json'),
    JSON.stringify({
      profiles: {
        tiny: {
          kind: 'closed',
          connections: 2,
          durationSec: 1,
          maxRequests: 5000,
          mix: MIX,
          thresholds: ['errorRate < 5%', 'p99 < 1000ms'],
        },
      },
    }),
  );
  const ran = await runInProcess(
    ['--base-url', url, '--load', 'tiny', '--num-runs', '5', '--timeout', String(timeoutMs), '--report-dir', join(dir, 'r')],
    { cwd: dir, env: { PETSTORE_API_KEY: DISTINCTIVE_KEY }, timeoutMs: 90_000 },
  );
  return {
    code: ran.code,
    stdout: ran.stdout,
    report: JSON.parse(readFileSync(join(dir, 'r', 'report.json'), 'utf8')) as ConformanceResult,
  };
}

describe('load phase: only what was measured counts', () => {
  const cases: [string, LoadBehaviour][] = [
    ['accepts the load connections and never answers', () => {}],
    ['answers bytes that are not HTTP', (socket) => void socket.end('SSH-2.0-OpenSSH_9.2\r\n\u0000\u0001garbage\r\n\r\n')],
    [
      'answers HTTP/1.0 without a length and never ends the body',
      (socket) => void socket.write('HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n['),
    ],
  ];
  for (const [what, behaviour] of cases) {
    it(`a target that ${what} fails the load phase (exit 3), never "within thresholds"`, async () => {
      const target = await front(behaviour);
      try {
        const { code, stdout, report } = await cliLoad(target.url);
        expect(target.loadRequests()).toBeGreaterThan(0);
        expect(code).toBe(3);
        const [load] = report.load;
        expect(report.summary.verdict).toBe('conformant');
        expect(report.summary.thresholds).toBe('fail');
        expect(load!.overall.requests).toBe(0);
        expect(load!.answered).toEqual({
          answered: 0,
          due: load!.overall.errors.timeouts + load!.overall.errors.socketErrors,
          generatorAware: true,
        });
        expect(load!.answered!.due).toBeGreaterThan(0);
        const answered = load!.thresholds.find((t) => t.metric === 'answered')!;
        expect(answered).toMatchObject({
          id: 'LOAD-TINY-ALL-ANSWERED',
          outcome: 'fail',
          measured: 0,
          reason: `only 0 of ${load!.answered!.due} requests answered`,
        });
        // Nothing answered: no threshold on all requests holds, latency included.
        expect(load!.thresholds.map((t) => [t.id, t.outcome])).toEqual([
          ['LOAD-TINY-ALL-ERRORRATE', 'fail'],
          ['LOAD-TINY-ALL-P99', 'fail'],
          ['LOAD-TINY-ALL-ANSWERED', 'fail'],
        ]);
        expect(load!.thresholds[1]!.reason).toMatch(/^not measured: no request was answered/);
        expect(stdout).toMatch(/✗ LOAD-TINY-ALL-ANSWERED: answered >= 90%, measured 0% \(only 0 of \d+ requests answered\)/);
        // What could not be computed has no figure: an error rate of no answer at all is not 0%.
        expect(stdout).toMatch(/✗ LOAD-TINY-ALL-ERRORRATE: errorRate < 5%, not measured: no request was answered \(\d+ sent: /);
        expect(stdout).not.toMatch(/measured 0% \(not measured/);
        expect(stdout).not.toMatch(/within/);
      } finally {
        await target.close();
      }
    }, 120_000);
  }

  it('a target that answers HTTP/1.0 without a length and closes: each answer ends with the connection and is measured', async () => {
    const target = await front(async (socket, _request, answer) => {
      const [head = '', ...rest] = (await answer()).toString('latin1').split('\r\n\r\n');
      const fields = head
        .split('\r\n')
        .slice(1)
        .filter((f) => !/^content-length:/i.test(f));
      socket.end(
        Buffer.from(
          `HTTP/1.0 ${head.split(' ').slice(1).join(' ').split('\r\n')[0]}\r\n${fields.join('\r\n')}\r\n\r\n${rest.join('\r\n\r\n')}`,
          'latin1',
        ),
      );
    });
    try {
      const { code, report } = await cliLoad(target.url);
      const [load] = report.load;
      expect(load!.overall.requests).toBeGreaterThan(20);
      expect(load!.answered!.answered).toBe(load!.overall.requests);
      expect(load!.thresholds.map((t) => [t.id, t.outcome])).toEqual([
        ['LOAD-TINY-ALL-ERRORRATE', 'pass'],
        ['LOAD-TINY-ALL-P99', 'pass'],
        ['LOAD-TINY-ALL-ANSWERED', 'pass'],
      ]);
      expect(load!.overall.latencyMs.p99).toBeGreaterThan(0);
      expect(load!.conformance.sampled).toBeGreaterThan(5);
      expect(load!.conformance.failedRules).toEqual([]);
      expect(code).toBe(0);
    } finally {
      await target.close();
    }
  }, 120_000);

  it('certify refuses a certificate to a target that never answers the load profile, and verify agrees', async () => {
    // The library's certify, given a seed (the command line never takes one), so that the target knows the set-up animals' natural names.
    const seed = 2;
    const target = await front(
      () => {},
      new Set(Array.from({ length: LOAD_SETUP_ANIMALS }, (_, i) => naturalNamesFor(seed, DISTINCTIVE_KEY).name(`load ${i}`))),
    );
    const dir = tempDir();
    try {
      const bundle = join(dir, 'silent.tar.gz');
      const { manifest, bundle: bytes } = await certify({
        baseUrl: target.url,
        apiKey: DISTINCTIVE_KEY,
        product: { name: 'Silent Store', version: '1.0.0', contact: 'ops@silent.example' },
        seed,
        timeoutMs: 1000,
      });
      writeFileSync(bundle, bytes);
      expect(manifest.certified).toBe(false);
      expect(manifest.reasons.join('\n')).toMatch(/load threshold\(s\) breached or not measured: .*only 0 of \d+ requests answered/);
      const verified = await runInProcess(['verify', bundle]);
      expect(verified.code, verified.stdout).toBe(0);
      expect(verified.stdout).toMatch(/the bundle's decision: NOT CERTIFIED$/m);
    } finally {
      await target.close();
    }
  });
});

describe('load phase: every answer stays with its request', () => {
  const judgedUnderLoad = (result: ConformanceResult) =>
    result.rules.flatMap((r) =>
      r.checks.filter((c) => c.id.startsWith('load.')).flatMap((c) => c.findings.map((f) => `${r.id}: ${f.message}`)),
    );

  it('103 Early Hints before every answer: skipped, every request answered, no failure invented', async () => {
    const target = await front(async (socket, _request, answer) => {
      const body = await answer();
      socket.write('HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload; as=style\r\n\r\n');
      socket.write(body);
    });
    try {
      const result = await runConformance({
        baseUrl: target.url,
        apiKey: DISTINCTIVE_KEY,
        seed: 12,
        numRuns: 5,
        timeoutMs: 5000,
        load: 'hints',
        loadProfiles: { hints: profile({ name: 'hints', kind: 'closed', connections: 8, durationSec: 2, thresholds: ['errorRate < 1%'] }) },
      });
      const [load] = result.load;
      expect(target.loadRequests()).toBeGreaterThan(100);
      expect(load!.overall.errors).toEqual({ non2xx: 0, timeouts: 0, socketErrors: 0 });
      expect(load!.answered!.answered).toBe(load!.answered!.due);
      expect(load!.conformance.sampled).toBeGreaterThan(20);
      expect(judgedUnderLoad(result)).toEqual([]);
      expect(load!.conformance.failedRules).toEqual([]);
      expect(result.summary.verdict).toBe('conformant');
      expect(result.summary.thresholds).toBe('pass');
    } finally {
      await target.close();
    }
  }, 120_000);

  it('an unsolicited 100 Continue before every answer (sent apart, or in one write with the answer): skipped, every request answered, no failure invented', async () => {
    const target = await front(async (socket, _request, answer, n) => {
      const body = await answer();
      if (n % 2 === 0) {
        socket.write('HTTP/1.1 100 Continue\r\n\r\n');
        socket.write(body);
      } else {
        socket.write(Buffer.concat([Buffer.from('HTTP/1.1 100 Continue\r\nx-note: interim\r\n\r\nHTTP/1.1 100\r\n\r\n'), body]));
      }
    });
    try {
      const result = await runConformance({
        baseUrl: target.url,
        apiKey: DISTINCTIVE_KEY,
        seed: 12,
        numRuns: 5,
        timeoutMs: 5000,
        load: 'continue',
        loadProfiles: {
          continue: profile({ name: 'continue', kind: 'closed', connections: 4, durationSec: 1, thresholds: ['errorRate < 1%'] }),
        },
      });
      const [load] = result.load;
      expect(target.loadRequests()).toBeGreaterThan(50);
      expect(load!.overall.errors).toEqual({ non2xx: 0, timeouts: 0, socketErrors: 0 });
      expect(load!.answered!.answered).toBe(load!.answered!.due);
      expect(judgedUnderLoad(result)).toEqual([]);
      expect(load!.conformance.failedRules).toEqual([]);
      expect(result.summary.verdict).toBe('conformant');
    } finally {
      await target.close();
    }
  }, 120_000);

  it('2% of load requests have their connection reset: counted as socket errors, the rest answered, no failure invented', async () => {
    const target = await front(async (socket, _request, answer, n) => {
      if (n % 50 === 0) return void socket.resetAndDestroy();
      const body = await answer();
      if (!socket.destroyed) socket.write(body);
    });
    try {
      const result = await runConformance({
        baseUrl: target.url,
        apiKey: DISTINCTIVE_KEY,
        seed: 12,
        numRuns: 5,
        timeoutMs: 5000,
        load: 'resets',
        loadProfiles: {
          resets: profile({ name: 'resets', kind: 'closed', connections: 8, durationSec: 2, thresholds: ['errorRate < 5%'] }),
        },
      });
      const [load] = result.load;
      // Enough for a few resets (one in 50), however busy the machine.
      expect(target.loadRequests()).toBeGreaterThan(150);
      expect(load!.overall.errors.socketErrors).toBeGreaterThan(0);
      expect(load!.overall.errors.socketErrors).toBeLessThanOrEqual(Math.ceil(target.loadRequests() / 50));
      expect(load!.overall.errors.non2xx).toBe(0);
      expect(load!.overall.errors.timeouts).toBe(0);
      expect(load!.conformance.sampled).toBeGreaterThan(20);
      expect(judgedUnderLoad(result)).toEqual([]);
      expect(load!.conformance.failedRules).toEqual([]);
      expect(result.summary.verdict).toBe('conformant');
      expect(load!.thresholds.map((t) => [t.id, t.outcome])).toEqual([
        ['LOAD-RESETS-ALL-ERRORRATE', 'pass'],
        ['LOAD-RESETS-ALL-ANSWERED', 'pass'],
      ]);
    } finally {
      await target.close();
    }
  }, 120_000);
});

describe('load phase over https: TLS verified as in the functional phase', () => {
  const { dir, tls } = selfSignedCert();
  // A certificate refused fails every request; a machine too busy to answer each request in time fails a few (the
  // threshold tells the two apart without asking the machine to keep pace).
  const tiny = { kind: 'closed', connections: 2, durationSec: 1, maxRequests: 5000, mix: MIX, thresholds: ['errorRate < 50%'] };
  // The fixed-rate sender once ignored --ca (100 of 100 requests failed): both senders are run.
  const paced = { kind: 'rate', rate: 100, connections: 4, durationSec: 1, maxRequests: 5000, mix: MIX, thresholds: ['errorRate < 50%'] };

  it.each([
    ['closed loop', tiny],
    ['fixed rate', paced],
  ])(
    'with --ca the load phase (%s) is answered (exit 0); the report says the certificate was verified',
    async (_kind, tinyProfile) => {
      await withServer({ tls }, async (url) => {
        const work = tempDir();
        writeFileSync(join(work, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { tiny: tinyProfile } }));
        const ran = await runInProcess(
          ['--base-url', url, '--ca', join(dir, 'cert.pem'), '--load', 'tiny', '--num-runs', '3', '--report-dir', join(work, 'r')],
          { cwd: work, env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } },
        );
        const report = JSON.parse(readFileSync(join(work, 'r', 'report.json'), 'utf8')) as ConformanceResult;
        expect(ran.code).toBe(0);
        expect(report.options).toMatchObject({ insecure: false, customCa: true });
        const [load] = report.load;
        expect(load!.overall.requests).toBeGreaterThan(20);
        expect(load!.overall.errors.socketErrors).toBe(0);
        expect(load!.answered!.answered).toBeGreaterThan(load!.answered!.due / 2);
      });
    },
    60_000,
  );

  it('the load sender refuses a certificate nobody vouches for: socket errors, not one request reaches the target; --insecure alone accepts it', async () => {
    let handled = 0;
    const counting =
      (inner: Handler): Handler =>
      (request) => {
        handled++;
        return inner(request);
      };
    await withServer({ tls, wrap: counting }, async (url) => {
      const p = profile({ name: 'tls', kind: 'closed', connections: 2, durationSec: 1, thresholds: ['errorRate < 1%'] });
      const deps = {
        baseUrl: url,
        authorization: `Bearer ${DISTINCTIVE_KEY}`,
        requests: buildMix({ mix: MIX, petIds: [], prefix: 'pctest-tls ', seed: 1, authProbeShare: 0 }),
        timeoutMs: 2000,
        sample: () => false,
        judge: () => {},
        emit: () => {},
      };
      const refused = await runProfile(p, validateProfile(p), deps);
      expect(handled).toBe(0);
      expect(refused.overall.requests).toBe(0);
      expect(refused.overall.errors.socketErrors).toBeGreaterThan(0);
      expect(refused.answered).toEqual({ answered: 0, due: refused.overall.errors.socketErrors, generatorAware: true });
      expect(refused.thresholds.every((t) => t.outcome === 'fail')).toBe(true);

      const trusted = await runProfile(p, validateProfile(p), { ...deps, connection: { ca: tls.cert } });
      expect(trusted.overall.requests).toBeGreaterThan(20);
      expect(trusted.overall.errors.socketErrors).toBe(0);
      const insecure = await runProfile(p, validateProfile(p), { ...deps, connection: { insecure: true } });
      expect(insecure.overall.requests).toBeGreaterThan(20);
      expect(handled).toBe(trusted.overall.requests + insecure.overall.requests);
    });
  }, 60_000);
});

/**
 * A closed-loop profile of `options.connections` against a raw server that calls `onData` with each request's socket
 * (closed after): the load deadlines' set-up, `timeoutMs` given.
 */
async function profileAgainstRaw(
  onData: (socket: Socket) => void,
  options: { name: string; connections: number; mix: typeof MIX; timeoutMs: number; fingerprints?: readonly ['curl'] },
) {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('data', () => onData(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const p = profile({ name: options.name, kind: 'closed', connections: options.connections, durationSec: 1, thresholds: [] });
    return await runProfile(p, [], {
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      authorization: 'Bearer x',
      requests: buildMix({ mix: options.mix, petIds: [], prefix: `pctest-${options.name} `, seed: 1, authProbeShare: 0 }),
      timeoutMs: options.timeoutMs,
      ...(options.fingerprints ? { fingerprints: options.fingerprints } : {}),
      sample: () => false,
      judge: () => {},
      emit: () => {},
    });
  } finally {
    for (const socket of sockets) socket.destroy();
    server.close();
  }
}

describe('load phase deadlines', () => {
  it('a body dripping in slower than the deadline times out: the whole exchange has the deadline, from when the request was written', async () => {
    const result = await profileAgainstRaw(
      (socket) => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n[');
        const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write(' ')), 100);
      },
      { name: 'drip', connections: 2, mix: MIX, timeoutMs: 500 },
    );
    // Two rounds of 500 ms deadlines fit in the profile's second; the second round ends on its deadline, after the profile.
    // Without the deadline a drip of 1000 bytes, one every 100 ms, would hold the profile 100 s: past this test's timeout.
    expect(result.overall.requests).toBe(0);
    expect(result.overall.errors.timeouts).toBeGreaterThanOrEqual(4);
    expect(result.answered).toEqual({ answered: 0, due: result.overall.errors.timeouts, generatorAware: true });
  });
});

describe('load phase deadlines, the generator stalled', () => {
  // Raw lanes (the tool's own shape) and undici's (another client's shape).
  it.each([
    ['its own lanes', undefined],
    ["undici's lanes", ['curl'] as const],
  ])(
    'an answer that came while the generator was stalled past its deadline is read as an answer, never a timeout of the target (%s)',
    async (_, fingerprints) => {
      // Each answer is written whole, then this process (generator and server alike) is stalled past the deadline: the
      // answer waits in the generator's socket, as it does when the machine does not schedule the generator.
      const stall = new Int32Array(new SharedArrayBuffer(4));
      const body = '[]';
      const result = await profileAgainstRaw(
        (socket) => {
          socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
          Atomics.wait(stall, 0, 0, 300);
        },
        {
          name: 'stall',
          connections: 1,
          mix: { listPets: 1, getPet: 0, createPet: 0 },
          timeoutMs: 100,
          ...(fingerprints ? { fingerprints } : {}),
        },
      );
      // Before: the sweep's timer ran first when the loop woke, and every request was a timeout.
      expect(result.overall.errors.timeouts).toBe(0);
      expect(result.overall.requests).toBeGreaterThanOrEqual(2);
    },
  );
});

describe('thresholds are met only when measured', () => {
  const figures = (requests: number, timeouts = 0, latencyMs = 5) => ({
    requests,
    throughput: requests,
    latencyMs: { p50: requests ? latencyMs : 0, p90: 0, p95: 0, p97_5: 0, p99: requests ? latencyMs : 0, p99_9: 0, max: 0, mean: 0 },
    errors: { non2xx: 0, timeouts, socketErrors: 0 },
    errorRate: requests + timeouts === 0 ? 0 : timeouts / (requests + timeouts),
    distribution: [],
  });
  const p = profile({
    name: 'm',
    kind: 'closed',
    thresholds: [
      'p99 < 100ms',
      'getPet.p99 < 100ms',
      'createPet.p99 < 100ms',
      'createPet.errorRate < 50%',
      'throughput < 1000000/s',
      'drift < 2x',
    ],
  });

  it('an operation with no request is inconclusive; one with requests but no answer, an all-threshold with nothing answered, a drift never measured fail', () => {
    const answered = evaluate(
      'm',
      validateProfile(p),
      { overall: figures(10, 3), operations: { listPets: figures(10), getPet: figures(0), createPet: figures(0, 3) } },
      undefined,
    );
    expect(answered.map((t) => [t.expression, t.outcome])).toEqual([
      ['p99 < 100ms', 'pass'],
      ['getPet.p99 < 100ms', 'inconclusive'],
      ['createPet.p99 < 100ms', 'fail'],
      ['createPet.errorRate < 50%', 'fail'],
      ['throughput < 1000000/s', 'pass'],
      ['drift < 2x', 'fail'],
    ]);
    expect(answered[1]!.reason).toBe('no getPet request was sent');
    expect(answered[2]!.reason).toBe('not measured: no createPet request was answered (3 sent: 3 timeouts, 0 socket errors)');
    const nothing = evaluate(
      'm',
      validateProfile(p),
      { overall: figures(0, 3), operations: { listPets: figures(0), getPet: figures(0), createPet: figures(0, 3) } },
      undefined,
    );
    expect(nothing.find((t) => t.expression === 'throughput < 1000000/s')).toMatchObject({
      outcome: 'fail',
      reason: 'not measured: no request was answered (3 sent: 3 timeouts, 0 socket errors)',
    });
  });

  it('answered >= 90% of the requests due', () => {
    expect(answeredThreshold('m', 90, 100)).toMatchObject({
      id: 'LOAD-M-ALL-ANSWERED',
      outcome: 'pass',
      measured: 90,
      reason: '90 of 100 requests answered',
    });
    expect(answeredThreshold('m', 899, 1000)).toMatchObject({
      outcome: 'fail',
      measured: 89.9,
      reason: 'only 899 of 1000 requests answered',
    });
    expect(answeredThreshold('m', 0, 0)).toMatchObject({ outcome: 'fail', reason: 'not measured: no request was due' });
  });
});
