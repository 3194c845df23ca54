/** The HTTP client: deadlines that blame the right side. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { HttpClient, requestPath, stalledFor, targetOf } from '../../../core/http.js';
import { type LoopClock, LoopStalls, STALL_TICK_MS } from '../../../core/loop-stall.js';

describe('HttpClient', () => {
  it("starts a request's deadline when it has a connection, not while it waits for one", async () => {
    // Every answer takes 600 ms; six requests share two connections, with a 1000 ms deadline each.
    const server = createServer((_req, res) => void setTimeout(() => res.end('{}'), 600));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new HttpClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      timeoutMs: 1000,
      connections: 2,
    });
    try {
      const exchanges = await Promise.all(Array.from({ length: 6 }, () => client.send({ method: 'GET', path: '/pets' })));
      expect(exchanges.map((x) => x.error?.message ?? x.response?.status)).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("times out a dripping body at its deadline, beside the run's abort signal, while garbage collections run", async () => {
    // Node 20's AbortSignal.any holds its sources weakly: a deadline nothing else holds may be collected and never fire.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const run = new AbortController();
    const client = new HttpClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      timeoutMs: 400,
      signal: run.signal,
    });
    const collecting = setInterval(gc, 20);
    try {
      const ended = client.send({ method: 'GET', path: '/pets' });
      const bound = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 3000).unref());
      const exchange = await Promise.race([ended, bound]);
      expect(exchange === 'hung' ? 'hung' : exchange.error?.code).toBe('PC_ERR_TIMEOUT');
    } finally {
      clearInterval(collecting);
      run.abort();
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("says so when a deadline came due while the suite's own event loop was busy (the real loop, held by the test)", async () => {
    // The target answers at once.
    const server = createServer((_req, res) => void res.end('[]'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new HttpClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, timeoutMs: 300 });
    try {
      const sent = client.send({ method: 'GET', path: '/pets' });
      // The suite's own loop busy for three deadlines (a body costly to handle): the deadline comes due meanwhile. A
      // machine that starves the process only makes the stall longer.
      const until = performance.now() + 900;
      while (performance.now() < until);
      const stalled = await sent;
      expect(stalled.error?.code).toBe('PC_ERR_TIMEOUT');
      expect(stalled.error?.message).toMatch(
        /\(the suite's own event loop was stalled for \d+ ms when the deadline came due: an answer may have come and not been read in time\)$/,
      );
      expect(stalledFor(stalled.error)).toBeGreaterThanOrEqual(300);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("blames a silent target when the loop ran, and the suite when it stalled over the deadline (the stall monitor's clock is the test's)", async () => {
    // The target never answers; the deadlines are real timers, the loop's ticks the test's own, so no stall of this
    // machine's can read as one, nor hide one.
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let now = 1000;
    let tick = () => {};
    const clock: LoopClock = { now: () => now, every: (_ms, t) => ((tick = t), { stop: () => {} }) };
    const client = new HttpClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      timeoutMs: 300,
      stalls: new LoopStalls(clock),
    });
    try {
      // Every tick came on time while the request waited: the target had its whole deadline.
      const silent = await client.send({ method: 'GET', path: '/pets' });
      expect(silent.error?.code).toBe('PC_ERR_TIMEOUT');
      expect(stalledFor(silent.error)).toBeUndefined();
      expect(silent.error?.message).toMatch(/^no complete response from 127\.0\.0\.1:\d+ within 300 ms$/);
      // Sent at 1000 on the clock (due at 1300), then no tick until 3000: the loop stalled over the deadline.
      const sent = client.send({ method: 'GET', path: '/pets' });
      now = 3000;
      tick();
      const stalled = await sent;
      expect(stalled.error?.code).toBe('PC_ERR_TIMEOUT');
      expect(stalledFor(stalled.error)).toBe(3000 - (1000 + STALL_TICK_MS));
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('joins the base path and a request path without a double slash', () => {
    expect(requestPath(new URL('http://h/'), '/pets')).toBe('/pets');
    expect(requestPath(new URL('http://h/v1/'), '/pets')).toBe('/v1/pets');
    expect(targetOf(new URL('http://h:8080/'))).toBe('http://h:8080');
    expect(targetOf(new URL('http://h:8080/api/v1'))).toBe('http://h:8080/api/v1');
  });
});
