/**
 * Client fingerprints: the shapes in which ordinary HTTP clients send a
 * request (User-Agent, the headers they add by themselves, the order and
 * casing of every header line, their connection habit). A certification run
 * sends its requests under these shapes, so a server cannot answer the suite
 * alone correctly by recognising how it talks; a plain run sends the tool's
 * own shape ({@link TOOL_FINGERPRINT}) unless asked otherwise.
 *
 * The table is data: what each client puts on the wire for a JSON API call
 * made the usual way (curl with `-H`, requests' `Session`, Go's
 * `http.Client`, OkHttp, Node's built-in `fetch`, a browser's `fetch` from a
 * same-origin page). Header values a request carries itself (Authorization,
 * Content-Type, a test's own headers) always win over the client's defaults.
 */

/** The clients a run may speak as. */
export const FINGERPRINT_IDS = ['curl', 'python-requests', 'go-http-client', 'okhttp', 'node-fetch', 'chrome'] as const;

/** One of {@link FINGERPRINT_IDS}. */
export type FingerprintId = (typeof FINGERPRINT_IDS)[number];

/** The tool's own shape: `user-agent: petstore-conformance`, undici's header lines. */
export const TOOL_FINGERPRINT = 'tool';

/**
 * One line of a client's request head, in its place:
 * - `[name, value]`: a header the client adds by itself (the request's own value, if it has one, wins);
 * - a name alone (`Host`, `Content-Length`, `Content-Type`, `Authorization`, `Connection`…): where the
 *   client puts that header when the request has it, in this casing;
 * - `'*'`: where the request's other headers go, in their order, cased by {@link Fingerprint.casing}.
 *
 * A value may hold `{origin}`: the target's origin (`http://host:port`).
 */
export type HeadLine = string | readonly [name: string, value: string] | readonly [name: string, value: string, when: 'with-body'];

/** How a client shapes its requests on the wire. */
export interface Fingerprint {
  id: FingerprintId;
  /** The client, in words (`curl 8 (command line)`). */
  label: string;
  /** Its User-Agent value. */
  userAgent: string;
  /** Every line of its request head, in order (the request line aside). */
  head: readonly HeadLine[];
  /** Casing of header names not named in `head`: `title` (`Content-Type`) or `lower` (`content-type`). */
  casing: 'title' | 'lower';
  /** Order of the request's other headers at `'*'`: as the request has them (default), or `sorted` by name (Go's `Header.Write`). */
  others?: 'sorted';
  /**
   * Headers the client adds by itself only when the application set none: one
   * the application set (another value) goes among its own headers at `'*'`,
   * spelled as the application spells them (Node's fetch: `Accept`).
   */
  appPlaced?: readonly string[];
  /**
   * Its connection habit: `close-each`, a new connection for every request
   * and no `Connection` header (a command-line client run once per call);
   * `keep-alive`, connections reused while open.
   */
  connection: 'close-each' | 'keep-alive';
}

/** The clients, one entry each: what they send for a JSON API call, measured from their own traffic. */
export const FINGERPRINTS: Readonly<Record<FingerprintId, Fingerprint>> = {
  curl: {
    id: 'curl',
    label: 'curl (command line, -H for each header)',
    userAgent: 'curl/8.14.1',
    head: ['Host', ['User-Agent', 'curl/8.14.1'], ['Accept', '*/*'], '*', 'Content-Length'],
    casing: 'title',
    connection: 'close-each',
  },
  'python-requests': {
    id: 'python-requests',
    label: 'Python requests (a Session)',
    userAgent: 'python-requests/2.32.3',
    head: [
      'Host',
      ['User-Agent', 'python-requests/2.32.3'],
      ['Accept-Encoding', 'gzip, deflate'],
      ['Accept', '*/*'],
      ['Connection', 'keep-alive'],
      '*',
      'Content-Length',
      'Content-Type',
    ],
    casing: 'title',
    connection: 'keep-alive',
  },
  'go-http-client': {
    id: 'go-http-client',
    label: 'Go net/http client',
    userAgent: 'Go-http-client/1.1',
    // Go writes Host, User-Agent and Content-Length first, then the request's headers sorted by name, then Accept-Encoding.
    head: ['Host', ['User-Agent', 'Go-http-client/1.1'], 'Content-Length', '*', ['Accept-Encoding', 'gzip']],
    casing: 'title',
    others: 'sorted',
    connection: 'keep-alive',
  },
  okhttp: {
    id: 'okhttp',
    label: 'OkHttp (Android, JVM)',
    userAgent: 'okhttp/4.12.0',
    // OkHttp's BridgeInterceptor: the application's headers, then Content-Type, Content-Length, Host, Connection, Accept-Encoding, User-Agent.
    head: [
      '*',
      'Content-Type',
      'Content-Length',
      'Host',
      ['Connection', 'Keep-Alive'],
      ['Accept-Encoding', 'gzip'],
      ['User-Agent', 'okhttp/4.12.0'],
    ],
    casing: 'title',
    connection: 'keep-alive',
  },
  'node-fetch': {
    id: 'node-fetch',
    label: "Node.js's built-in fetch",
    userAgent: 'node',
    head: [
      'host',
      ['connection', 'keep-alive'],
      '*',
      ['accept', '*/*'],
      ['accept-language', '*'],
      ['sec-fetch-mode', 'cors'],
      ['user-agent', 'node'],
      ['accept-encoding', 'gzip, deflate'],
      'content-length',
    ],
    casing: 'lower',
    appPlaced: ['accept', 'accept-language'],
    connection: 'keep-alive',
  },
  chrome: {
    id: 'chrome',
    label: 'Chrome (fetch from a same-origin page)',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    head: [
      'Host',
      ['Connection', 'keep-alive'],
      'Content-Length',
      ['sec-ch-ua-platform', '"Linux"'],
      'Authorization',
      ['sec-ch-ua', '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"'],
      ['sec-ch-ua-mobile', '?0'],
      ['User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'],
      ['Accept', '*/*'],
      'Content-Type',
      '*',
      ['Origin', '{origin}', 'with-body'],
      ['Sec-Fetch-Site', 'same-origin'],
      ['Sec-Fetch-Mode', 'cors'],
      ['Sec-Fetch-Dest', 'empty'],
      ['Accept-Encoding', 'gzip, deflate, br'],
      ['Accept-Language', 'en-US,en;q=0.9'],
    ],
    casing: 'title',
    connection: 'keep-alive',
  },
};

/** Each client's shape as a run has it: {@link FINGERPRINTS}, or the versions a run drew (core/clients.ts). */
export type Shapes = Readonly<Record<FingerprintId, Fingerprint>>;

/** Whether `value` names a client of {@link FINGERPRINTS}. */
export function isFingerprintId(value: string): value is FingerprintId {
  return (FINGERPRINT_IDS as readonly string[]).includes(value);
}

/**
 * The client whose shape a request's headers show, by their User-Agent (any
 * name casing), whatever its version (a run draws one: core/clients.ts);
 * undefined for any other (the tool's own shape).
 */
export function fingerprintOfHeaders(headers: Readonly<Record<string, string | undefined>>): FingerprintId | undefined {
  const agent = Object.entries(headers).find(([name]) => name.toLowerCase() === 'user-agent')?.[1];
  if (agent === undefined) return undefined;
  const product = versionless(agent);
  // Chrome on any platform: its reduced User-Agent keeps only the platform and the major version.
  if (/^Mozilla\/5\.0 \([^)]*\) AppleWebKit\/537\.36 \(KHTML, like Gecko\) Chrome\/\d+\.0\.0\.0 (?:Mobile )?Safari\/537\.36$/.test(agent))
    return 'chrome';
  return FINGERPRINT_IDS.find((id) => versionless(FINGERPRINTS[id].userAgent) === product);
}

/** A User-Agent with every version number as `N`: `curl/N`, Chrome's line with its numbers out. */
function versionless(agent: string): string {
  return agent.replace(/\d+(?:\.\d+)*/g, 'N');
}
