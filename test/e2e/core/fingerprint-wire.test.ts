/**
 * Client fingerprints on the wire: the exact request heads a raw TCP (and TLS)
 * server receives from the HTTP client for each fingerprint (order, casing,
 * User-Agent, connection habit), straight and through a proxy tunnel; and the
 * tool's own shape, unchanged but for `userAgent`.
 */
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { FINGERPRINT_IDS, FINGERPRINTS, type FingerprintId } from '../../../core/fingerprints.js';
import { HttpClient } from '../../../core/http.js';
import { openTunnel, selfSignedCert } from '../../helpers.js';

const open: Server[] = [];
afterAll(async () => {
  await Promise.all(open.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A raw HTTP/1.1 server that keeps every request head it reads, with the number of the connection it came on. */
async function capturing(tls?: {
  key: string;
  cert: string;
}): Promise<{ url: string; port: number; heads: { connection: number; head: string }[] }> {
  const heads: { connection: number; head: string }[] = [];
  let connections = 0;
  const sockets = new Set<Socket>();
  const onSocket = (socket: Socket) => {
    const connection = connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end + 4).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        buffer = buffer.subarray(end + 4 + length);
        heads.push({ connection, head });
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
      }
    });
  };
  const server = tls ? createTlsServer(tls, onSocket) : createNetServer(onSocket);
  const close = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    for (const s of sockets) s.destroy();
    return close(cb);
  };
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/v1`, port, heads };
}

/** A loopback proxy that opens CONNECT tunnels; counts them. */
async function tunnelProxy(): Promise<{ url: string; connects: string[] }> {
  const connects: string[] = [];
  const server = createHttpServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    openTunnel(client, head, host, Number(port));
  });
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connects };
}

const CHROME_HINTS = ['sec-ch-ua-platform', 'Authorization', 'sec-ch-ua', 'sec-ch-ua-mobile', 'User-Agent', 'Accept'];
const CHROME_FETCH = ['Sec-Fetch-Site', 'Sec-Fetch-Mode', 'Sec-Fetch-Dest', 'Accept-Encoding', 'Accept-Language'];

/** The header names, as written and in order, each client sends for the GET and the POST below. */
const NAMES: Record<FingerprintId, { get: string[]; post: string[] }> = {
  curl: {
    get: ['Host', 'User-Agent', 'Accept', 'Authorization'],
    post: ['Host', 'User-Agent', 'Accept', 'Content-Type', 'Authorization', 'Content-Length'],
  },
  'python-requests': {
    get: ['Host', 'User-Agent', 'Accept-Encoding', 'Accept', 'Connection', 'Authorization'],
    post: ['Host', 'User-Agent', 'Accept-Encoding', 'Accept', 'Connection', 'Authorization', 'Content-Length', 'Content-Type'],
  },
  'go-http-client': {
    get: ['Host', 'User-Agent', 'Authorization', 'Accept-Encoding'],
    post: ['Host', 'User-Agent', 'Content-Length', 'Authorization', 'Content-Type', 'Accept-Encoding'],
  },
  okhttp: {
    get: ['Authorization', 'Host', 'Connection', 'Accept-Encoding', 'User-Agent'],
    post: ['Authorization', 'Content-Type', 'Content-Length', 'Host', 'Connection', 'Accept-Encoding', 'User-Agent'],
  },
  'node-fetch': {
    get: ['host', 'connection', 'authorization', 'accept', 'accept-language', 'sec-fetch-mode', 'user-agent', 'accept-encoding'],
    post: [
      'host',
      'connection',
      'content-type',
      'authorization',
      'accept',
      'accept-language',
      'sec-fetch-mode',
      'user-agent',
      'accept-encoding',
      'content-length',
    ],
  },
  chrome: {
    get: ['Host', 'Connection', ...CHROME_HINTS, ...CHROME_FETCH],
    post: ['Host', 'Connection', 'Content-Length', ...CHROME_HINTS, 'Content-Type', 'Origin', ...CHROME_FETCH],
  },
};

const namesOf = (head: string) =>
  head
    .split('\r\n')
    .slice(1, -2)
    .map((row) => row.slice(0, row.indexOf(':')));
const valueOf = (head: string, name: string) =>
  head
    .split('\r\n')
    .find((row) => row.toLowerCase().startsWith(`${name.toLowerCase()}:`))
    ?.replace(/^[^:]*: /, '');

/** Sends, under `id`, a GET, a POST with a body, then another GET, one after the other. */
async function sendThree(client: HttpClient, id: FingerprintId | undefined): Promise<void> {
  const fingerprint = id === undefined ? {} : { fingerprint: id };
  const get = { method: 'GET' as const, path: '/pets?limit=1', headers: { authorization: 'Bearer k' }, ...fingerprint };
  for (const spec of [
    get,
    {
      method: 'POST' as const,
      path: '/pets',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: '{"name":"Rex"}',
      ...fingerprint,
    },
    get,
  ]) {
    const x = await client.send(spec);
    expect(x.response?.status, x.error?.message).toBe(200);
  }
}

/** Each client's three heads: names in its order and casing, its User-Agent, Origin for Chrome's POST, and its connection habit. */
function expectShaped(heads: { connection: number; head: string }[], id: FingerprintId, origin: string): void {
  expect(heads).toHaveLength(3);
  expect(heads.map((h) => namesOf(h.head))).toEqual([NAMES[id].get, NAMES[id].post, NAMES[id].get]);
  for (const { head } of heads) {
    expect(valueOf(head, 'user-agent')).toBe(FINGERPRINTS[id].userAgent);
    expect(valueOf(head, 'authorization')).toBe('Bearer k');
    expect(head).not.toMatch(/petstore|pctest|conformance/i);
  }
  expect(valueOf(heads[1]!.head, 'content-length')).toBe('14');
  if (id === 'chrome') expect(valueOf(heads[1]!.head, 'origin')).toBe(origin);
  // close-each: one request per connection; keep-alive: connections reused (undici's pool may open a second one).
  const connections = new Set(heads.map((h) => h.connection)).size;
  if (FINGERPRINTS[id].connection === 'close-each') expect(connections).toBe(3);
  else expect(connections).toBeLessThan(3);
}

describe('each fingerprint, as a raw server reads it', () => {
  it.each(FINGERPRINT_IDS)('%s: header order and casing, User-Agent, connection habit', async (id) => {
    const target = await capturing();
    const client = new HttpClient({ baseUrl: target.url, timeoutMs: 5_000 });
    try {
      await sendThree(client, id);
    } finally {
      await client.close();
    }
    expectShaped(target.heads, id, `http://127.0.0.1:${target.port}`);
  });

  it("the exact bytes of a head: curl's GET and node fetch's POST", async () => {
    const target = await capturing();
    const client = new HttpClient({ baseUrl: target.url, timeoutMs: 5_000 });
    try {
      await client.send({ method: 'GET', path: '/pets?limit=1', headers: { authorization: 'Bearer k' }, fingerprint: 'curl' });
      await client.send({
        method: 'POST',
        path: '/pets',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: '{}',
        fingerprint: 'node-fetch',
      });
    } finally {
      await client.close();
    }
    const host = `127.0.0.1:${target.port}`;
    expect(target.heads.map((h) => h.head)).toEqual([
      `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: curl/8.14.1\r\nAccept: */*\r\nAuthorization: Bearer k\r\n\r\n`,
      `POST /v1/pets HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\ncontent-type: application/json\r\nauthorization: Bearer k\r\naccept: */*\r\naccept-language: *\r\nsec-fetch-mode: cors\r\nuser-agent: node\r\naccept-encoding: gzip, deflate\r\ncontent-length: 2\r\n\r\n`,
    ]);
  });

  it("a request sent again on a new connection of its own (fresh) keeps its client's shape", async () => {
    const target = await capturing();
    const client = new HttpClient({ baseUrl: target.url, timeoutMs: 5_000 });
    try {
      await client.send({
        method: 'GET',
        path: '/pets?limit=1',
        headers: { authorization: 'Bearer k' },
        fingerprint: 'okhttp',
        fresh: true,
      });
    } finally {
      await client.close();
    }
    expect(namesOf(target.heads[0]!.head)).toEqual(NAMES.okhttp.get);
  });
});

describe("the tool's own shape", () => {
  it("is undici's head with the tool's headers, byte for byte; userAgent replaces only the User-Agent value", async () => {
    const target = await capturing();
    const plain = new HttpClient({ baseUrl: target.url, timeoutMs: 5_000 });
    const named = new HttpClient({ baseUrl: target.url, timeoutMs: 5_000, userAgent: 'acme-probe/2' });
    try {
      await plain.send({
        method: 'POST',
        path: '/pets',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: '{}',
      });
      await named.send({ method: 'GET', path: '/pets', headers: { authorization: 'Bearer k' } });
    } finally {
      await plain.close();
      await named.close();
    }
    const host = `127.0.0.1:${target.port}`;
    expect(target.heads.map((h) => h.head)).toEqual([
      `POST /v1/pets HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\nuser-agent: petstore-conformance\r\naccept: application/json\r\ncontent-type: application/json\r\nauthorization: Bearer k\r\ncontent-length: 2\r\n\r\n`,
      `GET /v1/pets HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\nuser-agent: acme-probe/2\r\naccept: application/json\r\nauthorization: Bearer k\r\n\r\n`,
    ]);
  });
});

describe('shaped over TLS and through a proxy tunnel', () => {
  const { tls } = selfSignedCert();

  it.each(['curl', 'chrome'] as const)('%s over TLS: the head is rewritten before encryption', async (id) => {
    const target = await capturing(tls);
    const client = new HttpClient({ baseUrl: target.url, timeoutMs: 5_000, ca: tls.cert });
    try {
      await sendThree(client, id);
    } finally {
      await client.close();
    }
    expectShaped(target.heads, id, `https://127.0.0.1:${target.port}`);
  });

  it.each([
    ['http', 'okhttp'],
    ['https', 'curl'],
    ['https', 'python-requests'],
  ] as const)('%s target through a CONNECT tunnel, %s', async (scheme, id) => {
    const target = await capturing(scheme === 'https' ? tls : undefined);
    const p = await tunnelProxy();
    const client = new HttpClient({ baseUrl: target.url, timeoutMs: 5_000, ca: tls.cert, proxy: { kind: 'url', url: p.url } });
    try {
      await sendThree(client, id);
    } finally {
      await client.close();
    }
    expect(p.connects.length).toBeGreaterThan(0);
    expectShaped(target.heads, id, `${scheme}://127.0.0.1:${target.port}`);
  });
});
