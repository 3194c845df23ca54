/**
 * Connections opened ahead of need (core/connection/stock.ts, through
 * {@link HttpClient.openAhead}): a wave of requests goes on connections
 * opened before it, none more; a connection the server closed while it waited
 * is never handed out; one left unused is closed by the client; through a
 * proxy nothing is opened ahead.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect as netConnect, createServer as createTcpServer, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../core/http.js';
import { IDLE_MS } from '../../../core/connection/stock.js';
import { openTunnel, selfSignedCert } from '../../helpers.js';

/** What a server saw of its connections: when each was accepted, how many requests each carried, which are closed. */
interface Seen {
  url: string;
  accepted: { at: number; requests: number; closed: boolean }[];
  server: Server;
}

const servers: Server[] = [];
const clients: HttpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** An HTTP server answering 200; `idleCloseMs`: it closes a connection that carried no request after that long. */
async function target(idleCloseMs?: number): Promise<Seen> {
  const accepted: Seen['accepted'] = [];
  const bySocket = new Map<Socket, Seen['accepted'][number]>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    bySocket.get(req.socket)!.requests++;
    res.end('ok');
  });
  server.on('connection', (socket: Socket) => {
    const seen = { at: performance.now(), requests: 0, closed: false };
    accepted.push(seen);
    bySocket.set(socket, seen);
    socket.on('close', () => (seen.closed = true));
    if (idleCloseMs !== undefined)
      setTimeout(() => {
        if (seen.requests === 0) socket.destroy();
      }, idleCloseMs);
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, accepted, server };
}

function client(baseUrl: string, more: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): HttpClient {
  const c = new HttpClient({ baseUrl, timeoutMs: 5_000, connections: 32, openAhead: true, ...more });
  clients.push(c);
  return c;
}

/**
 * An https server behind a relay that holds each connection's first bytes for 100 ms: every connection takes that
 * long to open (its TLS handshake waits), as a far target's does. `accepted`: the connections the relay took.
 */
async function farTls(): Promise<{ url: string; ca: string; accepted(): number; close(): void }> {
  const { tls } = selfSignedCert();
  const relayed = new Set<Socket>();
  let accepted = 0;
  const https = createHttpsServer(tls, (_req, res) => res.end('ok'));
  const tlsPort = await listen(https);
  const relay = createTcpServer((socket) => {
    accepted++;
    relayed.add(socket);
    socket.pause();
    setTimeout(() => {
      const upstream = netConnect(tlsPort, '127.0.0.1', () => {
        socket.pipe(upstream).pipe(socket);
        socket.resume();
      });
      relayed.add(upstream);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    }, 100);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    ca: tls.cert,
    accepted: () => accepted,
    close: () => {
      for (const socket of relayed) socket.destroy();
      relay.close();
    },
  };
}

/** Waits until `done()` holds, polling, for at most `ms`. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!done() && performance.now() < end) await delay(10);
}

/** Opened ahead though the target is near (loopback): what these tests look at is what is opened, and when. */
const NEAR_TOO = { evenNear: true };

const wave = (c: HttpClient, n: number) => Promise.all(Array.from({ length: n }, () => c.send({ method: 'GET', path: '/' })));

describe('connections opened ahead of need', () => {
  it('a wave of 8 requests goes on the 8 connections opened before it: none is opened for it', async () => {
    const seen = await target();
    const c = client(seen.url);
    c.openAhead(8, NEAR_TOO);
    await until(() => seen.accepted.length >= 8, 5_000);
    expect(seen.accepted).toHaveLength(8);
    const started = performance.now();
    const answers = await wave(c, 8);
    expect(answers.map((x) => x.response?.status ?? x.error?.message)).toEqual(Array(8).fill(200));
    expect(seen.accepted).toHaveLength(8);
    expect(seen.accepted.every((a) => a.at < started && a.requests === 1)).toBe(true);
  });

  it('one the server closed while it waited is never handed out: every request is answered, on a new connection', async () => {
    const seen = await target(50);
    const c = client(seen.url);
    c.openAhead(4, NEAR_TOO);
    await until(() => seen.accepted.length >= 4 && seen.accepted.every((a) => a.closed), 5_000);
    expect(seen.accepted.map((a) => a.closed)).toEqual(Array(4).fill(true));
    const answers = await wave(c, 4);
    expect(answers.map((x) => x.response?.status ?? x.error?.message)).toEqual(Array(4).fill(200));
    expect(seen.accepted.slice(4).map((a) => a.requests)).toEqual(Array(4).fill(1));
  });

  it(`one no request took is closed by the client (after ${IDLE_MS} ms), and not opened again until more are asked for`, async () => {
    const seen = await target();
    const c = client(seen.url);
    c.openAhead(3, NEAR_TOO);
    await until(() => seen.accepted.length >= 3 && seen.accepted.every((a) => a.closed), 20 * IDLE_MS);
    expect(seen.accepted.map((a) => ({ requests: a.requests, closed: a.closed }))).toEqual(Array(3).fill({ requests: 0, closed: true }));
    c.openAhead(3, NEAR_TOO);
    c.openAhead(4, NEAR_TOO);
    await until(() => seen.accepted.length >= 7, 5_000);
    expect(seen.accepted).toHaveLength(7);
  });

  it('at most the client’s connections are opened, however many are asked for', async () => {
    const seen = await target();
    const c = client(seen.url, { connections: 5 });
    c.openAhead(50, NEAR_TOO);
    await until(() => seen.accepted.length >= 5, 5_000);
    const answers = await wave(c, 5);
    expect(answers.every((x) => x.response?.status === 200)).toBe(true);
    expect(seen.accepted).toHaveLength(5);
  });

  it('a request sent while the connection opened ahead for it is still opening takes that one: one connection for one', async () => {
    const far = await farTls();
    try {
      const c = client(far.url, { connections: 1, ca: far.ca });
      c.openAhead(1, NEAR_TOO);
      const x = await c.send({ method: 'GET', path: '/' });
      expect(x.response?.status).toBe(200);
      expect(far.accepted()).toBe(1);
    } finally {
      far.close();
    }
  });

  it('toward a near target nothing is opened ahead unless asked (evenNear): connections open as requests need them', async () => {
    const seen = await target();
    const c = client(seen.url);
    c.openAhead(8);
    const x = await c.send({ method: 'GET', path: '/' });
    expect(x.response?.status).toBe(200);
    // Long enough for a handshake on loopback many times over: a connection opened ahead would have been seen.
    await delay(200);
    expect(seen.accepted).toHaveLength(1);
  });

  it('toward a far target (an opening took 10 ms or more) the rest are opened ahead once the first opening ends', async () => {
    const far = await farTls();
    try {
      const c = client(far.url, { ca: far.ca });
      c.openAhead(4);
      const x = await c.send({ method: 'GET', path: '/' });
      expect(x.response?.status).toBe(200);
      await until(() => far.accepted() >= 4, 10_000);
      expect(far.accepted()).toBe(4);
    } finally {
      far.close();
    }
  });

  it('a connector that throws fails the request with its error, once: no stack, no hang', async () => {
    // A client certificate that is not one: undici's TLS connector throws as it is called.
    const c = client('https://127.0.0.1:1', { cert: 'not a certificate', key: 'not a key' });
    const x = await c.send({ method: 'GET', path: '/' });
    expect(x.response).toBeUndefined();
    expect(x.error).toBeDefined();
  });

  it('through a proxy, nothing is opened ahead: the proxy sees a tunnel only for a request', async () => {
    const seen = await target();
    let tunnels = 0;
    const proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (_req: IncomingMessage, socket: Socket, head: Buffer) => {
      tunnels++;
      openTunnel(socket, head, '127.0.0.1', Number(new URL(seen.url).port));
    });
    const port = await listen(proxy);
    const c = client(seen.url, { proxy: { kind: 'url', url: `http://127.0.0.1:${port}` } });
    c.openAhead(8, NEAR_TOO);
    // Long enough for a handshake on loopback many times over: a tunnel opened ahead would have been seen.
    await delay(200);
    expect(tunnels).toBe(0);
    const x = await c.send({ method: 'GET', path: '/' });
    expect(x.response?.status).toBe(200);
    expect(tunnels).toBe(1);
  });
});
