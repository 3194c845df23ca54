/** The HTTP client: deadlines that blame the right side. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { HttpClient, requestPath, targetOf } from '../../core/http.js';

describe('HttpClient', () => {
  it('starts a request\'s deadline when it has a connection, not while it waits for one', async () => {
    // Every answer takes 600 ms; six requests share two connections, with a 1000 ms deadline each.
    const server = createServer((_req, res) => void setTimeout(() => res.end('{}'), 600));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new HttpClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, timeoutMs: 1000, connections: 2 });
    try {
      const exchanges = await Promise.all(Array.from({ length: 6 }, () => client.send({ method: 'GET', path: '/pets' })));
      expect(exchanges.map((x) => x.error?.message ?? x.response?.status)).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('times out a dripping body at its deadline, beside the run\'s abort signal, while garbage collections run', async () => {
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
    const client = new HttpClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, timeoutMs: 400, signal: run.signal });
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

  it('joins the base path and a request path without a double slash', () => {
    expect(requestPath(new URL('http://h/'), '/pets')).toBe('/pets');
    expect(requestPath(new URL('http://h/v1/'), '/pets')).toBe('/v1/pets');
    expect(targetOf(new URL('http://h:8080/'))).toBe('http://h:8080');
    expect(targetOf(new URL('http://h:8080/api/v1'))).toBe('http://h:8080/api/v1');
  });
});
