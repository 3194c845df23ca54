// The raw load lane (suites/load/raw-lane.ts, h1.ts) against undici's lane (lane.ts): the same requests written byte
// for byte, and the same answers, well-formed or broken, ending the same way on both: answered (status, kept headers
// and body) or failed (timeout or socket error). A raw TCP server on loopback plays each answer.
import { once } from 'node:events';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lane, type Prepared } from '../../../suites/load/lane.js';
import { MAX_HEADER_SIZE } from '../../../suites/load/h1.js';
import { RawLane } from '../../../suites/load/raw-lane.js';
import { Lanes, prepare, rawRoute } from '../../../suites/load/sender.js';
import { tlsOptions } from '../../../core/connection.js';
import { selfSignedCert } from '../../helpers.js';

/** An answer the server plays: its pieces written apart (a turn between each), then the connection closed if asked. */
interface Case {
  name: string;
  answer: string | string[];
  close?: boolean;
}

const ok = (head: string, body = '{}') => `HTTP/1.1 200 OK\r\n${head}\r\n\r\n${body}`;

const CASES: Case[] = [
  { name: 'Content-Length', answer: ok('Content-Type: application/json\r\nContent-Length: 2') },
  { name: 'no reason phrase', answer: 'HTTP/1.1 200\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'reason with a trailing space', answer: 'HTTP/1.1 200 OK \r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'no header at all, closed', answer: 'HTTP/1.1 200 OK\r\n\r\n{}', close: true },
  { name: 'HTTP/1.0, closed', answer: 'HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}', close: true },
  { name: 'HTTP/1.0 keep-alive', answer: 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'HTTP/2.0 status line', answer: 'HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'HTTP/0.9 status line', answer: 'HTTP/0.9 200 OK\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'HTTP/3.0 status line', answer: 'HTTP/3.0 200 OK\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'HTTP/1.1 in lower case', answer: 'http/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'HTTP/1.2 status line', answer: 'HTTP/1.2 200 OK\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'status 099', answer: 'HTTP/1.1 099 X\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'status of 4 digits', answer: 'HTTP/1.1 2000 X\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'status glued to reason', answer: 'HTTP/1.1 200OK\r\nContent-Length: 2\r\n\r\n{}' },
  { name: '404 with a body (kept unsampled)', answer: 'HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nnope!' },
  { name: 'upper-case names', answer: ok('CONTENT-LENGTH: 2\r\nCONNECTION: keep-alive') },
  { name: 'Content-Length with spaces around', answer: ok('Content-Length:   2  ') },
  { name: 'Content-Length +2', answer: ok('Content-Length: +2') },
  { name: 'Content-Length 2x', answer: ok('Content-Length: 2x') },
  { name: 'Content-Length twice, same', answer: ok('Content-Length: 2\r\nContent-Length: 2') },
  { name: 'Content-Length twice, differing', answer: ok('Content-Length: 2\r\nContent-Length: 3') },
  { name: 'Content-Length with chunked', answer: ok('Content-Length: 2\r\nTransfer-Encoding: chunked', '2\r\n{}\r\n0\r\n\r\n') },
  { name: 'chunked', answer: ok('Transfer-Encoding: chunked', '2\r\n{}\r\n0\r\n\r\n') },
  { name: 'Chunked, capitalised', answer: ok('Transfer-Encoding: Chunked', '2\r\n{}\r\n0\r\n\r\n') },
  { name: 'chunked, extension and trailer', answer: ok('Transfer-Encoding: chunked', '2;x=1\r\n{}\r\n0\r\nX-T: 1\r\n\r\n') },
  { name: 'chunked, size with a space', answer: ok('Transfer-Encoding: chunked', '2 \r\n{}\r\n0\r\n\r\n') },
  { name: 'chunked, upper-case hex', answer: ok('Transfer-Encoding: chunked', `A\r\n${'x'.repeat(10)}\r\n0\r\n\r\n`) },
  { name: 'chunked, size then extension after a space', answer: ok('Transfer-Encoding: chunked', '2 ;x\r\n{}\r\n0\r\n\r\n') },
  { name: 'chunked, several chunks', answer: ok('Transfer-Encoding: chunked', '1\r\n{\r\n1\r\n}\r\n0\r\n\r\n') },
  { name: 'chunked, leading zeros', answer: ok('Transfer-Encoding: chunked', '002\r\n{}\r\n0000\r\n\r\n') },
  { name: 'chunked, control byte in the size', answer: ok('Transfer-Encoding: chunked', '\x102\r\n{}\r\n0\r\n\r\n') },
  { name: 'chunked, 17 hex digits', answer: ok('Transfer-Encoding: chunked', '00000000000000002\r\n{}\r\n0\r\n\r\n') },
  { name: 'chunked, CR then junk after data', answer: ok('Transfer-Encoding: chunked', '2\r\n{}\rX0\r\n\r\n') },
  { name: 'chunked, LF alone after data', answer: ok('Transfer-Encoding: chunked', '2\r\n{}\n0\r\n\r\n') },
  { name: 'chunked, size with LF alone', answer: ok('Transfer-Encoding: chunked', '2\n{}\r\n0\r\n\r\n') },
  {
    name: 'chunked, every CR apart from its LF',
    answer: ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2', '\r', '\n{}', '\r', '\n0', '\r', '\n', '\r', '\n'],
  },
  { name: 'chunked, bad size', answer: ok('Transfer-Encoding: chunked', 'zz\r\n{}\r\n0\r\n\r\n') },
  { name: 'chunked, missing CRLF after data', answer: ok('Transfer-Encoding: chunked', '2\r\n{}XX0\r\n\r\n') },
  { name: 'chunked, cut short then closed', answer: ok('Transfer-Encoding: chunked', '5\r\n{}'), close: true },
  { name: 'gzip, chunked', answer: ok('Transfer-Encoding: gzip, chunked', '2\r\n{}\r\n0\r\n\r\n') },
  { name: 'chunked, gzip (to the end), closed', answer: ok('Transfer-Encoding: chunked, gzip', 'abc'), close: true },
  { name: 'identity (to the end), closed', answer: ok('Transfer-Encoding: identity', 'abc'), close: true },
  { name: 'no framing, closed', answer: ok('Content-Type: text/plain', 'to the end'), close: true },
  { name: 'Connection: close', answer: ok('Connection: close\r\nContent-Length: 2'), close: true },
  { name: 'Connection: close, left open', answer: ok('Connection: close\r\nContent-Length: 2') },
  { name: 'gzip,chunked without a space', answer: ok('Transfer-Encoding: gzip,chunked', '2\r\n{}\r\n0\r\n\r\n') },
  { name: 'xchunked (to the end), closed', answer: ok('Transfer-Encoding: xchunked', 'abc'), close: true },
  { name: 'two Transfer-Encoding headers', answer: ok('Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked', '2\r\n{}\r\n0\r\n\r\n') },
  { name: 'Connection: Keep-Alive, Close', answer: ok('Connection: Keep-Alive, Close\r\nContent-Length: 2'), close: true },
  { name: 'HTTP/1.0, Connection: KEEP-ALIVE', answer: 'HTTP/1.0 200 OK\r\nConnection: KEEP-ALIVE\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'Keep-Alive max and a short timeout', answer: ok('Keep-Alive: max=5, timeout=1\r\nContent-Length: 2') },
  { name: 'status 000', answer: 'HTTP/1.1 000 X\r\nContent-Length: 2\r\n\r\n{}' },
  { name: 'tab before a value', answer: ok('Content-Length:\t2\r\nX-A:\t\tb') },
  { name: 'Keep-Alive hint', answer: ok('Connection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 2') },
  { name: '204', answer: 'HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n' },
  { name: '204 with a Content-Length', answer: 'HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n' },
  { name: '204 with Content-Length 0', answer: 'HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n' },
  { name: '200 with Content-Length 0', answer: ok('Content-Length: 0', '') },
  { name: '304 with a Content-Length', answer: 'HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n' },
  { name: 'body cut short, closed', answer: ok('Content-Length: 10', '{}'), close: true },
  { name: 'bytes after the body', answer: ok('Content-Length: 2', '{}xyz') },
  { name: 'a second answer after the body', answer: ok('Content-Length: 2', `{}${ok('Content-Length: 2')}`) },
  { name: 'body over the read bound', answer: ok('Content-Length: 3000', 'y'.repeat(3000)) },
  { name: 'repeated headers', answer: ok('Set-Cookie: a=1\r\nset-cookie: b=2\r\nContent-Length: 2') },
  { name: 'empty value', answer: ok('X-A:\r\nContent-Length: 2') },
  { name: 'value with obs-text', answer: ok('X-A: caf\xe9\r\nContent-Length: 2') },
  { name: 'value with a tab', answer: ok('X-A: a\tb\r\nContent-Length: 2') },
  { name: 'value with a control character', answer: ok('X-A: a\x01b\r\nContent-Length: 2') },
  { name: 'value with a DEL', answer: ok('X-A: a\x7fb\r\nContent-Length: 2') },
  { name: 'space before the colon', answer: ok('X-A : b\r\nContent-Length: 2') },
  { name: 'invalid name character', answer: ok('X(A: b\r\nContent-Length: 2') },
  { name: 'obsolete line folding', answer: ok('X-A: a\r\n b\r\nContent-Length: 2') },
  { name: 'bare LF line endings', answer: 'HTTP/1.1 200 OK\nContent-Length: 2\n\n{}' },
  { name: 'bare LF ending one header', answer: 'HTTP/1.1 200 OK\r\nX-A: 1\nContent-Length: 2\r\n\r\n{}' },
  { name: 'bare CR in a value', answer: ok('X-A: a\rb\r\nContent-Length: 2') },
  { name: 'headers at the size limit', answer: ok(`X-A: ${'v'.repeat(MAX_HEADER_SIZE - 40)}\r\nContent-Length: 2`) },
  { name: 'headers over the size limit', answer: ok(`X-A: ${'v'.repeat(MAX_HEADER_SIZE)}\r\nContent-Length: 2`) },
  { name: '100 Continue first', answer: `HTTP/1.1 100 Continue\r\n\r\n${ok('Content-Length: 2')}` },
  { name: 'two 100 Continue first', answer: `HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n${ok('Content-Length: 2')}` },
  { name: '103 Early Hints first', answer: `HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n${ok('Content-Length: 2')}` },
  { name: '101 Switching Protocols', answer: 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n' },
  { name: 'garbage', answer: 'hello there\r\n\r\n' },
  { name: 'garbage, left open', answer: 'hello' },
  { name: 'bare LF in the status line, left open', answer: 'HTTP/1.1 200 OK\nX' },
  { name: 'bare LF after a header, left open', answer: 'HTTP/1.1 200 OK\r\nX-A: 1\nX' },
  { name: 'bad name start, left open', answer: 'HTTP/1.1 200 OK\r\n(' },
  { name: 'head stalls', answer: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n' },
  { name: 'head stalls after a CR', answer: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r' },
  { name: 'body stalls', answer: ok('Content-Length: 4', '{}') },
  { name: 'closed before any byte', answer: '', close: true },
  {
    name: 'written in pieces',
    answer: ['HTTP/1.', '1 200 OK\r\nContent-Le', 'ngth: 4\r', '\n\r\n{', '}', '{}'],
  },
  {
    name: 'chunked, in pieces',
    answer: ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2', '\r\n{', '}\r', '\n0\r\nX-T:', ' 1\r\n', '\r\n'],
  },
];

/** A server playing `answer` to every request: reads each request head (and its Content-Length body) first. */
async function player(): Promise<{ url: string; use(c: Case): void; heads: string[]; close(): Promise<void> }> {
  let current: Case = CASES[0]!;
  const heads: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let seen = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      for (;;) {
        const end = seen.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = seen.toString('latin1', 0, end + 4);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (seen.length < end + 4 + length) return;
        heads.push(seen.toString('latin1', 0, end + 4 + length));
        seen = seen.subarray(end + 4 + length);
        void play(socket, current);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    use: (c) => (current = c),
    heads,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

async function play(socket: Socket, c: Case): Promise<void> {
  for (const piece of typeof c.answer === 'string' ? [c.answer] : c.answer) {
    if (socket.destroyed) return;
    if (piece) socket.write(Buffer.from(piece, 'latin1'));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (c.close) socket.end();
}

type Outcome = string;

/** Sends `prepared` twice in a row on `lane` (the second on a reused or a new connection); each outcome as a line. */
async function twice(lane: Lane | RawLane, prepared: Prepared, wanted: boolean): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let i = 0; i < 2; i++) {
    const outcome = await new Promise<Outcome>((resolve) => {
      // The lanes' sweep (sender.ts), at the test's deadline.
      const sweep = setInterval(() => lane.sweep(performance.now(), 1000), 20);
      lane.user = {
        answered: (status, sampled) => {
          clearInterval(sweep);
          resolve(
            `answered ${status} ${sampled ? JSON.stringify({ ...sampled, body: Buffer.from(sampled.body).toString('latin1') }) : '(not kept)'}`,
          );
        },
        failed: (kind) => {
          clearInterval(sweep);
          resolve(`failed ${kind}`);
        },
      };
      lane.send(prepared, wanted);
    });
    outcomes.push(outcome);
  }
  return outcomes;
}

describe('the raw lane against undici’s lane', () => {
  let server: Awaited<ReturnType<typeof player>>;
  beforeAll(async () => {
    server = await player();
  });
  afterAll(() => server.close());

  const run = (path: string, body?: string) => ({
    baseUrl: `${server.url}/v1`,
    requests: [
      {
        operation: 'createPet' as const,
        authProbe: false,
        method: body === undefined ? ('GET' as const) : ('POST' as const),
        path,
        ...(body === undefined ? {} : { body }),
      },
    ],
    authorization: 'Bearer raw-lane-key',
    connection: { headers: { 'x-extra': 'one' } },
  });

  it('writes the same bytes as undici', async () => {
    for (const request of [run('/pets/1'), run('/pets', '{"name":"a","categoryId":1}')]) {
      expect(rawRoute(request)).toBe(true);
      const prepared = prepare(request)[0]!;
      server.use(CASES[0]!);
      server.heads.length = 0;
      const options = { origin: server.url, timeoutMs: 1000, maxBodyBytes: 1024 };
      const undici = new Lane(options);
      await twice(undici, prepared, true);
      const raw = new RawLane({ ...options, tls: {} });
      await twice(raw, prepared, true);
      await Promise.all([undici.close(), raw.close()]);
      expect(server.heads).toHaveLength(4);
      expect(server.heads[2]).toBe(server.heads[0]);
      expect(server.heads[3]).toBe(server.heads[1]);
    }
  });

  for (const wanted of [true, false])
    it.each(CASES.map((c) => [c.name, c] as const))(`${wanted ? 'kept' : 'unsampled'}: %s ends the same way`, async (_, c) => {
      server.use(c);
      const prepared = prepare(run('/pets/1'))[0]!;
      const options = { origin: server.url, timeoutMs: 1000, maxBodyBytes: 2048 };
      const undici = new Lane(options);
      const expected = await twice(undici, prepared, wanted);
      const raw = new RawLane({ ...options, tls: {} });
      const got = await twice(raw, prepared, wanted);
      await Promise.all([undici.close(), raw.close()]);
      expect(got).toEqual(expected);
    });
});

describe('which lanes a run gets', () => {
  const base = { baseUrl: 'http://127.0.0.1:9/v1', timeoutMs: 1000, authorization: 'Bearer raw-lane-key' };
  const kinds = async (run: ConstructorParameters<typeof Lanes>[0]) => {
    const lanes = new Lanes(run, 2);
    await lanes.close();
    return lanes.all.map((lane) => (lane instanceof RawLane ? 'raw' : 'undici'));
  };

  it('raw lanes for a direct connection, over HTTP or HTTPS, with extra headers undici sends as given', async () => {
    expect(await kinds(base)).toEqual(['raw', 'raw']);
    expect(await kinds({ ...base, baseUrl: 'https://127.0.0.1:9/v1', connection: { insecure: true } })).toEqual(['raw', 'raw']);
    expect(await kinds({ ...base, connection: { headers: { 'x-tenant': 'a b' } } })).toEqual(['raw', 'raw']);
  });

  it("undici's lanes through a proxy, speaking as another client, or with headers it would not send as given", async () => {
    expect(await kinds({ ...base, connection: { proxy: { kind: 'url', url: 'http://127.0.0.1:9' } } })).toEqual(['undici', 'undici']);
    expect(
      await kinds({ ...base, connection: { proxy: { kind: 'env', httpProxy: 'http://127.0.0.1:9', httpsProxy: '', noProxy: '' } } }),
    ).toEqual(['undici', 'undici']);
    expect(await kinds({ ...base, fingerprints: ['curl'] })).toEqual(['undici', 'undici']);
    expect(await kinds({ ...base, connection: { headers: { 'x-a': 'line\nbreak' } } })).toEqual(['undici', 'undici']);
    expect(await kinds({ ...base, connection: { headers: { host: 'elsewhere' } } })).toEqual(['undici', 'undici']);
    // Without the key's form the guard cannot be checked: undici's lanes, as before.
    expect(await kinds({ baseUrl: base.baseUrl, timeoutMs: 1000 })).toEqual(['undici', 'undici']);
  });
});

describe('the raw lane over TLS, against undici’s lane', () => {
  it('verifies the certificate as undici does: trusted with its CA or when insecure, refused otherwise', async () => {
    const { tls } = selfSignedCert();
    const server = createHttpsServer(tls, (_, res) => res.end('{}'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const prepared = prepare({
        baseUrl: `${origin}/v1`,
        requests: [{ operation: 'getPet', authProbe: false, method: 'GET', path: '/pets/1' }],
        authorization: 'Bearer raw-lane-key',
      })[0]!;
      const outcomes: Record<string, string[]> = {};
      for (const [name, connection] of [
        ['with its CA', { ca: tls.cert }],
        ['insecure', { insecure: true }],
        ['unverified', {}],
      ] as const) {
        const options = { origin, timeoutMs: 2000, maxBodyBytes: 1024 };
        const undici = new Lane({ ...options, connection });
        const raw = new RawLane({ ...options, tls: tlsOptions(connection) });
        outcomes[name] = [...(await twice(undici, prepared, true)), ...(await twice(raw, prepared, true))].map((o) =>
          o.replace(/"date":"[^"]*"/, '"date":"…"'),
        );
        await Promise.all([undici.close(), raw.close()]);
      }
      expect(outcomes['with its CA']![2]).toBe(outcomes['with its CA']![0]);
      expect(outcomes['with its CA']![0]).toMatch(/^answered 200 /);
      expect(outcomes['insecure']![2]).toMatch(/^answered 200 /);
      expect(outcomes['unverified']).toEqual(Array(4).fill('failed socketErrors'));
    } finally {
      server.close();
    }
  });
});
