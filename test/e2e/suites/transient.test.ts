/**
 * Issue 25, items 2 and 3: temporary answers (429, 503 with Retry-After) are
 * waited out and sent again, never failed, their bodies still Errors; under
 * load every shed answer's body is judged; a request that died on a reused
 * connection before any byte of its answer (the server closed it as idle) is
 * sent again on a new one, and a createPet that may have been received is
 * inconclusive, never a failure.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RedactionBoundary } from '../../../core/boundary.js';
import { HttpClient } from '../../../core/http.js';
import { redactorFor } from '../../../core/redact.js';
import type { ApiResponse, Handler } from '../../../reference/handler.js';
import { createReferenceHandler } from '../../../reference/handler.js';
import { serve } from '../../../reference/server.js';
import type { ConformanceResult } from '../../../result/model.js';
import { runConformance } from '../../../suites/engine.js';
import { createPet, listPets } from '../../../suites/requests.js';
import { IdleClosed, TargetSession } from '../../../suites/session.js';
import { CONTRACT_API_KEY, type Mutant, mutants } from '../../fixtures/mutants/index.js';
import { DISTINCTIVE_KEY, withServer } from '../../helpers.js';

const failedRules = (result: ConformanceResult) =>
  result.rules
    .filter((r) => r.outcome === 'fail')
    .map((r) => r.id)
    .sort();
const evidence = (result: ConformanceResult) =>
  result.rules
    .filter((r) => r.outcome === 'fail' || r.outcome === 'error')
    .map((r) => `${r.id}: ${r.checks.find((c) => c.outcome === r.outcome)?.findings[0]?.message ?? ''}`.slice(0, 300))
    .join('\n');
const mutant = (name: string): Mutant => mutants.find((m) => m.name === name)!;
const run = (m: Mutant, strict = false) =>
  withServer({ apiKey: CONTRACT_API_KEY, wrap: m.wrap }, (url) =>
    runConformance({ baseUrl: url, apiKey: CONTRACT_API_KEY, seed: 25, numRuns: 10, ...(strict ? { strict } : {}) }),
  );

describe('temporary answers', () => {
  it('a limiter answering 503 with Retry-After and an Error body is waited out: nothing fails, also with --strict', async () => {
    const result = await run(mutant('limiter-503-retry-after'), true);
    expect(failedRules(result), evidence(result)).toEqual([]);
    expect(result.summary.verdict, result.summary.reason).not.toBe('error');
    expect(result.observations.some((o) => o.gap === 'GAP-RATE-LIMITS' && /^503 answered; every request paused/.test(o.summary))).toBe(
      true,
    );
  });

  it('a 503 without Retry-After stays a server error (RESPONSE-NO-5XX)', async () => {
    const result = await run(mutant('limiter-503-without-retry-after'));
    expect(failedRules(result)).toContain('RESPONSE-NO-5XX');
  });

  it("a limiter's 503 with Retry-After and an HTML page fails ERROR-SCHEMA, and nothing else of the document", async () => {
    const result = await run(mutant('limiter-503-html'));
    expect(
      failedRules(result).filter((id) => id !== 'RESPONSE-CONTENT-TYPE-JSON'),
      evidence(result),
    ).toEqual(['ERROR-SCHEMA']);
  });

  it('under load, a 2 % share of HTML 503 pages from a shedder is judged and fails ERROR-SCHEMA', async () => {
    // The load sender sends no user-agent; the functional client does: only load answers are shed.
    let n = 0;
    const shedder =
      (inner: Handler): Handler =>
      (req) => {
        if (req.headers['user-agent'] === undefined && ++n % 50 === 0)
          return {
            status: 503,
            headers: { 'content-type': 'text/html' },
            body: '<html><body>503 Service Unavailable</body></html>',
          } satisfies ApiResponse;
        return inner(req);
      };
    const profile = {
      name: 'shed',
      kind: 'closed' as const,
      description: 'shed',
      connections: 4,
      durationSec: 2,
      maxRequests: 20_000,
      mix: { listPets: 2, getPet: 2, createPet: 1 },
      thresholds: [],
    };
    const result = await withServer({ wrap: shedder }, (url) =>
      runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 25, numRuns: 5, load: 'shed', loadProfiles: { shed: profile } }),
    );
    expect(n, 'the load phase sent too few requests for a 2 % share').toBeGreaterThanOrEqual(50);
    expect(result.load[0]!.conformance.failedRules).toEqual(['ERROR-SCHEMA']);
    const atRest = result.rules.find((r) => r.id === 'ERROR-SCHEMA')!.checks.filter((c) => !c.id.startsWith('load.'));
    expect(atRest.every((c) => c.outcome !== 'fail')).toBe(true);
  });
});

/**
 * The reference served so that each connection is closed by the server once
 * it answered `every` requests, without `Connection: close`, the way a server
 * closes a connection it keeps alive no longer: a request already on its way
 * on it (the keep-alive race, RFC 9112 §9.5) is dropped unread, its
 * connection destroyed (as the server's kernel resets a closed socket).
 */
async function closingAfter(every: number): Promise<{ url: string; dropped: () => number; close: () => Promise<void> }> {
  const { handler } = createReferenceHandler({ apiKey: DISTINCTIVE_KEY, basePath: '/v1' });
  const inner: Server = serve(handler, '/v1');
  const listener = inner.listeners('request')[0] as (req: IncomingMessage, res: ServerResponse) => void;
  const served = new WeakMap<Socket, number>();
  let dropped = 0;
  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    if (n > every) {
      dropped++;
      req.socket.destroy();
      return;
    }
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    dropped: () => dropped,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('idle closes', () => {
  it('a server closing each connection after 3 answers, without Connection: close, passes: requests that died on a reused connection are sent again on a new one', async () => {
    const target = await closingAfter(3);
    try {
      const result = await runConformance({ baseUrl: target.url, apiKey: DISTINCTIVE_KEY, seed: 25, numRuns: 10, strict: true });
      expect(target.dropped()).toBeGreaterThan(10);
      expect(result.summary.verdict, `${result.summary.reason}\n${evidence(result)}`).not.toBe('error');
      expect(failedRules(result), evidence(result)).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it('a connection closed under a request after a temporary answer was waited out is a new race: the request is sent again once more', async () => {
    // nginx with limit_req and keepalive_timeout 1s: a Retry-After of 1 s leaves every pooled connection idle long enough
    // to be closed just as the request waited out goes back on one. Here by the server's request count: the 2nd request
    // dies, its resend is answered 429, the next attempt dies again, and the one after is answered.
    let n = 0;
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      const i = n++;
      if (i === 1 || i === 3) return void req.socket.destroy();
      if (i === 2) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        return void res.end('{"code":"rate_limited","message":"later","status":429}');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    };
    const { session, close } = await sessionTo(handle, 10_000);
    try {
      expect((await session.send('t', listPets())).response?.status).toBe(200);
      const x = await session.send('t', listPets());
      expect(x.error?.message).toBeUndefined();
      expect(x.response?.status).toBe(200);
      expect(n).toBe(5);
    } finally {
      await close();
    }
  });

  it('a createPet sent after a temporary answer was waited out goes on a new connection: the pooled ones sat idle through the wait', async () => {
    // The server closes every connection that already served a request as the next one arrives (an idle close that
    // races the request). The POST is answered 429 Retry-After: 1 first; sent on the pooled connection again it would
    // die unanswered, and whether it was carried out would be unknown (IdleClosed: not judged).
    const seen: string[] = [];
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket as Socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      seen.push(`${req.method} ${socket.served}`);
      if (req.method === 'POST' && seen.filter((line) => line.startsWith('POST')).length === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        return void res.end('{"code":"rate_limited","message":"later","status":429}');
      }
      if (socket.served > 2) return void req.socket.destroy();
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(req.method === 'POST' ? '{"id":1,"name":"a","categoryId":1,"status":"available"}' : '[]');
    };
    const { session, close } = await sessionTo(handle, 10_000);
    try {
      expect((await session.send('t', listPets())).response?.status).toBe(200);
      const post = await session.send('t', createPet('{"name":"a","categoryId":1}'));
      expect(post.response?.status).toBe(201);
      // Sent twice, the second time as the first request of a new connection.
      expect(seen).toEqual(['GET 1', 'POST 2', 'POST 1']);
    } finally {
      await close();
    }
  });

  it('a createPet that died on a reused connection before any byte of its answer is not judged (IdleClosed), and a GET is sent again on a new connection', async () => {
    // A raw server: the first request of a connection is answered (keep-alive, no Connection: close); a later one
    // on the same connection is read and the connection destroyed, unanswered: as if the server closed it as idle.
    const seen: string[] = [];
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      seen.push(`${req.method} ${req.socket.remotePort}`);
      const count = ((req.socket as Socket & { served?: number }).served = ((req.socket as Socket & { served?: number }).served ?? 0) + 1);
      if (count > 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(req.method === 'POST' ? '{"id":1,"name":"a","categoryId":1,"status":"available"}' : '[]');
    };
    const { session, close } = await sessionTo(handle, 0);
    try {
      const first = await session.send('t', listPets());
      expect(first.response?.status).toBe(200);
      // The pooled connection served one request: the next one dies on it, and is sent again on a new connection.
      const again = await session.send('t', listPets());
      expect(again.response?.status).toBe(200);
      expect(seen.length).toBe(3);
      // A new connection the GET was answered on is pooled no longer (it was the resend's own): the pool's connection is
      // gone, so warm one, then a POST dies on it.
      await session.send('t', listPets());
      const post = session.send('t', createPet('{"name":"a","categoryId":1}'));
      await expect(post).rejects.toBeInstanceOf(IdleClosed);
      await expect(post).rejects.toThrow(/had carried earlier requests and was closed before any byte of the answer/);
      expect(session.stopped).toBeUndefined();
      // A POST the document says is refused (a body that is not a NewPet, or no key) changes nothing on a conforming
      // server: it is sent again on a new connection like a GET. Warm the pool again, then let one die on it.
      await session.send('t', listPets());
      const before = seen.length;
      const refused = await session.send('t', { ...createPet('{"categoryId":1}'), refused: true });
      expect(refused.response?.status).toBe(201);
      expect(seen.slice(before).filter((line) => line.startsWith('POST'))).toHaveLength(2);
      await session.send('t', listPets());
      const keyless = await session.send('t', createPet('{"name":"a","categoryId":1}', { auth: 'none' }));
      expect(keyless.response?.status).toBe(201);
    } finally {
      await close();
    }
  });
});

/** A session over one pooled connection to a node:http server on loopback that answers with `handle`. */
async function sessionTo(handle: (req: IncomingMessage, res: ServerResponse) => void, maxWaitMs: number) {
  const server = createServer({ keepAliveTimeout: 60_000 }, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new HttpClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    timeoutMs: 5000,
    connections: 1,
  });
  const session = new TargetSession({
    client: new RedactionBoundary(client, redactorFor('k3y-idle-close-test')),
    apiKey: 'k3y-idle-close-test',
    maxWaitMs,
    onExchange: () => {},
    inspect: () => {},
    observeRateLimit: () => {},
  });
  return {
    session,
    async close() {
      session.close();
      await client.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
