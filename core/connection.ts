/**
 * How the suite reaches its target, in one description every sender uses: the
 * functional client (core/http.ts), the load lanes (suites/load/sender.ts),
 * `replay` and `certify`. TLS is verified with the given CA unless `insecure`
 * was asked for, a client certificate is presented when given (mTLS), a proxy
 * is used as asked (an explicit URL, or HTTP_PROXY/HTTPS_PROXY/NO_PROXY with
 * undici's EnvHttpProxyAgent semantics), and the extra headers go on every
 * request. {@link openDispatcher} turns it into an undici dispatcher.
 *
 * **Interim answers.** RFC 9110 §15.2: "A client MUST be able to parse one or
 * more 1xx responses received prior to a final response, even if the client
 * does not expect one." undici parses and skips 1xx answers (103…) except
 * `100 Continue`, which it refuses as a bad response (its HTTP/1.1 client
 * never sends `Expect: 100-continue`, so it takes an unsolicited 100 for a
 * broken server). Every connection the suite opens therefore passes through
 * {@link skipContinue}: a filter on the socket's readable side (after TLS, so
 * it sees the HTTP bytes) that drops complete `HTTP/1.x 100` header blocks
 * found where a response starts (other 1xx blocks there are passed on, and
 * undici skips them as it always does); the final response that follows
 * reaches undici untouched. Where a response starts is known without parsing bodies
 * because every dispatcher here runs one request at a time per connection
 * (`pipelining: 1`, which undici enforces by writing the next request only
 * after the previous response was complete): a response starts with the first
 * byte received after a request was written; once bytes of a final answer
 * were received, the next write starts the next exchange. A 100 block
 * anywhere else (inside a body, after a complete answer) is not touched, and
 * undici judges it as before. A block longer than 16 KiB is passed on as is.
 *
 * Tunnels through a proxy are core/tunnel.ts's: bounded, given up on an
 * interruption, and a failure of the proxy worded as the proxy's.
 */
import type { Duplex } from 'node:stream';
import { buildConnector, Client, type Dispatcher, EnvHttpProxyAgent, Pool, ProxyAgent } from 'undici';
import { UsageError } from './errors.js';
import type { Fingerprint } from './fingerprints.js';
import { shapeHead } from './request-head.js';
import { plainSecret, type Secret } from './redact/types.js';
import { boundedTunnel, proxyConnection } from './tunnel.js';
import { setting, type SettingRef, type Wording, wording } from './wording.js';

/** Which proxy, if any, requests go through. */
export type ProxyChoice =
  /** Straight to the target. */
  | { kind: 'none' }
  /** Every request through this proxy (`--proxy`). */
  | { kind: 'url'; url: string }
  /** As the environment says (HTTP_PROXY, HTTPS_PROXY, NO_PROXY; undici's EnvHttpProxyAgent semantics). Empty strings are unset. */
  | { kind: 'env'; httpProxy: string; httpsProxy: string; noProxy: string };

/** How to reach the target, besides its base URL and the deadline of a request. */
export interface ConnectOptions {
  /** Extra CA certificates (PEM) to trust for an https target. */
  ca?: string;
  /** Accept any TLS certificate (only when asked for). */
  insecure?: boolean;
  /** Client certificate (PEM) presented to an https target, with its private key (PEM). */
  cert?: string;
  key?: string;
  /** Default: none. */
  proxy?: ProxyChoice;
  /** Sent with every request (names in lower case); a request's own headers win, and none of these is `authorization`. */
  headers?: Readonly<Record<string, string>>;
  /** Names (lower case) of the headers whose values are secrets: redacted like the key. */
  secretHeaders?: readonly string[];
  /**
   * Values a config file took from the environment (`\${VARIABLE}`) into a
   * header (`into`: its name, lower case; the header is a secret header too)
   * or into the proxy URL (`into: 'proxy'`): secrets, redacted like the key.
   */
  fromEnvironment?: readonly EnvironmentValue[];
}

/** A value a config file took from the environment into a setting that travels to the target or the proxy. */
export interface EnvironmentValue {
  /** The header's name (lower case). */
  into: string;
  /** The variable's name, for messages; never its value. */
  variable: string;
  value: string;
}

/** How long and how wide: the deadline of one request, and connections. */
export interface DispatcherShape {
  timeoutMs: number;
  /** 1: one undici Client (a load lane); more: a Pool. */
  connections: number;
  keepAliveTimeout?: number;
  /** The run's interruption: once it fires no tunnel is opened or tried again, and one being opened is given up. */
  signal?: AbortSignal;
  /**
   * The client shape every request head on these connections is written in
   * (core/request-head.ts {@link shapeHead}). Default: undici's own head.
   */
  fingerprint?: Fingerprint;
}

/** The TLS options of the target's connections. */
function tlsOptions(options: ConnectOptions): { ca?: string; cert?: string; key?: string; rejectUnauthorized?: boolean } {
  return {
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.cert && options.key ? { cert: options.cert, key: options.key } : {}),
    ...(options.insecure ? { rejectUnauthorized: false } : {}),
  };
}

/** Where the connections of a dispatcher went: straight, or through a proxy (known once one was opened). */
export interface Route {
  proxied: boolean | undefined;
}

/**
 * An undici dispatcher for `origin` (the target's), shaped by `shape`, reaching
 * it as `options` says. Every connection skips unsolicited `100 Continue`
 * answers ({@link skipContinue}); through a proxy, every tunnel is bounded and
 * the proxy's own failures are worded as the proxy's (core/tunnel.ts).
 * Requests must name their `origin`.
 */
export function openDispatcher(origin: string, options: ConnectOptions, shape: DispatcherShape, route: Route = { proxied: undefined }): Dispatcher {
  const tls = tlsOptions(options);
  const direct = buildConnector({ timeout: shape.timeoutMs, ...tls });
  const make = (o: string | URL, connect: buildConnector.connector): Dispatcher => {
    const common = {
      pipelining: 1,
      headersTimeout: shape.timeoutMs,
      bodyTimeout: shape.timeoutMs,
      ...(shape.keepAliveTimeout === undefined ? {} : { keepAliveTimeout: shape.keepAliveTimeout }),
      connect: skipContinueOn(connect, shape.fingerprint && { fingerprint: shape.fingerprint, origin }),
    };
    return shape.connections === 1 ? new Client(o, common) : new Pool(o, { ...common, connections: shape.connections });
  };
  const proxy = options.proxy ?? { kind: 'none' };
  if (proxy.kind === 'none') {
    route.proxied = false;
    return make(origin, direct);
  }
  // undici's proxy agents open the tunnel (CONNECT, then TLS to the target with requestTls); the pools they make
  // for the target are the suite's own, with the same shape and the same filter.
  const factory = (o: string | URL, opts: object): Dispatcher => {
    const connect = (opts as { connect?: unknown }).connect;
    const tunnelled = typeof connect === 'function';
    route.proxied = tunnelled;
    return make(o, tunnelled ? boundedTunnel(connect as buildConnector.connector, shape.signal) : direct);
  };
  const proxyTls = { timeout: shape.timeoutMs, ...(options.ca ? { ca: options.ca } : {}), ...(options.insecure ? { rejectUnauthorized: false } : {}) };
  // The connection to the proxy answers CONNECT within the deadline too, and marks its failures as the proxy's.
  const clientFactory = (url: URL, opts: object): Dispatcher => proxyConnection(url, opts, shape.timeoutMs, shownProxy(url.href));
  const common = { factory, clientFactory, requestTls: { timeout: shape.timeoutMs, ...tls }, proxyTls, connect: { timeout: shape.timeoutMs, ...tls } };
  if (proxy.kind === 'url') return new ProxyAgent({ ...common, uri: proxy.url });
  return new EnvHttpProxyAgent({ ...common, httpProxy: proxy.httpProxy, httpsProxy: proxy.httpsProxy, noProxy: proxy.noProxy });
}

/**
 * `connect`, with {@link skipContinue} and {@link watchConnection} on every
 * socket it opens, and, given a client shape, {@link shapeHeads}.
 */
export function skipContinueOn(connect: buildConnector.connector, shape?: HeadShape): buildConnector.connector {
  const rewrite = shape && headRewriter(shape);
  return (options, callback) =>
    connect(options, (...args) => {
      if (args[0] === null) {
        if (rewrite) shapeHeads(args[1], rewrite);
        watchConnection(args[1]);
        skipContinue(args[1]);
      }
      callback(...args);
    });
}

/** A client shape, and the target's origin (`{origin}` in its head lines). */
export interface HeadShape {
  fingerprint: Fingerprint;
  origin: string;
}

/** Heads remembered per dispatcher: a load lane writes the same few heads thousands of times. */
const REMEMBERED_HEADS = 256;

/** {@link shapeHead} for one shape, remembering the last heads it shaped (the same text gives the same head). */
function headRewriter(shape: HeadShape): (head: string) => string {
  const remembered = new Map<string, string>();
  return (head) => {
    let shapedHead = remembered.get(head);
    if (shapedHead === undefined) {
      shapedHead = shapeHead(head, shape.fingerprint, shape.origin);
      if (remembered.size >= REMEMBERED_HEADS) remembered.clear();
      remembered.set(head, shapedHead);
    }
    return shapedHead;
  };
}

const shaped = new WeakSet<object>();

/**
 * Rewrites every request head written on `socket` with `rewrite` (a
 * {@link headRewriter}: the client's order and casing). undici writes a head
 * whole in one `write` call, as a latin1 string, and a body after it as bytes
 * (which pass untouched); on a TLS socket, or one tunnelled through a proxy,
 * the socket given here is the one that carries the plain HTTP bytes.
 * Installed once per socket, before undici writes to it.
 */
export function shapeHeads(socket: Duplex, rewrite: (head: string) => string): void {
  if (shaped.has(socket)) return;
  shaped.add(socket);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((...args: unknown[]) => {
    const [chunk, encoding] = args;
    if (typeof chunk === 'string' && (encoding === 'latin1' || encoding === undefined)) args[0] = rewrite(chunk);
    return write(...args);
  }) as typeof socket.write;
}

/** What a connection had carried when it failed under a request: see {@link connectionFailure}. */
export interface ConnectionFailure {
  /** Requests written on the connection before the one it failed under (each answered: one at a time per connection). */
  earlier: number;
  /** Bytes received since the request it failed under was written. */
  answerBytes: number;
  /**
   * The server had ended the connection (its FIN was read) before that
   * request was first written: it closed the connection before the request
   * existed, so it never took it.
   */
  endedBeforeWrite: boolean;
}

const failures = new WeakMap<object, ConnectionFailure>();

/**
 * What the connection a request failed on had carried, when `error` is the
 * connection's own error (undici hands a request the error its socket failed
 * with: a reset, or its "other side closed" when the server closed it); undefined
 * for any other error. A failure with `earlier > 0` and `answerBytes === 0`
 * is the keep-alive race: the server closed a connection it took for idle as
 * the next request went out on it. RFC 9112 §9.5: "A client, server, or proxy
 * MAY close the transport connection at any time. For example, a client
 * might have started to send a new request at the same time that the server
 * has decided to close the "idle" connection."
 * @see https://www.rfc-editor.org/rfc/rfc9112#section-9.5
 */
export function connectionFailure(error: unknown): ConnectionFailure | undefined {
  return typeof error === 'object' && error !== null ? failures.get(error) : undefined;
}

const watched = new WeakSet<object>();

/**
 * Counts, on `socket`, the requests written and the bytes received since the
 * last one, and notes them on the error the socket fails with (read back by
 * {@link connectionFailure}). With one request at a time per connection, a
 * write after bytes were received starts the next request. Installed once per
 * socket, before undici reads or writes it.
 */
export function watchConnection(socket: Duplex): void {
  if (watched.has(socket)) return;
  watched.add(socket);
  let requests = 0;
  let bytes = 0;
  let ended = false;
  let endedBeforeWrite = false;
  const push = socket.push.bind(socket);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((...args: unknown[]) => {
    if (requests === 0 || bytes > 0) {
      requests++;
      bytes = 0;
      endedBeforeWrite = ended;
    }
    return write(...args);
  }) as typeof socket.write;
  socket.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (chunk !== null && chunk !== undefined) bytes += (chunk as { length: number }).length;
    else ended = true;
    return push(chunk as Buffer, encoding);
  };
  // First, so the error is noted before undici hands it to the request it fails.
  socket.prependListener('error', (error: unknown) => {
    if (typeof error === 'object' && error !== null && requests > 0) failures.set(error, { earlier: requests - 1, answerBytes: bytes, endedBeforeWrite });
  });
}

/** An interim block bigger than this is not held back: it is passed on, and undici judges it. */
const MAX_INTERIM_BLOCK = 16 * 1024;
/** Interim blocks looked at in one go, at most (each is at least 17 bytes, so this is a bound, not a limit). */
const MAX_BLOCKS = 1024;
/** `HTTP/1.x 1dd` followed by a space or CR: an interim status line; each position's allowed characters. */
const INTERIM_LINE: readonly RegExp[] = [/H/, /T/, /T/, /P/, /\//, /1/, /\./, /[01]/, / /, /1/, /\d/, /\d/, /[ \r]/];

/**
 * What the bytes at the start of a response are: a whole interim block (its
 * length, and whether it is a 100, which is dropped; other 1xx are passed on
 * to undici, which skips them itself), a final answer, or not yet known.
 * A `101 Switching Protocols` counts as final: undici judges it.
 */
function startOf(data: Buffer): { length: number; drop: boolean } | 'final' | 'more' {
  const head = data.subarray(0, INTERIM_LINE.length).toString('latin1');
  for (let i = 0; i < head.length; i++) if (!INTERIM_LINE[i]!.test(head[i]!)) return 'final';
  if (head.length < INTERIM_LINE.length) return 'more';
  const code = head.slice(9, 12);
  if (code === '101') return 'final';
  const end = data.indexOf('\r\n\r\n', 0, 'latin1');
  if (end >= 0) return { length: end + 4, drop: code === '100' };
  return data.length > MAX_INTERIM_BLOCK ? 'final' : 'more';
}

const filtered = new WeakSet<object>();

/**
 * Drops unsolicited `HTTP/1.x 100` header blocks where a response starts on
 * `socket` (see the module comment for why this is sound with one request at
 * a time per connection). Installed once per socket, before undici reads it.
 */
export function skipContinue(socket: Duplex): void {
  if (filtered.has(socket)) return;
  filtered.add(socket);
  /** The next byte received starts a response (or follows an interim answer). */
  let atStart = true;
  /** Bytes of a final answer were received since the last request was written. */
  let answered = false;
  let held: Buffer | undefined;
  const push = socket.push.bind(socket);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = ((...args: unknown[]) => {
    if (answered) {
      answered = false;
      atStart = true;
    }
    return write(...args);
  }) as typeof socket.write;
  socket.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (chunk === null || chunk === undefined) {
      if (held) push(held);
      held = undefined;
      return push(chunk as null);
    }
    if (!atStart) return push(chunk, encoding);
    // A view of the bytes read, never a copy: each read has memory of its own, and a copy of every answer's first
    // chunk is what made the load generator's garbage (200 MB in ten seconds of load).
    const bytes = chunk as Uint8Array;
    let data = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (held) data = Buffer.concat([held, data]);
    held = undefined;
    // Interim blocks other than 100 go on to undici as they are; 100 blocks are left out.
    const passed: Buffer[] = [];
    const pass = (rest: Buffer | undefined): boolean => {
      if (rest) passed.push(rest);
      return passed.length === 0 ? true : push(passed.length === 1 ? passed[0]! : Buffer.concat(passed));
    };
    for (let blocks = 0; blocks < MAX_BLOCKS && data.length > 0; blocks++) {
      const start = startOf(data);
      if (start === 'more') {
        held = data;
        return pass(undefined);
      }
      if (start === 'final') break;
      if (!start.drop) passed.push(data.subarray(0, start.length));
      data = data.subarray(start.length);
    }
    if (data.length === 0) return pass(undefined);
    atStart = false;
    answered = true;
    return pass(data);
  };
}

/** The label that stands for a secret header's value in evidence. */
export function secretLabel(name: string): string {
  return `<secret ${name.toLowerCase()}>`;
}

/** A secret of a connection, and how messages name it (never by its value). */
export interface ConnectionSecret {
  secret: Secret;
  /** Where it came from, as the subject of a sentence: `the value of secret header x-trace`. */
  what: Wording;
}

/**
 * The connection's secrets, each as the redactor registers it: the secret
 * headers' values, a proxy password (of 4 characters or more), and each
 * value a config file took from the environment.
 */
export function connectionSecrets(options: ConnectOptions | undefined): ConnectionSecret[] {
  const out: ConnectionSecret[] = [];
  for (const name of options?.secretHeaders ?? []) {
    const value = options?.headers?.[name] ?? '';
    if (value) out.push({ secret: plainSecret(value, secretLabel(name)), what: [`the value of secret header ${name}`] });
  }
  const proxy = options?.proxy;
  for (const url of proxy?.kind === 'url' ? [proxy.url] : proxy?.kind === 'env' ? [proxy.httpProxy, proxy.httpsProxy] : []) {
    const password = url ? URL.canParse(url) && decodeURIComponent(new URL(url).password) : '';
    if (password && password.length >= 4) out.push({ secret: plainSecret(password, '<proxy password>'), what: wording`the password of ${setting('proxy')}` });
  }
  for (const { into, variable, value } of options?.fromEnvironment ?? []) {
    if (value) out.push({ secret: plainSecret(value, secretLabel(into)), what: [`the value of \${${variable}} (config file, header ${into})`] });
  }
  return out;
}

/** A proxy URL without its credentials, for reports and messages. */
export function shownProxy(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.href.replace(/\/$/, '');
  } catch {
    return '(not a URL)';
  }
}

/** What report.json records of a connection: never a secret. */
export interface ConnectionRecord {
  /** The proxy the run was given, or `from the environment: HTTP_PROXY=…`; credentials removed; absent when none. */
  proxy?: string;
  /** A client certificate was presented (--cert). */
  clientCertificate: boolean;
  /** Names of the extra headers sent (-H); values are not recorded. */
  headers: string[];
  /** Names of those whose values are secret (--secret-header). */
  secretHeaders: string[];
}

/** What report.json records of `options`. */
export function connectionRecord(options: ConnectOptions | undefined): ConnectionRecord {
  const proxy = options?.proxy ?? { kind: 'none' };
  const env = proxy.kind === 'env' ? [proxy.httpProxy && `HTTP_PROXY=${shownProxy(proxy.httpProxy)}`, proxy.httpsProxy && `HTTPS_PROXY=${shownProxy(proxy.httpsProxy)}`, proxy.noProxy && `NO_PROXY=${proxy.noProxy}`].filter(Boolean) : [];
  return {
    ...(proxy.kind === 'url' ? { proxy: shownProxy(proxy.url) } : proxy.kind === 'env' && env.length > 0 ? { proxy: `from the environment: ${env.join(', ')}` } : {}),
    clientCertificate: Boolean(options?.cert),
    headers: Object.keys(options?.headers ?? {}).sort(),
    secretHeaders: [...(options?.secretHeaders ?? [])].sort(),
  };
}

/** Headers the suite refuses to take from -H: the key's, the proxy's, and those that frame the exchange itself. */
export const REFUSED_HEADERS = ['authorization', 'proxy-authorization', 'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer'] as const;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The reason an extra header cannot be sent, in one line, or undefined when it
 * can. `where` names where it came from (the `headers` option, a flag of cli/).
 */
export function headerProblem(name: string, value: string, where: string | SettingRef): Wording | undefined {
  if (!TOKEN.test(name)) return wording`${where} ${JSON.stringify(name)}: not a header name (letters, digits and !#$%&'*+.^_\`|~- only)`;
  const lower = name.toLowerCase();
  if (lower === 'authorization') return wording`${where} ${name}: the suite sends Authorization itself (Bearer and the key, and the auth checks' variants); pass the key with ${setting('apiKey')}, never as a header`;
  if ((REFUSED_HEADERS as readonly string[]).includes(lower)) return wording`${where} ${name}: the suite does not send this header as an extra one (${lower === 'proxy-authorization' ? wording`put the proxy's credentials in the ${setting('proxy')} URL` : 'it frames the HTTP exchange itself'})`;
  if (/[\r\n\0]/.test(value)) return wording`${where} ${name}: the value holds a line break or NUL`;
  return undefined;
}

/**
 * `options` checked, with header names in lower case: throws a one-line
 * `UsageError` for the first problem (a refused header, one given twice, a
 * secret header that is not sent, a certificate without its key).
 */
export function checkConnectOptions(options: ConnectOptions | undefined): ConnectOptions {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options?.headers ?? {})) {
    const problem = headerProblem(name, value, setting('headers'));
    if (problem) throw new UsageError(problem);
    if (Object.hasOwn(headers, name.toLowerCase())) throw new UsageError(wording`${setting('headers')} ${name}: given twice`);
    headers[name.toLowerCase()] = value;
  }
  const secretHeaders = (options?.secretHeaders ?? []).map((name) => name.toLowerCase());
  for (const name of secretHeaders) if (!Object.hasOwn(headers, name)) throw new UsageError(`secret header ${name}: not among the headers sent`);
  if (Boolean(options?.cert) !== Boolean(options?.key)) throw new UsageError(wording`a client certificate needs its key, and a key its certificate (${setting('cert')} and ${setting('certKey')} together)`);
  return { ...options, ...(options?.headers ? { headers } : {}), ...(options?.secretHeaders ? { secretHeaders } : {}) };
}
