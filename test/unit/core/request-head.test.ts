/**
 * A request head rewritten in each client's shape (core/request-head.ts): the
 * pure function, on heads as undici writes them (lower-case `host` and
 * `connection` first, the request's headers as given, `content-length` last).
 */
import { describe, expect, it } from 'vitest';
import { drawnClients } from '../../../core/clients.js';
import { codingsOf, DECODED_CODINGS } from '../../../core/decode.js';
import { FINGERPRINT_IDS, FINGERPRINTS, type FingerprintId } from '../../../core/fingerprints.js';
import { fingerprintHeaders, shapeHead, titleCase } from '../../../core/request-head.js';

const ORIGIN = 'http://127.0.0.1:8080';

/** A head as undici's HTTP/1.1 client writes it for `headers` (names as given). */
function undiciHead(method: string, path: string, headers: Record<string, string>, bodyLength?: number, connection = 'keep-alive'): string {
  let head = `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1:8080\r\nconnection: ${connection}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  if (bodyLength !== undefined) head += `content-length: ${bodyLength}\r\n`;
  return `${head}\r\n`;
}

/** The head undici writes for a request under `id`: the client's own headers, then the request's. */
function sent(id: FingerprintId, method: 'GET' | 'POST', own: Record<string, string>, bodyLength?: number, connection?: string): string {
  const headers = { ...fingerprintHeaders(FINGERPRINTS[id], ORIGIN, (bodyLength ?? 0) > 0), ...own };
  return shapeHead(
    undiciHead(method, method === 'GET' ? '/v1/pets?limit=1' : '/v1/pets', headers, bodyLength, connection),
    FINGERPRINTS[id],
    ORIGIN,
  );
}

const lines = (...rows: string[]) => `${rows.join('\r\n')}\r\n\r\n`;
const GET_OWN = { authorization: 'Bearer k' };
const POST_OWN = { 'content-type': 'application/json', authorization: 'Bearer k', 'x-trace': 'T1' };
const CHROME_UA = FINGERPRINTS.chrome.userAgent;

/** What each client writes for `GET /v1/pets?limit=1` and a `POST /v1/pets` with a 12-byte body. */
const EXPECTED: Record<FingerprintId, { get: string; post: string }> = {
  curl: {
    get: lines(
      'GET /v1/pets?limit=1 HTTP/1.1',
      'Host: 127.0.0.1:8080',
      'User-Agent: curl/8.14.1',
      'Accept: */*',
      'Authorization: Bearer k',
    ),
    post: lines(
      'POST /v1/pets HTTP/1.1',
      'Host: 127.0.0.1:8080',
      'User-Agent: curl/8.14.1',
      'Accept: */*',
      'Content-Type: application/json',
      'Authorization: Bearer k',
      'X-Trace: T1',
      'Content-Length: 12',
    ),
  },
  'python-requests': {
    get: lines(
      'GET /v1/pets?limit=1 HTTP/1.1',
      'Host: 127.0.0.1:8080',
      'User-Agent: python-requests/2.32.3',
      'Accept-Encoding: gzip, deflate',
      'Accept: */*',
      'Connection: keep-alive',
      'Authorization: Bearer k',
    ),
    post: lines(
      'POST /v1/pets HTTP/1.1',
      'Host: 127.0.0.1:8080',
      'User-Agent: python-requests/2.32.3',
      'Accept-Encoding: gzip, deflate',
      'Accept: */*',
      'Connection: keep-alive',
      'Authorization: Bearer k',
      'X-Trace: T1',
      'Content-Length: 12',
      'Content-Type: application/json',
    ),
  },
  'go-http-client': {
    get: lines(
      'GET /v1/pets?limit=1 HTTP/1.1',
      'Host: 127.0.0.1:8080',
      'User-Agent: Go-http-client/1.1',
      'Authorization: Bearer k',
      'Accept-Encoding: gzip',
    ),
    post: lines(
      'POST /v1/pets HTTP/1.1',
      'Host: 127.0.0.1:8080',
      'User-Agent: Go-http-client/1.1',
      'Content-Length: 12',
      'Authorization: Bearer k',
      'Content-Type: application/json',
      'X-Trace: T1',
      'Accept-Encoding: gzip',
    ),
  },
  okhttp: {
    get: lines(
      'GET /v1/pets?limit=1 HTTP/1.1',
      'Authorization: Bearer k',
      'Host: 127.0.0.1:8080',
      'Connection: Keep-Alive',
      'Accept-Encoding: gzip',
      'User-Agent: okhttp/4.12.0',
    ),
    post: lines(
      'POST /v1/pets HTTP/1.1',
      'Authorization: Bearer k',
      'X-Trace: T1',
      'Content-Type: application/json',
      'Content-Length: 12',
      'Host: 127.0.0.1:8080',
      'Connection: Keep-Alive',
      'Accept-Encoding: gzip',
      'User-Agent: okhttp/4.12.0',
    ),
  },
  'node-fetch': {
    get: lines(
      'GET /v1/pets?limit=1 HTTP/1.1',
      'host: 127.0.0.1:8080',
      'connection: keep-alive',
      'authorization: Bearer k',
      'accept: */*',
      'accept-language: *',
      'sec-fetch-mode: cors',
      'user-agent: node',
      'accept-encoding: gzip, deflate',
    ),
    post: lines(
      'POST /v1/pets HTTP/1.1',
      'host: 127.0.0.1:8080',
      'connection: keep-alive',
      'content-type: application/json',
      'authorization: Bearer k',
      'x-trace: T1',
      'accept: */*',
      'accept-language: *',
      'sec-fetch-mode: cors',
      'user-agent: node',
      'accept-encoding: gzip, deflate',
      'content-length: 12',
    ),
  },
  chrome: {
    get: lines(
      'GET /v1/pets?limit=1 HTTP/1.1',
      'Host: 127.0.0.1:8080',
      'Connection: keep-alive',
      'sec-ch-ua-platform: "Linux"',
      'Authorization: Bearer k',
      'sec-ch-ua: "Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
      'sec-ch-ua-mobile: ?0',
      `User-Agent: ${CHROME_UA}`,
      'Accept: */*',
      'Sec-Fetch-Site: same-origin',
      'Sec-Fetch-Mode: cors',
      'Sec-Fetch-Dest: empty',
      'Accept-Encoding: gzip, deflate, br',
      'Accept-Language: en-US,en;q=0.9',
    ),
    post: lines(
      'POST /v1/pets HTTP/1.1',
      'Host: 127.0.0.1:8080',
      'Connection: keep-alive',
      'Content-Length: 12',
      'sec-ch-ua-platform: "Linux"',
      'Authorization: Bearer k',
      'sec-ch-ua: "Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
      'sec-ch-ua-mobile: ?0',
      `User-Agent: ${CHROME_UA}`,
      'Accept: */*',
      'Content-Type: application/json',
      'X-Trace: T1',
      `Origin: ${ORIGIN}`,
      'Sec-Fetch-Site: same-origin',
      'Sec-Fetch-Mode: cors',
      'Sec-Fetch-Dest: empty',
      'Accept-Encoding: gzip, deflate, br',
      'Accept-Language: en-US,en;q=0.9',
    ),
  },
};

describe("shapeHead: each client's order and casing, values untouched", () => {
  it.each(FINGERPRINT_IDS)('%s: a GET and a POST with a body', (id) => {
    expect(sent(id, 'GET', GET_OWN)).toBe(EXPECTED[id].get);
    expect(sent(id, 'POST', POST_OWN, 12)).toBe(EXPECTED[id].post);
  });

  it.each(FINGERPRINT_IDS)('%s: every header line of the request is kept with its value, none added twice', (id) => {
    const head = undiciHead('POST', '/v1/pets', { ...fingerprintHeaders(FINGERPRINTS[id], ORIGIN, true), ...POST_OWN }, 12);
    const pairs = (text: string) =>
      text
        .split('\r\n')
        .slice(1, -2)
        .map((row) => [row.slice(0, row.indexOf(':')).toLowerCase(), row.slice(row.indexOf(':') + 2)])
        .filter(([name]) => name !== 'connection')
        .sort();
    expect(pairs(shapeHead(head, FINGERPRINTS[id], ORIGIN))).toEqual(pairs(head).sort());
  });

  it("a request's own value wins over the client's default, in the default's place", () => {
    const head = undiciHead('GET', '/v1/pets', { 'user-agent': 'mine/1', accept: 'application/json' });
    expect(shapeHead(head, FINGERPRINTS.curl, ORIGIN)).toBe(
      lines('GET /v1/pets HTTP/1.1', 'Host: 127.0.0.1:8080', 'User-Agent: mine/1', 'Accept: application/json'),
    );
  });

  it("Node's fetch: an Accept the application set goes among its own headers, spelled as it spells them; its default stays in its place", () => {
    // As the HTTP client builds them (core/request-headers.ts): the client's defaults, then the request's own.
    const headers = (own: Record<string, string>) => ({ ...fingerprintHeaders(FINGERPRINTS['node-fetch'], ORIGIN, false), ...own });
    const titled = { ...FINGERPRINTS['node-fetch'], casing: 'title' as const };
    const shaped = shapeHead(
      undiciHead('GET', '/v1/pets', headers({ accept: 'application/json', authorization: 'Bearer x' })),
      titled,
      ORIGIN,
    );
    // Where real Node 20 writes it: among the application's headers, before accept-language, in the application's casing.
    expect(shaped.split('\r\n').slice(1, 6)).toEqual([
      'host: 127.0.0.1:8080',
      'connection: keep-alive',
      'Accept: application/json',
      'Authorization: Bearer x',
      'accept-language: *',
    ]);
    const bare = shapeHead(undiciHead('GET', '/v1/pets', headers({ authorization: 'Bearer x' })), titled, ORIGIN);
    expect(bare).toContain('\r\nAuthorization: Bearer x\r\naccept: */*\r\naccept-language: *\r\n');
  });

  it('adds a default the request lacks; a with-body line only with a body; a connection line only where the client writes one', () => {
    const bare = undiciHead('GET', '/v1/pets', {});
    expect(shapeHead(bare, FINGERPRINTS.curl, ORIGIN)).toBe(
      lines('GET /v1/pets HTTP/1.1', 'Host: 127.0.0.1:8080', 'User-Agent: curl/8.14.1', 'Accept: */*'),
    );
    expect(shapeHead(bare, FINGERPRINTS.chrome, ORIGIN)).not.toContain('Origin:');
    expect(shapeHead(undiciHead('POST', '/v1/pets', {}, 0), FINGERPRINTS.chrome, ORIGIN)).not.toContain('Origin:');
    expect(shapeHead(undiciHead('POST', '/v1/pets', {}, 2), FINGERPRINTS.chrome, ORIGIN)).toContain(`\r\nOrigin: ${ORIGIN}\r\n`);
    // undici's `connection: close` (a connection for each request): curl writes no Connection line; a keep-alive client's close is kept.
    expect(shapeHead(undiciHead('GET', '/v1/pets', {}, undefined, 'close'), FINGERPRINTS.curl, ORIGIN)).not.toMatch(/connection/i);
    expect(shapeHead(undiciHead('GET', '/v1/pets', {}, undefined, 'close'), FINGERPRINTS['python-requests'], ORIGIN)).toContain(
      '\r\nConnection: close\r\n',
    );
  });

  it('leaves anything that is not a whole request head as it is (a body, a chunk, a partial head)', () => {
    for (const text of [
      '{"name":"a"}\r\n\r\n',
      '\r\n0\r\n\r\n',
      'GET /v1/pets HTTP/1.1\r\nhost: h\r\n',
      'GET /v1/pets HTTP/1.1\r\nnot a header\r\n\r\n',
    ]) {
      expect(shapeHead(text, FINGERPRINTS.okhttp, ORIGIN)).toBe(text);
    }
  });

  it('title case as Go canonicalises names', () => {
    expect(['content-type', 'x-request-id', 'WWW-AUTHENTICATE', 'te'].map(titleCase)).toEqual([
      'Content-Type',
      'X-Request-Id',
      'Www-Authenticate',
      'Te',
    ]);
  });
});

describe('fingerprintHeaders: what a client adds by itself', () => {
  it('leaves framing to undici, fills {origin}, and names no tool', () => {
    for (const id of FINGERPRINT_IDS) {
      const added = fingerprintHeaders(FINGERPRINTS[id], ORIGIN, true);
      expect(Object.keys(added)).not.toContain('host');
      expect(Object.keys(added)).not.toContain('connection');
      expect(Object.keys(added)).not.toContain('content-length');
      expect(added['user-agent']).toBe(FINGERPRINTS[id].userAgent);
      expect(JSON.stringify(added)).not.toMatch(/petstore|pctest|conformance/i);
    }
    expect(fingerprintHeaders(FINGERPRINTS.chrome, ORIGIN, true).origin).toBe(ORIGIN);
  });

  it('advertises only content codings the suite decodes (core/decode.ts), whatever version a run draws', () => {
    for (const seed of Array.from({ length: 50 }, (_, i) => i * 7919))
      for (const id of FINGERPRINT_IDS) {
        const advertised = fingerprintHeaders(drawnClients(seed).shapes[id], ORIGIN, true)['accept-encoding'];
        for (const coding of codingsOf(advertised)) expect(DECODED_CODINGS, `${id}: ${coding}`).toContain(coding);
      }
    expect(fingerprintHeaders(FINGERPRINTS.chrome, ORIGIN, false).origin).toBeUndefined();
  });
});
