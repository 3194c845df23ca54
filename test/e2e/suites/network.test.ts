/**
 * What real targets need from the network, in every phase: a proxy (--proxy,
 * HTTP_PROXY/HTTPS_PROXY, NO_PROXY), extra headers (-H, secret ones redacted),
 * a client certificate (mTLS), TLS verified as asked by `replay` too, and
 * whole runs against targets that send `100 Continue` before every answer or
 * gzip-code their bodies.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { getEventListeners } from 'node:events';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Pool } from 'undici';
import { buildConnection } from '../../../cli/connection.js';
import { HttpClient } from '../../../core/http.js';
import { TUNNEL_ATTEMPTS } from '../../../core/tunnel.js';
import { buildMix } from '../../../suites/load/mix.js';
import { type LoadProfile, validateProfile } from '../../../suites/load/profiles.js';
import { runProfile } from '../../../suites/load/run.js';
import { Lanes, PROXY_FAILURES_IN_A_ROW } from '../../../suites/load/sender.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../../../reference/handler.js';
import { type RunningServer, startReference } from '../../../reference/server.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult } from '../../../result/model.js';
import { CONTRACT_API_KEY, mutants } from '../../fixtures/mutants/index.js';
import { BIN, DISTINCTIVE_KEY, openTunnel, reportErrors, runInProcess, tempDir, TINY_PROFILE } from '../../helpers.js';

const env = { PETSTORE_API_KEY: DISTINCTIVE_KEY };
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function reference(options: Parameters<typeof startReference>[0] = { apiKey: DISTINCTIVE_KEY }): Promise<RunningServer> {
  const server = await startReference(options);
  closers.push(() => server.close());
  return server;
}

async function listen(server: Server): Promise<number> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const readJson = (dir: string) => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceResult;
const tiny = TINY_PROFILE;

/**
 * A loopback HTTP proxy: CONNECT tunnels (to `route(host)`, default the host asked for) and plain forwarding. Counts
 * what it carried.
 */
async function proxy(route: (hostPort: string) => string = (h) => h): Promise<{ url: string; connects: string[]; forwarded: string[] }> {
  const seen = { connects: [] as string[], forwarded: [] as string[] };
  const server = createHttpServer((req, res) => {
    seen.forwarded.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '/');
    const [host, port] = route(target.host).split(':');
    const upstream = httpRequest(
      { host, port: Number(port), method: req.method, path: `${target.pathname}${target.search}`, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.connects.push(req.url ?? '');
    const [host, port] = route(req.url ?? '').split(':');
    openTunnel(client, head, host, Number(port));
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    ...seen,
    get connects() {
      return seen.connects;
    },
    get forwarded() {
      return seen.forwarded;
    },
  };
}

/**
 * A loopback "proxy" that reads a CONNECT request, holds it `holdMs`, then closes the connection (`how`: with a
 * FIN, or a reset), without an answer or after `answer`. Counts the CONNECTs it read.
 */
async function closingProxy(
  holdMs = 0,
  answer?: string,
  how: 'close' | 'reset' = 'close',
): Promise<{ url: string; connects: () => number }> {
  let connects = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createNetServer((socket) => {
    let head = '';
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      // The whole request head read first: a socket closed with bytes unread is reset, not closed.
      if (!head.includes('\r\n\r\n')) return;
      if (head.startsWith('CONNECT ')) connects++;
      head = '';
      if (answer) socket.write(answer);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (how === 'reset') socket.resetAndDestroy();
        else socket.destroy();
      }, holdMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connects: () => connects };
}

/** Self-signed certificates made with openssl: a CA, a server certificate for 127.0.0.1 and petstore.invalid, a client certificate. */
function certificates(): { dir: string; ca: string; server: { key: string; cert: string } } {
  const dir = tempDir();
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=pc-test-ca');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:petstore.invalid\n');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/CN=pc-test-client');
  run('x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'client.pem', '-days', '2');
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return { dir, ca: read('ca.pem'), server: { key: read('server.key'), cert: read('server.pem') } };
}

describe('proxies: --proxy, HTTP_PROXY/HTTPS_PROXY, NO_PROXY (every phase)', () => {
  let target: RunningServer;
  let work: string;
  beforeAll(async () => {
    target = await reference();
    work = tempDir();
    writeFileSync(join(work, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { tiny } }));
  });

  it('--proxy: a target reachable only through the proxy is tested in full, functional and load phases', async () => {
    // petstore.invalid resolves nowhere: only the proxy knows where it is.
    const p = await proxy(() => `127.0.0.1:${target.port}`);
    const dir = join(work, 'flag');
    // Warnings this process emits meanwhile: a listener left on the run's signal per tunnel made one on every proxied run.
    const warnings: string[] = [];
    const warned = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', warned);
    const ran = await runInProcess(
      ['--base-url', 'http://petstore.invalid/v1', '--proxy', p.url, '--load', 'tiny', '--num-runs', '3', '--report-dir', dir],
      { cwd: work, env },
    ).finally(() => setImmediate(() => process.off('warning', warned)));
    expect(ran.code, ran.stderr).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    expect(p.connects.length).toBeGreaterThan(2);
    expect(new Set(p.connects)).toEqual(new Set(['petstore.invalid:80']));
    const report = readJson(dir);
    expect(report.options.connection?.proxy).toBe(p.url);
    expect(report.load[0]!.overall.requests).toBeGreaterThan(20);
    expect(report.load[0]!.overall.errors.socketErrors).toBe(0);
    // Through a proxy the lanes are undici's, and the report says so.
    expect(report.load[0]!.generator).toBe('undici');
    expect(reportErrors(report)).toEqual([]);
  });

  it('HTTP_PROXY is used; NO_PROXY matching 127.0.0.1 goes around it', async () => {
    const target = await reference();
    const p = await proxy();
    const via = await runInProcess(['--base-url', target.url, '--num-runs', '3', '--report-dir', join(work, 'env')], {
      env: { ...env, HTTP_PROXY: p.url, NO_PROXY: '' },
    });
    expect(via.code, via.stderr).toBe(0);
    expect(p.connects.length + p.forwarded.length).toBeGreaterThan(0);
    expect(readJson(join(work, 'env')).options.connection?.proxy).toBe(`from the environment: HTTP_PROXY=${p.url}`);
    const before = p.connects.length + p.forwarded.length;
    const around = await runInProcess(['--base-url', target.url, '--num-runs', '3', '--report-dir', join(work, 'around')], {
      env: { ...env, http_proxy: p.url, HTTP_PROXY: p.url, NO_PROXY: 'localhost,127.0.0.1', no_proxy: 'localhost,127.0.0.1' },
    });
    expect(around.code, around.stderr).toBe(0);
    expect(p.connects.length + p.forwarded.length).toBe(before);
  });

  it("HTTPS_PROXY for an https target: TLS through the tunnel, verified against the target's name with --ca", async () => {
    const certs = certificates();
    const secure = await reference({ apiKey: DISTINCTIVE_KEY, tls: certs.server });
    const p = await proxy(() => `127.0.0.1:${secure.port}`);
    const ran = await runInProcess(
      [
        '--base-url',
        'https://petstore.invalid/v1',
        '--ca',
        join(certs.dir, 'ca.pem'),
        '--num-runs',
        '3',
        '--report-dir',
        join(work, 'https'),
      ],
      { env: { ...env, HTTPS_PROXY: p.url } },
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(new Set(p.connects)).toEqual(new Set(['petstore.invalid:443']));
    // Without the CA, the certificate is refused through the tunnel too: exit 2, one line.
    const refused = await runInProcess(
      ['--base-url', 'https://petstore.invalid/v1', '--num-runs', '3', '--report-dir', join(work, 'https-refused')],
      { env: { ...env, HTTPS_PROXY: p.url } },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr.split('\n').filter((l) => l.startsWith('petstore-conformance: error:'))).toEqual([
      expect.stringMatching(/TLS error talking to petstore\.invalid/),
    ]);
  });

  it('a proxy that closes the connection after reading CONNECT: a few CONNECTs, then exit 2, one line naming the proxy without its credentials', async () => {
    for (const base of ['https://petstore.invalid/v1', 'http://petstore.invalid/v1']) {
      const p = await closingProxy();
      const withCredentials = p.url.replace('//', '//user:hunter2-proxy-pw@');
      const ran = await runInProcess(
        ['--base-url', base, '--proxy', withCredentials, '--num-runs', '3', '--report-dir', join(work, `closing-${base.slice(0, 5)}`)],
        { env, timeoutMs: 30_000 },
      );
      expect(ran.code, ran.stderr).toBe(2);
      const lines = ran.stderr.split('\n').filter((l) => l.startsWith('petstore-conformance: error:'));
      expect(lines).toEqual([
        `petstore-conformance: error: the proxy ${p.url} closed the connection on CONNECT, ${TUNNEL_ATTEMPTS} times in a row (UND_ERR_SOCKET): no tunnel to petstore.invalid:${base.startsWith('https') ? 443 : 80}`,
      ]);
      expect(ran.stdout + ran.stderr).not.toContain('hunter2-proxy-pw');
      // The preflight's one request: its tunnel tried TUNNEL_ATTEMPTS times, and not sent again.
      expect(p.connects()).toBe(TUNNEL_ATTEMPTS);
    }
  });

  it('a proxy that answers CONNECT with 403: one CONNECT, exit 2, one line saying the proxy refused the tunnel', async () => {
    const p = await closingProxy(0, 'HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
    const ran = await runInProcess(
      ['--base-url', 'https://petstore.invalid/v1', '--proxy', p.url, '--num-runs', '3', '--report-dir', join(work, 'refused-tunnel')],
      { env, timeoutMs: 30_000 },
    );
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stderr.split('\n').filter((l) => l.startsWith('petstore-conformance: error:'))).toEqual([
      `petstore-conformance: error: the proxy ${p.url} refused the tunnel to petstore.invalid:443: it answered CONNECT with 403`,
    ]);
    expect(p.connects()).toBe(1);
  });

  it('a SIGTERM while a tunnel is being tried stops the run at once: no CONNECT after it, exit 143', async () => {
    // Each CONNECT is held 25 s before the close: the run must end on the signal, not on the proxy's close, long before
    // the test's own bound (the hold is far longer than any pause of a busy machine between the signal and its handling).
    const p = await closingProxy(25_000);
    const child = spawn(
      process.execPath,
      [BIN, '--base-url', 'https://petstore.invalid/v1', '--proxy', p.url, '--load', 'none', '--report-dir', join(work, 'closing-term')],
      { cwd: work, env: { ...process.env, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    for (let i = 0; i < 600 && p.connects() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(p.connects()).toBe(1);
    child.kill('SIGTERM');
    const code = await ended;
    clearTimeout(killer);
    expect(code, stderr).toBe(143);
    expect(stderr).toMatch(/SIGTERM: stopping/);
    expect(p.connects()).toBe(1);
  });

  it.each([
    { kind: 'closed' as const, connections: 2 },
    { kind: 'rate' as const, connections: 2, rate: 50 },
  ])(
    'a $kind load profile through a proxy that closes every CONNECT: it stops opening tunnels after a few failed in a row, and says the proxy failed, not the target',
    async (shape) => {
      const p = await closingProxy();
      const profile = {
        name: 'closing',
        description: 'through a closing proxy',
        durationSec: 10,
        maxRequests: 5000,
        mix: { listPets: 1, getPet: 0, createPet: 0 },
        thresholds: ['errorRate < 1%', 'p99 < 500ms'],
        ...shape,
      } satisfies LoadProfile;
      const result = await runProfile(profile, validateProfile(profile), {
        baseUrl: 'http://petstore.invalid/v1',
        authorization: 'Bearer x',
        requests: buildMix({ mix: profile.mix, petIds: [], prefix: 'pctest-proxy ', seed: 1, authProbeShare: 0 }),
        timeoutMs: 5_000,
        connection: { proxy: { kind: 'url', url: p.url } },
        sample: () => false,
        judge: () => {},
        emit: () => {},
      });
      // The last tunnels: those failing in a row, and one more on each other lane at most.
      expect(p.connects()).toBeLessThanOrEqual((PROXY_FAILURES_IN_A_ROW + profile.connections - 1) * TUNNEL_ATTEMPTS);
      const why = `the proxy failed ${PROXY_FAILURES_IN_A_ROW} tunnels in a row, so no more were opened (the last: the proxy ${p.url} closed the connection on CONNECT, ${TUNNEL_ATTEMPTS} times in a row (UND_ERR_SOCKET): no tunnel to petstore.invalid:80)`;
      expect(result.stoppedEarly).toBe(why);
      expect(result.thresholds.map((t) => [t.expression, t.outcome, t.reason])).toEqual(
        [...profile.thresholds, 'answered >= 90%'].map((e) => [e, 'fail', `not measured: ${why}`]),
      );
    },
  );

  it("the load phase's lanes through such a proxy: each request fails after a few CONNECTs, the lane goes on", async () => {
    const p = await closingProxy();
    const lanes = new Lanes(
      { baseUrl: 'http://petstore.invalid/v1', timeoutMs: 5_000, connection: { proxy: { kind: 'url', url: p.url } } },
      1,
    );
    try {
      const lane = lanes.all[0]!;
      const prepared = {
        request: { operation: 'listPets' as const, method: 'GET' as const, path: '/pets', authProbe: false },
        options: { origin: 'http://petstore.invalid', method: 'GET' as const, path: '/v1/pets', headers: {} },
      };
      for (let i = 1; i <= 2; i++) {
        const ended = await new Promise<string>((resolve) => {
          lane.user = { answered: (status) => resolve(`answered ${status}`), failed: (kind) => resolve(kind) };
          lane.send(prepared, false);
          setTimeout(() => resolve('still waiting'), 10_000).unref();
        });
        expect(ended).toBe('socketErrors');
        expect(p.connects()).toBe(i * TUNNEL_ATTEMPTS);
      }
    } finally {
      await lanes.close();
    }
  });

  it('a proxy that refuses connections (--proxy, HTTP_PROXY): exit 2, one line saying the proxy refused, never the target', async () => {
    const refusing = 'http://user:hunter2-proxy-pw@127.0.0.1:9';
    for (const [name, how] of [
      ['flag', { args: ['--proxy', refusing], env: {} }],
      ['env', { args: [], env: { HTTP_PROXY: refusing, NO_PROXY: '' } }],
    ] as const) {
      const dir = join(work, `refused-${name}`);
      const ran = await runInProcess(['--base-url', target.url, ...how.args, '--num-runs', '3', '--report-dir', dir], {
        env: { ...env, ...how.env },
      });
      expect(ran.code).toBe(2);
      const lines = ran.stderr.split('\n').filter((l) => l.startsWith('petstore-conformance: error:'));
      expect(lines).toEqual([
        `petstore-conformance: error: the proxy http://127.0.0.1:9 refused the connection (ECONNREFUSED): no tunnel to 127.0.0.1:${target.port}`,
      ]);
      expect(ran.stdout + ran.stderr).not.toContain('hunter2-proxy-pw');
      for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file), 'utf8')).not.toContain('hunter2-proxy-pw');
    }
  });

  /** Runs with `bad` as --proxy, then as HTTP_PROXY: each exits 2 with one line `said` matches (given how it came), `secret` in no output. */
  async function refusesProxy(bad: string, said: (given: '--proxy' | 'HTTP_PROXY') => RegExp, secret: string): Promise<void> {
    const ways = [
      ['--proxy', { args: ['--proxy', bad], env: {} }],
      ['HTTP_PROXY', { args: [], env: { HTTP_PROXY: bad, NO_PROXY: '' } }],
    ] as const;
    for (const [given, how] of ways) {
      const ran = await runInProcess(['--base-url', target.url, ...how.args, '--num-runs', '3', '--report-dir', tempDir()], {
        env: { ...env, ...how.env },
      });
      expect(ran.code).toBe(2);
      expect(ran.stderr.trim().split('\n')).toHaveLength(1);
      expect(ran.stderr).toMatch(said(given));
      expect(ran.stdout + ran.stderr).not.toContain(secret);
    }
  }

  it('a proxy password with a % that starts no escape (--proxy, HTTP_PROXY): exit 2, one line saying how to write it, the password in no output', async () => {
    // undici decodes the credentials itself: it ended the run with "internal error: URI malformed".
    await refusesProxy(
      'http://user:hunter3%zz-proxy-pw@127.0.0.1:9',
      () =>
        /^petstore-conformance: error: .*proxy.*: its user name or password holds a % that starts no escape, or escapes of no UTF-8 text; write % as %25 there/,
      'hunter3',
    );
  });

  it('a proxy URL with a path or query (--proxy, HTTP_PROXY): exit 2, one line naming it as given and how a proxy is named, its password in no output', async () => {
    // undici refused it as "invalid url": an internal error.
    for (const bad of ['http://user:hunter4-proxy-pw@127.0.0.1:9/path', 'http://127.0.0.1:9/?x=1'])
      await refusesProxy(
        bad,
        (given) => new RegExp(`${given} .*: a proxy is named by scheme, host and port .*, with no path or query`),
        'hunter4',
      );
  });

  it('a proxy that resets the connection on CONNECT (--proxy, HTTP_PROXY, HTTPS_PROXY; http and https targets): exit 2, one line saying the proxy reset it', async () => {
    const p = await closingProxy(0, undefined, 'reset');
    const withCredentials = p.url.replace('//', '//user:hunter2-proxy-pw@');
    const ways = [
      ['http://petstore.invalid/v1', { args: ['--proxy', withCredentials], env: {} }],
      ['https://petstore.invalid/v1', { args: ['--proxy', withCredentials], env: {} }],
      ['http://petstore.invalid/v1', { args: [], env: { HTTP_PROXY: withCredentials } }],
      ['https://petstore.invalid/v1', { args: [], env: { HTTPS_PROXY: withCredentials } }],
    ] as const;
    for (const [i, [base, how]] of ways.entries()) {
      const ran = await runInProcess(['--base-url', base, ...how.args, '--num-runs', '3', '--report-dir', join(work, `reset-${i}`)], {
        env: { ...env, ...how.env },
        timeoutMs: 30_000,
      });
      expect(ran.code, ran.stderr).toBe(2);
      const lines = ran.stderr.split('\n').filter((l) => l.startsWith('petstore-conformance: error:'));
      expect(lines).toEqual([
        `petstore-conformance: error: the proxy ${p.url} reset the connection on CONNECT (ECONNRESET): no tunnel to petstore.invalid:${base.startsWith('https') ? 443 : 80}`,
      ]);
      expect(ran.stdout + ran.stderr).not.toContain('hunter2-proxy-pw');
    }
  });

  it("tunnels being opened hold one listener on the run's signal, whatever their number, and none once opened or given up", async () => {
    // CONNECTs held unanswered: twelve tunnels being opened at once.
    const p = await closingProxy(60_000);
    const run = new AbortController();
    const client = new HttpClient({
      baseUrl: 'http://petstore.invalid/v1',
      timeoutMs: 30_000,
      connections: 12,
      proxy: { kind: 'url', url: p.url },
      signal: run.signal,
    });
    try {
      const sent = Array.from({ length: 12 }, () => client.send({ method: 'GET', path: '/pets' }));
      for (let i = 0; i < 600 && p.connects() < 12; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(p.connects()).toBe(12);
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(1);
      run.abort();
      const ended = await Promise.all(sent);
      expect(ended.map((x) => x.error?.message)).toEqual(
        ended.map(() => expect.stringMatching(/^no tunnel opened to petstore\.invalid:80: the run was interrupted/)),
      );
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    } finally {
      await client.close();
    }
  });
});

describe('extra headers: -H on every request of every phase, --secret-header redacted like the key', () => {
  const TOKEN = 'tenant-token-Q7-DxStNcTvQe-9931';
  it('sent with every request (functional and load), never overriding the key; the secret value is in no report', async () => {
    const seen: Record<string, string | undefined>[] = [];
    const recording =
      (inner: Handler): Handler =>
      (request) => {
        seen.push({
          tenant: request.headers['x-tenant'],
          token: request.headers['x-tenant-token'],
          authorization: request.headers.authorization,
        });
        return inner(request);
      };
    const target = await reference({ apiKey: DISTINCTIVE_KEY, wrap: recording });
    const work = tempDir();
    writeFileSync(join(work, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { tiny } }));
    const dir = join(work, 'r');
    const ran = await runInProcess(
      [
        '--base-url',
        target.url,
        '-H',
        'X-Tenant: acme',
        '--secret-header',
        'X-Tenant-Token',
        '--load',
        'tiny',
        '--num-runs',
        '3',
        '--report-dir',
        dir,
      ],
      { cwd: work, env: { ...env, PETSTORE_SECRET_HEADER_X_TENANT_TOKEN: TOKEN } },
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(seen.length).toBeGreaterThan(300);
    expect(seen.every((h) => h.tenant === 'acme' && h.token === TOKEN)).toBe(true);
    // The auth checks still send their own Authorization variants (and none at all).
    expect(seen.some((h) => h.authorization === undefined)).toBe(true);
    expect(seen.some((h) => h.authorization === `Bearer ${DISTINCTIVE_KEY}`)).toBe(true);
    const report = readJson(dir);
    expect(report.options.connection).toMatchObject({ headers: ['x-tenant', 'x-tenant-token'], secretHeaders: ['x-tenant-token'] });
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file), 'utf8')).not.toContain(TOKEN);
    expect(ran.stdout + ran.stderr).not.toContain(TOKEN);
  });

  // Nothing shared: side by side.
  it.concurrent.each([
    [['-H', 'Authorization: Bearer other'], /--header Authorization: the suite sends Authorization itself/],
    [['-H', 'authorization:x'], /the suite sends Authorization itself/],
    [['--secret-header', 'Authorization: Bearer other-key-123'], /--secret-header Authorization: the suite sends Authorization itself/],
    [['-H', 'Host: elsewhere'], /--header Host: the suite does not send this header/],
    [['-H', 'no colon'], /--header takes "Name: value"; a value given has no header name before a colon/],
    [['--secret-header', 'X-Token'], /set PETSTORE_SECRET_HEADER_X_TOKEN/],
  ])('%j is refused before anything is sent: exit 2, one line', async (args, message) => {
    const ran = await runInProcess(['--base-url', 'http://127.0.0.1:9/v1', ...args, '--report-dir', tempDir()], { env });
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
  });
});

describe('the connection description, built once from flags, config file and environment', () => {
  it("flags win over the config file's headers; secret values from the environment; proxies as the environment says, not for --embedded", async () => {
    const built = await buildConnection(
      { fileHeaders: { 'X-Tenant': 'from-file', 'X-Region': 'eu' }, header: ['x-tenant: from-flag'], secretHeader: ['X-Token'] },
      {
        PETSTORE_SECRET_HEADER_X_TOKEN: 'token-value-1234',
        https_proxy: 'http://p.example:3128',
        HTTPS_PROXY: 'http://ignored.example:1',
        NO_PROXY: 'internal.example',
      },
      tempDir(),
    );
    expect(built.headers).toEqual({ 'x-tenant': 'from-flag', 'x-region': 'eu', 'x-token': 'token-value-1234' });
    expect(built.secretHeaders).toEqual(['x-token']);
    expect(built.proxy).toEqual({ kind: 'env', httpProxy: '', httpsProxy: 'http://p.example:3128/', noProxy: 'internal.example' });
    expect((await buildConnection({}, { HTTP_PROXY: 'http://p.example:3128' }, tempDir(), { embedded: true })).proxy).toEqual({
      kind: 'none',
    });
    expect((await buildConnection({ proxy: 'http://q.example:8080' }, { HTTP_PROXY: 'http://p.example:3128' }, tempDir())).proxy).toEqual({
      kind: 'url',
      url: 'http://q.example:8080/',
    });
    await expect(buildConnection({ header: ['X-A: 1', 'x-a: 2'] }, {}, tempDir())).rejects.toThrow('--header x-a: given twice');
  });
});

describe('certify connects like a run, and verify shows how it connected', () => {
  it('through a proxy, with an extra and a secret header: certified, the secret in no file of the bundle, verify says proxy and header names', async () => {
    const TOKEN = 'bundle-secret-Z81-DxStNcTvQe-4410';
    const seen: (string | undefined)[] = [];
    const target = await reference({
      apiKey: DISTINCTIVE_KEY,
      wrap: (inner) => (request) => {
        seen.push(request.headers['x-tenant-token']);
        return inner(request);
      },
    });
    const p = await proxy(() => `127.0.0.1:${target.port}`);
    const work = tempDir();
    writeFileSync(
      join(work, 'product.json'),
      JSON.stringify({ name: 'Acme Petstore', version: '2.4.1', contact: 'certification@acme.example' }),
    );
    const bundle = join(work, 'acme.tar.gz');
    const certify = await runInProcess(
      [
        'certify',
        '--base-url',
        'http://petstore.invalid/v1',
        '--proxy',
        p.url,
        '-H',
        'X-Tenant: acme',
        '--secret-header',
        `X-Tenant-Token: ${TOKEN}`,
        '--product',
        join(work, 'product.json'),
        '--out',
        bundle,
      ],
      { env, timeoutMs: 120_000 },
    );
    expect(certify.code, certify.stderr).toBe(0);
    // Under the console's "testing …" line, how certify reaches the target and where that came from.
    expect(certify.stderr).toContain(`\n  connection: plain http, no TLS · proxy ${p.url} (--proxy) · no client certificate\n`);
    expect(seen.length).toBeGreaterThan(300);
    expect(seen.every((v) => v === TOKEN)).toBe(true);
    const unpacked = join(work, 'unpacked');
    execFileSync('mkdir', ['-p', unpacked]);
    execFileSync('tar', ['-xzf', bundle, '-C', unpacked]);
    for (const file of readdirSync(unpacked)) expect(readFileSync(join(unpacked, file), 'utf8')).not.toContain(TOKEN);
    expect(readFileSync(join(unpacked, 'transcript.har'), 'utf8')).toContain('{"name":"x-tenant-token","value":"<secret x-tenant-token>"}');
    const verify = await runInProcess(['verify', bundle], { timeoutMs: 120_000 });
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).toContain(
      `connection: plain http; proxy ${p.url}; extra headers x-tenant, x-tenant-token (secret: x-tenant-token)`,
    );
  });
});

describe('client certificates (mTLS): --cert and --cert-key', () => {
  it('a target that requires one: tested with it (every phase), refused cleanly without it', async () => {
    const certs = certificates();
    // The reference's https server takes node's TLS options: ask for a client certificate signed by the CA.
    const tls = { ...certs.server, ca: certs.ca, requestCert: true, rejectUnauthorized: true };
    const target = await reference({ apiKey: DISTINCTIVE_KEY, tls });
    const work = tempDir();
    writeFileSync(join(work, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { tiny } }));
    const cert = ['--cert', join(certs.dir, 'client.pem'), '--cert-key', join(certs.dir, 'client.key')];
    const ok = await runInProcess(
      [
        '--base-url',
        target.url,
        '--ca',
        join(certs.dir, 'ca.pem'),
        ...cert,
        '--load',
        'tiny',
        '--num-runs',
        '3',
        '--report-dir',
        join(work, 'ok'),
      ],
      { cwd: work, env },
    );
    expect(ok.code, ok.stderr).toBe(0);
    const report = readJson(join(work, 'ok'));
    expect(report.options).toMatchObject({ insecure: false, customCa: true, connection: { clientCertificate: true } });
    expect(report.load[0]!.overall.errors.socketErrors).toBe(0);
    expect(report.load[0]!.overall.requests).toBeGreaterThan(20);

    const without = await runInProcess(
      ['--base-url', target.url, '--ca', join(certs.dir, 'ca.pem'), '--num-runs', '3', '--report-dir', join(work, 'without')],
      { env },
    );
    expect(without.code).toBe(2);
    const lines = without.stderr.split('\n').filter((l) => l.startsWith('petstore-conformance: error:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/client certificate.*give one, with its key\)$/);
    expect(without.stderr).not.toMatch(/\n\s+at /);

    // A certificate without its key, and a key that is not the certificate's: one line each, nothing sent.
    const half = await runInProcess(['--base-url', target.url, '--cert', join(certs.dir, 'client.pem'), '--report-dir', tempDir()], {
      env,
    });
    expect(half.stderr.trim()).toMatch(/^petstore-conformance: error: --cert needs --cert-key/);
    const mismatched = await runInProcess(
      [
        '--base-url',
        target.url,
        '--cert',
        join(certs.dir, 'client.pem'),
        '--cert-key',
        join(certs.dir, 'server.key'),
        '--report-dir',
        tempDir(),
      ],
      { env },
    );
    expect(mismatched.code).toBe(2);
    expect(mismatched.stderr.trim()).toMatch(/the key does not belong to the certificate/);
  });
});

describe('the connection from PETSTORE_* variables alone, as from its flags', () => {
  it('PETSTORE_PROXY, PETSTORE_CA, PETSTORE_CERT, PETSTORE_CERT_KEY, PETSTORE_HEADER and PETSTORE_SECRET_HEADER (one value per line) reach an mTLS target through a proxy; the secret in no output', async () => {
    const SECRET = 'env-secret-Q7-DxStNcTvQe-2290';
    const certs = certificates();
    const seen: Record<string, string | undefined>[] = [];
    // The reference's https server takes node's TLS options: ask for a client certificate signed by the CA.
    const tls = { ...certs.server, ca: certs.ca, requestCert: true, rejectUnauthorized: true };
    const target = await reference({
      apiKey: DISTINCTIVE_KEY,
      tls,
      wrap: (inner) => (request) => {
        seen.push(request.headers);
        return inner(request);
      },
    });
    // petstore.invalid resolves nowhere: only the proxy knows where it is.
    const p = await proxy(() => `127.0.0.1:${target.port}`);
    const dir = tempDir();
    const variables = {
      ...env,
      PETSTORE_PROXY: p.url,
      PETSTORE_CA: join(certs.dir, 'ca.pem'),
      PETSTORE_CERT: join(certs.dir, 'client.pem'),
      PETSTORE_CERT_KEY: join(certs.dir, 'client.key'),
      PETSTORE_HEADER: 'X-Tenant: acme, eu\nX-Region: north',
      PETSTORE_SECRET_HEADER: `X-Tenant-Token: ${SECRET}`,
    };
    const ran = await runInProcess(
      ['--base-url', 'https://petstore.invalid/v1', '--num-runs', '2', '--only', 'LIST-LIMIT-DEFAULT', '--report-dir', dir],
      { env: variables },
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(p.connects).toContain('petstore.invalid:443');
    expect(seen.length).toBeGreaterThan(0);
    for (const headers of seen) expect(headers).toMatchObject({ 'x-tenant': 'acme, eu', 'x-region': 'north', 'x-tenant-token': SECRET });
    expect(readJson(dir).options).toMatchObject({ customCa: true, connection: { clientCertificate: true, proxy: p.url } });
    expect(ran.stdout + ran.stderr).not.toContain(SECRET);
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file), 'utf8'), file).not.toContain(SECRET);
  });
});

describe('replay verifies TLS as asked, with the same connection flags as the run', () => {
  it("--ca and --insecure: without either, an https target's unknown certificate is refused (exit 2); with one, the failure is judged again", async () => {
    const certs = certificates();
    const mutant = mutants.find((m) => m.name === 'not-found-as-400')!;
    const server = await startReference({ apiKey: CONTRACT_API_KEY, ...(mutant.options ?? {}), wrap: mutant.wrap, tls: certs.server });
    closers.push(() => server.close());
    const dir = tempDir();
    const ca = join(certs.dir, 'ca.pem');
    const run = await runInProcess(['--base-url', server.url, '--ca', ca, '--seed', '6', '--num-runs', '10', '--report-dir', dir], {
      env: { PETSTORE_API_KEY: CONTRACT_API_KEY },
    });
    expect(run.code).toBe(1);
    const result = readJson(dir);
    const finding = result.rules
      .find((r) => r.id === 'GET-NOT-FOUND')!
      .checks.flatMap((c) => c.findings)
      .find((f) => f.case)!;
    const replay = (...extra: string[]) =>
      runInProcess(['replay', join(dir, 'report.json'), finding.case!.id, '--base-url', server.url, ...extra], {
        env: { PETSTORE_API_KEY: CONTRACT_API_KEY },
      });
    const unverified = await replay();
    expect(unverified.code).toBe(2);
    expect(unverified.stderr.trim()).toMatch(/^petstore-conformance: error: TLS error talking to 127\.0\.0\.1:\d+/);
    expect((await replay('--ca', ca)).code).toBe(1);
    expect((await replay('--insecure')).code).toBe(1);
  });
});

/**
 * A front to the reference on node:http that sends `100 Continue` before every answer (node's own writeContinue),
 * or gzip-codes every body.
 */
async function front(mode: 'continue' | 'gzip'): Promise<string> {
  const upstream = await reference();
  const pool = new Pool(new URL(upstream.url).origin, { connections: 16 });
  closers.push(() => pool.destroy());
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (mode === 'continue') res.writeContinue();
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([n]) => !['host', 'connection', 'content-length', 'keep-alive', 'expect'].includes(n)),
      ) as Record<string, string>;
      void pool
        .request({ method: req.method as 'GET', path: req.url ?? '/', headers, body: chunks.length ? Buffer.concat(chunks) : null })
        .then(
          async (answer) => {
            const body = Buffer.from(await answer.body.arrayBuffer());
            const out = Object.fromEntries(
              Object.entries(answer.headers).filter(
                ([n]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(n),
              ),
            );
            if (mode === 'gzip' && body.length > 0)
              res.writeHead(answer.statusCode, { ...out, 'content-encoding': 'gzip', vary: 'accept-encoding' }).end(gzipSync(body));
            else res.writeHead(answer.statusCode, out).end(body);
          },
          () => res.destroy(),
        );
    });
  });
  const port = await listen(server);
  return `http://127.0.0.1:${port}/v1`;
}

describe('whole runs against targets that send 100 Continue or gzip-code their answers', () => {
  it.each(['continue', 'gzip'] as const)(
    '%s: conformant, functional and load phases (the sampled load answers decoded too)',
    async (mode) => {
      const url = await front(mode);
      const result = await runConformance({
        baseUrl: url,
        apiKey: DISTINCTIVE_KEY,
        seed: 5,
        numRuns: 5,
        timeoutMs: 5000,
        load: 'tiny',
        loadProfiles: { tiny: { ...tiny, name: 'tiny' } satisfies LoadProfile },
      });
      const failures = result.rules.flatMap((r) =>
        r.checks.flatMap((c) => c.findings.filter((f) => f.outcome === 'fail').map((f) => `${r.id}: ${f.message}`)),
      );
      expect(failures).toEqual([]);
      expect(result.summary.verdict).toBe('conformant');
      const [load] = result.load;
      expect(load!.overall.errors).toEqual({ non2xx: 0, timeouts: 0, socketErrors: 0 });
      expect(load!.conformance.sampled).toBeGreaterThan(5);
      expect(load!.conformance.failedRules).toEqual([]);
    },
  );
});
