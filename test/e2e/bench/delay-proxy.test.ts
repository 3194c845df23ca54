/**
 * The benchmark's delay proxy (scripts/delay-proxy.js) counts dependent waves:
 * a request's depth is 1 + the largest depth of the requests that had ended
 * before it started. A real server on loopback, requests through the proxy a
 * few milliseconds away; the counts, never the times, are asserted.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Proxy {
  url: string;
  stats(): { requests: number; waves: number; maxInFlight: number };
  close(): Promise<void>;
}
// A plain script, not a typed module: imported by a URL TypeScript does not resolve.
const script = new URL('../../../scripts/delay-proxy.js', import.meta.url).href;
const { startDelayProxy } = (await import(script)) as { startDelayProxy(o: { target: string; rttMs: number }): Promise<Proxy> };

const server = createServer((req, res) => {
  // A chunked answer written in two parts, the second a little later: framed by its last chunk, not by its first bytes.
  if (req.url === '/chunked') {
    res.write('a');
    setTimeout(() => res.end('b'), 5);
  } else res.end('hello');
});
let target = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function through(run: (url: string) => Promise<unknown>): Promise<ReturnType<Proxy['stats']>> {
  const proxy = await startDelayProxy({ target, rttMs: 10 });
  try {
    await run(proxy.url);
    return proxy.stats();
  } finally {
    await proxy.close();
  }
}

const text = async (url: string, init?: RequestInit) => (await fetch(url, init)).text();

describe('delay proxy: dependent waves', () => {
  it('requests sent one after another are as many waves, one in flight', async () => {
    const stats = await through(async (url) => {
      for (let i = 0; i < 3; i++) await text(url);
    });
    expect(stats).toEqual({ requests: 3, waves: 3, maxInFlight: 1, log: [] });
  });

  it('requests sent at once are one wave, all in flight', async () => {
    const stats = await through((url) => Promise.all([text(url), text(url), text(url)]));
    expect(stats).toEqual({ requests: 3, waves: 1, maxInFlight: 3, log: [] });
  });

  it('a request sent once another ended is one wave deeper; one sent beside it is not', async () => {
    const stats = await through(async (url) => {
      const slow = text(`${url}/chunked`);
      await text(url);
      await text(url);
      await slow;
    });
    // The slow one and the first are wave 1 (sent at once), the second wave 2, whether or not the slow one has ended.
    expect(stats).toEqual({ requests: 3, waves: 2, maxInFlight: 2, log: [] });
  });

  it('frames chunked answers and answers to HEAD on a kept-alive connection', async () => {
    const stats = await through(async (url) => {
      await text(`${url}/chunked`);
      await text(`${url}/chunked`);
      await fetch(url, { method: 'HEAD' });
      await text(url);
    });
    expect(stats).toEqual({ requests: 4, waves: 4, maxInFlight: 1, log: [] });
  });
});
