/**
 * Interim answers and content codings, at the client: an unsolicited
 * `100 Continue` (and 102/103) is skipped wherever a response starts, in every
 * shape a server can send it, over keep-alive and TLS, and is never taken for
 * another request's answer; gzip, deflate and br bodies are decoded within the
 * body bound, a decompression bomb cut there and said so.
 */
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { createServer as createTlsServer } from 'node:tls';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { skipContinue } from '../../../core/connection.js';
import { bodyJson, DEFAULT_MAX_BODY_BYTES, HttpClient } from '../../../core/http.js';
import { selfSignedCert } from '../../helpers.js';

const open: Server[] = [];
afterAll(() => {
  for (const server of open) server.close();
});

/**
 * A raw HTTP/1.1 server: `answer(socket, n)` writes the answer to the n-th request (from 0) of the whole server,
 * one request at a time per connection. Counts connections.
 */
async function raw(
  answer: (socket: Socket, n: number) => void | Promise<void>,
  tls?: { key: string; cert: string },
): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const onSocket = (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    let buffer = '';
    let busy = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (let end = buffer.indexOf('\r\n\r\n'); end >= 0; end = buffer.indexOf('\r\n\r\n')) {
        buffer = buffer.slice(end + 4);
        const i = n++;
        busy = busy.then(() => answer(socket, i));
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
  return { url: `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, connections: () => connections };
}

const final = (i: number, extra = '') => {
  const body = `{"i":${i}${extra}}`;
  return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Ways a server sends interim answers before the final one. */
const interims: [string, (socket: Socket, finalAnswer: string) => Promise<void>][] = [
  ['100 Continue, then the answer', async (s, f) => void s.write(`HTTP/1.1 100 Continue\r\n\r\n${f}`)],
  [
    '100 Continue alone, the answer 20 ms later',
    async (s, f) => {
      s.write('HTTP/1.1 100 Continue\r\n\r\n');
      await sleep(20);
      s.write(f);
    },
  ],
  [
    '100 Continue one byte at a time',
    async (s, f) => {
      for (const byte of 'HTTP/1.1 100 Continue\r\n\r\n') {
        s.write(byte);
        await sleep(1);
      }
      s.write(f);
    },
  ],
  ['100 with headers and no reason phrase', async (s, f) => void s.write(`HTTP/1.1 100\r\nx-interim: yes\r\nserver: odd\r\n\r\n${f}`)],
  ['HTTP/1.0 100 Continue', async (s, f) => void s.write(`HTTP/1.0 100 Continue\r\n\r\n${f}`)],
  [
    'two 100s, a 102 and a 103 between them',
    async (s, f) =>
      void s.write(
        `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>; rel=preload\r\n\r\n${f}`,
      ),
  ],
  [
    'a 100 split where its blank line is',
    async (s, f) => {
      s.write('HTTP/1.1 100 Continue\r\n\r');
      await sleep(10);
      s.write(`\n${f}`);
    },
  ],
];

describe('keep-alive: a request sent right after an answer', () => {
  it('goes on the connection that answer came on, not a new one (each would cost a round trip)', async () => {
    // undici frees a connection a loop turn after its answer; a check sends its next request sooner than that.
    const target = await raw((socket, n) => void socket.write(final(n)));
    const client = new HttpClient({ baseUrl: target.url, timeoutMs: 3000, connections: 8 });
    try {
      for (let i = 0; i < 6; i++) expect((await client.send({ method: 'GET', path: `/pets?i=${i}` })).response?.status).toBe(200);
      expect(target.connections()).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe("interim answers (RFC 9110 §15.2): skipped, never another request's answer", () => {
  it.each(interims)('%s: five requests on one keep-alive connection, each gets its own answer', async (_name, send) => {
    const target = await raw((socket, n) => send(socket, final(n)));
    const client = new HttpClient({ baseUrl: target.url, timeoutMs: 3000, connections: 1 });
    try {
      for (let i = 0; i < 5; i++) {
        const x = await client.send({ method: 'GET', path: `/pets?i=${i}` });
        expect(x.error?.message).toBeUndefined();
        expect(x.response!.status).toBe(200);
        expect(bodyJson(x.response!)).toMatchObject({ ok: true });
        expect(Buffer.from(x.response!.body).toString()).toBe(`{"i":${i}}`);
      }
      expect(target.connections()).toBe(1);
    } finally {
      await client.close();
    }
  });

  it("a 100 block inside a body is the body's: left as it is", async () => {
    const target = await raw((socket, n) => void socket.write(final(n, ',"text":"HTTP/1.1 100 Continue\\r\\n\\r\\n"')));
    const client = new HttpClient({ baseUrl: target.url, timeoutMs: 3000, connections: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        const x = await client.send({ method: 'GET', path: '/pets' });
        expect(Buffer.from(x.response!.body).toString()).toBe(`{"i":${i},"text":"HTTP/1.1 100 Continue\\r\\n\\r\\n"}`);
      }
    } finally {
      await client.close();
    }
  });

  it('a 100 sent after a complete answer, before the next request: never taken for the next answer', async () => {
    const target = await raw((socket, n) => void socket.write(`${final(n)}HTTP/1.1 100 Continue\r\n\r\n`));
    const client = new HttpClient({ baseUrl: target.url, timeoutMs: 3000, connections: 1 });
    try {
      for (let i = 0; i < 6; i++) {
        const x = await client.send({ method: 'GET', path: '/pets' });
        // undici drops a connection that speaks out of turn; whatever comes back is this request's own answer.
        if (x.response) expect(Buffer.from(x.response.body).toString()).toMatch(/^\{"i":\d+\}$/);
        if (x.response) expect(JSON.parse(Buffer.from(x.response.body).toString()).i).toBeGreaterThanOrEqual(i);
      }
    } finally {
      await client.close();
    }
  });

  it('over TLS too: the filter sees the decrypted bytes', async () => {
    const { tls } = selfSignedCert();
    const target = await raw((socket, n) => void socket.write(`HTTP/1.1 100 Continue\r\n\r\n${final(n)}`), tls);
    const client = new HttpClient({ baseUrl: target.url, timeoutMs: 3000, connections: 1, ca: tls.cert });
    try {
      for (let i = 0; i < 3; i++)
        expect(Buffer.from((await client.send({ method: 'GET', path: '/pets' })).response!.body).toString()).toBe(`{"i":${i}}`);
    } finally {
      await client.close();
    }
  });
});

describe('the filter passes on the bytes read', () => {
  // A copy of every answer's first chunk was the load generator's largest garbage (200 MB in ten seconds of load).
  it('hands undici the very chunk a read produced, or a view of it past a 100 block: never a copy', async () => {
    // A socket's two sides: what is written goes nowhere, what is pushed is what was read.
    const socket = new Duplex({
      read() {},
      write(_chunk, _encoding, done) {
        done();
      },
    });
    skipContinue(socket);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const whole = Buffer.from(final(0));
    socket.push(whole);
    void socket.write('GET /pets HTTP/1.1\r\n\r\n');
    const after100 = Buffer.from(`HTTP/1.1 100 Continue\r\n\r\n${final(1)}`);
    socket.push(after100);
    await new Promise((resolve) => setImmediate(resolve));
    expect(received[0]).toBe(whole);
    expect(received[1]!.buffer).toBe(after100.buffer);
    expect(received[1]!.toString()).toBe(final(1));
  });
});

/** A server answering every request with `body`, sent with `content-encoding: coding`. */
async function coded(coding: string, body: Buffer): Promise<string> {
  const target = await raw(
    (socket) =>
      void socket.write(
        Buffer.concat([
          Buffer.from(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: ${coding}\r\ncontent-length: ${body.length}\r\n\r\n`,
            'latin1',
          ),
          body,
        ]),
      ),
  );
  return target.url;
}

async function fetchOnce(url: string) {
  const client = new HttpClient({ baseUrl: url, timeoutMs: 10_000, connections: 1 });
  try {
    return await client.send({ method: 'GET', path: '/pets' });
  } finally {
    await client.close();
  }
}

describe('content codings: decoded within the body bound', () => {
  const json = Buffer.from(JSON.stringify([{ id: 1, name: 'Rex', categoryId: 2, status: 'available' }]));
  it.each([
    ['gzip', gzipSync(json)],
    ['x-gzip', gzipSync(json)],
    ['deflate', deflateSync(json)],
    ['deflate', deflateRawSync(json)],
    ['br', brotliCompressSync(json)],
    ['gzip, br', brotliCompressSync(gzipSync(json))],
    ['identity', json],
  ])('%s: judged as the JSON it holds', async (coding, body) => {
    const x = await fetchOnce(await coded(coding, body));
    expect(Buffer.from(x.response!.body).equals(json)).toBe(true);
    expect(x.response!.truncated).toBe(false);
    expect(bodyJson(x.response!).ok).toBe(true);
  });

  it('a decompression bomb (64 MiB of JSON in 64 KiB of gzip) is cut at the bound, and said so', async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from('["'), Buffer.alloc(64 * 1024 * 1024, 'a'), Buffer.from('"]')]), { level: 9 });
    expect(bomb.length).toBeLessThan(128 * 1024);
    const before = process.memoryUsage().rss;
    const x = await fetchOnce(await coded('gzip', bomb));
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
    expect(x.response!.body.length).toBe(DEFAULT_MAX_BODY_BYTES);
    expect(x.response!.truncated).toBe(true);
    expect(x.response!.decoding).toMatchObject({ coding: 'gzip', cut: true, received: bomb.length });
    expect(bodyJson(x.response!)).toEqual({
      ok: false,
      reason: `a gzip-coded body that decodes to more than ${DEFAULT_MAX_BODY_BYTES} bytes (decoding stopped there)`,
    });
  });

  it('a damaged gzip body, and a coding the suite does not decode: kept as received, and said so', async () => {
    const damaged = await fetchOnce(await coded('gzip', Buffer.from('\x1f\x8bnot really gzip at all', 'latin1')));
    expect(bodyJson(damaged.response!)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^a gzip-coded body of \d+ bytes that the suite could not decode \(gzip: /) as unknown as string,
    });
    const zstd = await fetchOnce(await coded('zstd', json));
    expect(Buffer.from(zstd.response!.body).equals(json)).toBe(true);
    expect(bodyJson(zstd.response!)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/does not decode the zstd coding/) as unknown as string,
    });
  });
});
