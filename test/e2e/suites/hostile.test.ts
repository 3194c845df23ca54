import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Handler } from '../../../reference/handler.js';
import { startReference } from '../../../reference/server.js';
import { runConformance } from '../../../suites/engine.js';
import { DISTINCTIVE_KEY, runInProcess, selfSignedCert, tempDir, withServer } from '../../helpers.js';
import { expectNotStarved, judgedUnlessStarved, starvedStep } from '../../starvation.js';

// A CLI case is bounded by BOUND_MS (runInProcess fails past it, with what it saw); a test's timeout comes after it.
vi.setConfig({ testTimeout: 75_000 });

/** The bound each hostile case must finish within, with --timeout 2000. */
const BOUND_MS = 60_000;
/** How late a timer of this process may run before deadlines of 2 s no longer judge the target: the process was starved. */
const DEADLINE_SLACK_MS = 1_000;

const open: { close(): void }[] = [];
afterAll(() => {
  for (const server of open) server.close();
});

async function listen(server: Server | ReturnType<typeof createHttpServer>): Promise<string> {
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

/** A raw TCP server: `onRequest` gets the socket once the request head has arrived. */
function rawServer(onRequest: (socket: Socket) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let head = '';
    socket.on('data', (chunk) => {
      if (head.includes('\r\n\r\n')) return;
      head += chunk.toString('latin1');
      if (head.includes('\r\n\r\n')) onRequest(socket);
    });
  });
  const close = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    for (const s of sockets) s.destroy();
    return close(cb);
  };
  return listen(server);
}

function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createHttpServer(handler);
  const close = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    server.closeAllConnections();
    return close(cb);
  };
  return listen(server);
}

/** Runs the CLI (main() in this process) against `url` with --timeout 2000 and checks what every hostile case must show. */
async function hostile(url: string, expectedExit: 1 | 2, message: RegExp, aborted = expectedExit === 2, timeoutMs = 2000) {
  const dir = tempDir();
  const ran = await runInProcess(['--base-url', url, '--timeout', String(timeoutMs), '--num-runs', '5', '--report-dir', dir], {
    env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
    timeoutMs: BOUND_MS,
  });
  // Nine runs share this process: on a starved machine its own event loop misses the deadlines, and the run says so.
  await judgedUnlessStarved(`${ran.stdout}\n${ran.stderr}`, 'the CLI run', () => {
    expect(ran.code).toBe(expectedExit);
    expect(`${ran.stdout}\n${ran.stderr}`).toMatch(message);
  });
  expect(ran.stderr).not.toMatch(/\n\s+at /);
  if (aborted) expect(ran.stderr.split('\n').filter((l) => l.startsWith('petstore-conformance: error:'))).toHaveLength(1);
  const report = join(dir, 'report.json');
  expect(existsSync(report)).toBe(true);
  for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file), 'utf8')).not.toContain(DISTINCTIVE_KEY);
  expect(ran.stdout + ran.stderr).not.toContain(DISTINCTIVE_KEY);
  return {
    ran,
    report: JSON.parse(readFileSync(report, 'utf8')) as {
      summary: { verdict: string; abort?: { code: string } };
      rules: { id: string; outcome: string; checks: { reason?: string; findings: { message: string }[] }[] }[];
    },
  };
}

describe('hostile targets (each: bounded time, reports written, exit 1 or 2, one clear line)', () => {
  // The CLI cases mostly wait for their target's silence: they run side by side. The runs of the engine below them
  // measure what a target that answers does within deadlines of 2 s: they run alone, so that a busy event loop is not
  // taken for a silent target.
  it.concurrent('accepts connections and never answers', async () => {
    const { report } = await hostile(await rawServer(() => {}), 2, /no complete response from 127\.0\.0\.1:\d+ within 2000 ms/);
    expect(report.summary.abort?.code).toBe('PC_ERR_TIMEOUT');
    expect(report.rules.every((r) => r.outcome === 'skip')).toBe(true);
  });

  it.concurrent('answers headers, then never sends the body', async () => {
    await hostile(
      await rawServer((s) => s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n')),
      2,
      /within 2000 ms/,
    );
  });

  it.concurrent('sends the body one byte every 1.5 seconds', async () => {
    const url = await rawServer((s) => {
      s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n');
      const timer = setInterval(() => (s.destroyed ? clearInterval(timer) : s.write('[')), 1500);
    });
    // Only the deadline of the whole exchange ends this one (each byte comes within undici's body timeout). In this
    // busy process a garbage collection comes within the 2 s: a deadline Node 20's AbortSignal.any held weakly was
    // collected and never fired (nodejs/node#57736), and the run hung; core/http.ts keeps a timer of its own.
    await hostile(url, 2, /within 2000 ms/);
  });

  it.concurrent('resets the connection after reading the request', async () => {
    await hostile(await rawServer((s) => s.resetAndDestroy()), 2, /broke the HTTP exchange|request to .* failed/);
  });

  it.concurrent(
    "answers a status of 000: one line saying the answer could not be taken, never the HTTP client's own assertion",
    async () => {
      const { ran } = await hostile(
        await rawServer((s) => s.end('HTTP/1.1 000 Zero\r\ncontent-length: 2\r\n\r\n{}')),
        2,
        /broke the HTTP exchange \(an answer the HTTP client could not take/,
      );
      expect(ran.stdout + ran.stderr).not.toMatch(/==|ERR_ASSERTION/);
    },
  );

  it.concurrent('closes the connection mid-body', async () => {
    await hostile(
      await rawServer((s) => s.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n[{"id":1')),
      2,
      /broke the HTTP exchange|request to .* failed/,
    );
  });

  it.concurrent('answers with bytes that are not HTTP', async () => {
    // What is said of the bytes, not a deadline: 10 s, which this process, starved beside eight other runs, still meets
    // (2 s was missed under two busy loops, "no complete response … within 2000 ms", 3 runs in 6 since connections are
    // opened ahead: each run here opens 32 to this process's own server).
    await hostile(
      await rawServer((s) => s.end('SSH-2.0-OpenSSH_9.2\r\n\u0000\u0001garbage\r\n\r\n')),
      2,
      /broke the HTTP exchange|request to .* failed/,
      true,
      10_000,
    );
  });

  it.concurrent('streams an endless JSON body: the suite reads a bounded amount and says so', async () => {
    const url = await httpServer((req, res) => {
      res.writeHead(req.headers.authorization ? 200 : 401, { 'content-type': 'application/json' });
      res.write('[');
      const chunk = `${'{"id":1,"name":"x","categoryId":1},'.repeat(2000)}`;
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    // What the body holds is not judged; what the statuses say is: 200 where 201 and 400 are due.
    // A deadline the read bound is reached well within, even when this process (the server's too) is starved of CPU: what is
    // shown is the bound, not the deadline (2 s missed under three suites at once: "no complete response within 2000 ms").
    const { report } = await hostile(url, 1, /NON-CONFORMANT: .*CREATE-RESPONSE/, false, 10_000);
    const list = report.rules.find((r) => r.id === 'LIST-RESPONSE')!;
    const said = list.checks
      .flatMap((c) => c.findings)
      .map((f) => f.message)
      .join('\n');
    expect(list.outcome, said).toBe('inconclusive');
    expect(said).toMatch(/the body of a 200 answer is longer than the suite reads of a response \(maxBodyBytes, 1 MiB/);
    expect(
      report.rules
        .find((r) => r.id === 'CREATE-RESPONSE')!
        .checks.flatMap((c) => c.findings)
        .map((f) => f.message)
        .join('\n'),
    ).toMatch(
      /Expected 201 with the created Pet \/ Received 200 \(application\/json\), a body longer than 1048576 bytes \(not read to its end\)/,
    );
  });

  it.concurrent('answers every request with HTML', async () => {
    const url = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Welcome</title><h1>It works!</h1>');
    });
    // What is shown of HTML answers, not a deadline: one long enough that this process's server, starved beside eight
    // other runs, still answers within it (2 s was missed under two busy loops: "the target stopped answering").
    await hostile(url, 1, /NON-CONFORMANT: .*LIST-RESPONSE/, false, 10_000);
  });

  it.concurrent('redirects in a loop: not followed, and said so', async () => {
    const url = await httpServer((req, res) => {
      res.writeHead(302, { location: req.url ?? '/' });
      res.end();
    });
    await hostile(url, 1, /302 redirect to .* \(not followed: the suite talks only to the base URL\)/);
  });

  it.concurrent('redirects to another host: never contacted', async () => {
    let contacted = 0;
    const elsewhere = await httpServer((_req, res) => {
      contacted++;
      res.end('[]');
    });
    const url = await httpServer((req, res) => {
      res.writeHead(307, { location: `${elsewhere}${req.url}` });
      res.end();
    });
    await hostile(url, 1, /307 redirect to .* \(not followed/);
    expect(contacted).toBe(0);
  });

  it.concurrent('answers correctly for a while, then stops: what was measured is kept, the rest is not run', async () => {
    let served = 0;
    const tiring =
      (inner: Handler): Handler =>
      (request) =>
        ++served > 150 ? new Promise(() => {}) : inner(request);
    const server = await startReference({ apiKey: DISTINCTIVE_KEY, wrap: tiring });
    open.push(server);
    // Exit 2: the requests in flight when it stopped are never judged, so no MUST failure stands; the verdict is "error".
    const { report } = await hostile(server.url, 2, /ERROR: the target stopped answering/, false);
    const byId = Object.fromEntries(report.rules.map((r) => [r.id, r]));
    expect(byId['CREATE-ECHO']!.outcome).toBe('pass');
    // getPet comes after createPet, which comes after listPets, during which the target stopped.
    expect(byId['GET-NOT-FOUND']!.outcome).toBe('skip');
    expect(byId['GET-NOT-FOUND']!.checks[0]!.reason).toMatch(/not run: the target stopped answering/);
  });

  it('in-process: the result of a target that stops keeps its measurements', async () => {
    let served = 0;
    const tiring =
      (inner: Handler): Handler =>
      (request) =>
        ++served > 150 ? new Promise(() => {}) : inner(request);
    // Deadlines of 2 s judge the target: when a timer of this process ran a second late, a failure says "starved: …" first.
    await starvedStep(DEADLINE_SLACK_MS, async () => {
      const result = await withServer({ wrap: tiring }, (url) =>
        runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 3, numRuns: 10, timeoutMs: 2000 }),
      );
      expectNotStarved(result.summary.reason);
      expect(result.summary.verdict).toBe('error');
      expect(result.summary.reason).toMatch(/stopped answering/);
      expect(result.rules.find((r) => r.id === 'CREATE-RESPONSE')!.checks.find((c) => c.id === 'store.seed')!.passed).toBeGreaterThan(90);
      expect(result.skippedPhases.map((p) => p.phase)).toContain('getPet');
    });
  });
  it('leaves one request unanswered and answers the rest: that request fails its rule, the run goes on', async () => {
    // Only the authenticated GET /store/orders hangs: one request of the run.
    const ordersHang =
      (inner: Handler): Handler =>
      (request) =>
        request.path === '/store/orders' && request.headers.authorization === `Bearer ${DISTINCTIVE_KEY}`
          ? new Promise(() => {})
          : inner(request);
    await starvedStep(DEADLINE_SLACK_MS, async () => {
      const result = await withServer({ wrap: ordersHang }, (url) =>
        runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 3, numRuns: 5, timeoutMs: 2000 }),
      );
      expectNotStarved(result.summary.reason);
      expect(result.summary.verdict).toBe('non-conformant');
      expect(result.rules.filter((r) => r.outcome === 'fail').map((r) => r.id)).toEqual(['ORDERS-EXISTS']);
      expect(result.rules.find((r) => r.id === 'ORDERS-EXISTS')!.checks[0]!.findings[0]!.message).toMatch(/no response/);
      expect(result.skippedPhases.map((p) => p.phase)).toEqual(['load']);
    });
  });
});

describe('unreachable and misconfigured targets (exit 2, one line, no wait for a deadline)', () => {
  const quick = async (args: string[], message: RegExp, env: Record<string, string> = {}) => {
    const ran = await runInProcess([...args, '--report-dir', tempDir()], { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, ...env } });
    expect(ran.code).toBe(2);
    const lines = ran.stderr.split('\n').filter((l) => l.startsWith('petstore-conformance: error:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  };

  it('a refused connection', () => quick(['--base-url', 'http://127.0.0.1:9/v1'], /connection refused by 127\.0\.0\.1:9/));
  it('an unknown host', () =>
    quick(['--base-url', 'http://no-such-host.invalid/v1'], /unknown host no-such-host\.invalid|no complete response/));
  it('a base URL without a scheme', () => quick(['--base-url', '127.0.0.1:8080/v1'], /not an absolute URL|must use http or https/));
  it('an invalid key (every request 401)', async () => {
    await withServer({}, (url) =>
      quick(['--base-url', url], /answered 401 .*check the API key and the base URL$/, { PETSTORE_API_KEY: 'not-the-key' }),
    );
  });

  describe('https', () => {
    const { dir, tls } = selfSignedCert();
    writeFileSync(join(dir, 'not-a-ca.pem'), 'nonsense');

    it('a certificate nobody vouches for: exit 2, a TLS error', () =>
      withServer({ tls }, (url) => quick(['--base-url', url], /TLS error talking to 127\.0\.0\.1:\d+/)));

    it('NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment turns nothing off: still exit 2, a TLS error, the key never sent', async () => {
      // Node's own default gives way to it; the suite says what it verifies, and only --insecure accepts any certificate.
      const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
      let keyed = 0;
      try {
        await withServer(
          { tls, wrap: (inner) => (request) => ((keyed += request.headers.authorization === undefined ? 0 : 1), inner(request)) },
          (url) => quick(['--base-url', url], /TLS error talking to 127\.0\.0\.1:\d+/),
        );
      } finally {
        if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
        else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
      }
      expect(keyed).toBe(0);
    });

    it('works with --ca for a private CA, and with --insecure, which the report records', async () => {
      await withServer({ tls }, async (url) => {
        const report = tempDir();
        const withCa = await runInProcess(['--base-url', url, '--ca', join(dir, 'cert.pem'), '--num-runs', '3', '--report-dir', report], {
          env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
        });
        expect(withCa.code).toBe(0);
        expect(JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')).options).toMatchObject({ insecure: false, customCa: true });
        const insecure = await runInProcess(['--base-url', url, '--insecure', '--num-runs', '3', '--report-dir', report], {
          env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
        });
        expect(insecure.code).toBe(0);
        expect(JSON.parse(readFileSync(join(report, 'report.json'), 'utf8')).options).toMatchObject({ insecure: true, customCa: false });
      });
    });
  });
});
