/**
 * Usage and environment problems, as typed errors with stable codes. Findings
 * about the target are data (see suites/), never thrown.
 */
import { renderWording, type Wording } from './wording.js';

/** Every error code the suite can raise, with the exit code it maps to. */
export const ERROR_CODES = {
  PC_ERR_USAGE: 2,
  /** A file the suite writes could not be written, or was refused (core/safe-write.ts). */
  PC_ERR_WRITE: 2,
  PC_ERR_INVALID_BASE_URL: 2,
  PC_ERR_UNREACHABLE: 2,
  PC_ERR_TIMEOUT: 2,
  PC_ERR_TLS: 2,
  PC_ERR_PROTOCOL: 2,
  PC_ERR_KEY_REJECTED: 2,
  PC_ERR_NOT_AN_API: 2,
  PC_ERR_RATE_LIMITED: 2,
  PC_ERR_OUT_OF_TIME: 2,
  PC_ERR_KEY_IN_REQUEST: 2,
  PC_ERR_INTERNAL: 2,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Base class of every error the suite raises on purpose. `message` is one line
 * meant for the user, settings called by their option names; `wording` is the
 * same line with the settings as data, for a reader who knows them by other
 * names (cli/ says `--api-key`).
 */
export class PcError extends Error {
  readonly code: ErrorCode;
  readonly wording: Wording;
  constructor(code: ErrorCode, message: string | Wording, options?: { cause?: unknown }) {
    const parts = typeof message === 'string' ? [message] : message;
    super(renderWording(parts), options);
    this.name = 'PcError';
    this.code = code;
    this.wording = parts;
  }
  /** The process exit code this error maps to. */
  get exitCode(): number {
    return ERROR_CODES[this.code];
  }
}

/** Bad flags, arguments or configuration. */
export class UsageError extends PcError {
  constructor(message: string | Wording) {
    super('PC_ERR_USAGE', message);
    this.name = 'UsageError';
  }
}

/** The base URL cannot be used (no scheme, not http(s), credentials in it…). */
export class InvalidBaseUrlError extends PcError {
  constructor(message: string | Wording) {
    super('PC_ERR_INVALID_BASE_URL', message);
    this.name = 'InvalidBaseUrlError';
  }
}

/**
 * A request got no HTTP response. `code` says why; `cause` keeps undici's
 * `UND_ERR_*` or the socket error. `proxy` is set when the failure was the
 * proxy's (reaching it, or its CONNECT): the proxy as shown, without
 * credentials; the message then names it, never the target.
 */
export class TransportError extends PcError {
  declare readonly code: 'PC_ERR_UNREACHABLE' | 'PC_ERR_TIMEOUT' | 'PC_ERR_TLS' | 'PC_ERR_PROTOCOL';
  readonly proxy: string | undefined;
  constructor(code: TransportError['code'], message: string, cause?: unknown, options?: { proxy?: string }) {
    super(code, message, { cause });
    this.name = 'TransportError';
    this.proxy = options?.proxy;
  }
  /** The same error with `note` after its message (which way the request went, what the server may want). */
  noted(note: string): TransportError {
    return new TransportError(this.code, `${this.message} ${note}`, this.cause, this.proxy === undefined ? {} : { proxy: this.proxy });
  }
}

/** The target answered the preflight, but not as an Animal Store Service can. */
export class PreflightError extends PcError {
  constructor(code: 'PC_ERR_KEY_REJECTED' | 'PC_ERR_NOT_AN_API', message: string) {
    super(code, message);
    this.name = 'PreflightError';
  }
}

/** Maps anything thrown to a `PcError`, keeping the original as `cause`. */
export function asPcError(error: unknown): PcError {
  if (error instanceof PcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new PcError('PC_ERR_INTERNAL', `internal error: ${message.split('\n')[0]}`, { cause: error });
}

/**
 * Classifies a failed undici request. The codes are undici's (`UND_ERR_*`) and
 * Node's socket errors; a `TransportError` is returned as it is.
 */
export function transportErrorFrom(error: unknown, url: string, timeoutMs: number): TransportError {
  // Already classified where it arose (a tunnel the proxy failed, core/tunnel.ts).
  if (error instanceof TransportError) return error;
  const code = errorCode(error);
  const host = safeHost(url);
  if (code === 'ECONNREFUSED') return new TransportError('PC_ERR_UNREACHABLE', `connection refused by ${host}`, error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new TransportError('PC_ERR_UNREACHABLE', `unknown host ${host}`, error);
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return new TransportError('PC_ERR_UNREACHABLE', `no route to ${host}`, error);
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'ABORT_ERR' ||
    code === 'ETIMEDOUT' ||
    (error instanceof Error && error.name === 'TimeoutError')
  ) {
    return new TransportError('PC_ERR_TIMEOUT', `no complete response from ${host} within ${timeoutMs} ms`, error);
  }
  if (code !== undefined && isTlsCode(code)) {
    // A server that wants a client certificate says so with a TLS alert.
    const hint = /CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE|BAD_CERTIFICATE/.test(code)
      ? ' (does the server require a client certificate? give one, with its key)'
      : '';
    return new TransportError('PC_ERR_TLS', `TLS error talking to ${host}: ${code}${hint}`, error);
  }
  if (
    code === 'HPE_INVALID_CONSTANT' ||
    code === 'UND_ERR_SOCKET' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    (typeof code === 'string' && code.startsWith('HPE_'))
  ) {
    return new TransportError('PC_ERR_PROTOCOL', `${host} broke the HTTP exchange (${code})`, error);
  }
  // undici's own consistency check on an answer it parsed (a status line of `000`): its words ("false == true") say nothing.
  if (code === 'ERR_ASSERTION')
    return new TransportError(
      'PC_ERR_PROTOCOL',
      `${host} broke the HTTP exchange (an answer the HTTP client could not take: its status line or framing)`,
      error,
    );
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new TransportError('PC_ERR_PROTOCOL', `request to ${host} failed: ${message}${code ? ` (${code})` : ''}`, error);
}

/**
 * Classifies a failure of the proxy's own connection (reaching the proxy,
 * sending CONNECT, reading its answer), worded as the proxy's: `proxy` is the
 * proxy as shown (without credentials), `target` the `host:port` the tunnel
 * was for, `times` the CONNECTs it failed in a row. Never blames the target,
 * which was not reached. Every such message begins `the proxy <url> `
 * ({@link PROXY_FAILED}).
 */
export function proxyErrorFrom(error: unknown, proxy: string, target: string, times = 1): TransportError {
  const code = errorCode(error);
  const the = `the proxy ${proxy}`;
  const noTunnel = `: no tunnel to ${target}`;
  const inARow = times > 1 ? `, ${times} times in a row` : '';
  const make = (kind: TransportError['code'], message: string) => new TransportError(kind, `${message}${noTunnel}`, error, { proxy });
  if (code === 'ECONNREFUSED') return make('PC_ERR_UNREACHABLE', `${the} refused the connection (${code})`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return make('PC_ERR_UNREACHABLE', `${the} could not be found: unknown host (${code})`);
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    return make('PC_ERR_UNREACHABLE', `${the} could not be reached: no route (${code})`);
  if (code === 'ECONNRESET' || code === 'EPIPE')
    return make('PC_ERR_UNREACHABLE', `${the} reset the connection on CONNECT${inARow} (${code})`);
  if (code === 'UND_ERR_SOCKET' || code === 'UND_ERR_INFO')
    return make('PC_ERR_UNREACHABLE', `${the} closed the connection on CONNECT${inARow} (${code})`);
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'ETIMEDOUT' || code === 'ABORT_ERR')
    return make('PC_ERR_UNREACHABLE', `${the} did not answer CONNECT in time (${code})`);
  if (code !== undefined && isTlsCode(code)) return make('PC_ERR_TLS', `${the} failed TLS: ${code}`);
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  if ((typeof code === 'string' && code.startsWith('HPE_')) || (error as { name?: unknown } | undefined)?.name === 'HTTPParserError')
    return make('PC_ERR_PROTOCOL', `${the} answered CONNECT with something that is not HTTP (${code ?? message})`);
  return make('PC_ERR_UNREACHABLE', `${the} failed the CONNECT: ${message}${code ? ` (${code})` : ''}`);
}

/**
 * How the message of a proxy's failure begins (core/tunnel.ts): read from the
 * message, so that a recorded exchange (a transcript, replayed by `verify`)
 * tells the same.
 */
export const PROXY_FAILED = /^the proxy \S+ /;

/** A TLS failure's code: Node's, OpenSSL's, a certificate's. */
function isTlsCode(code: string): boolean {
  return code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code.includes('CERT') || OPENSSL_VERIFY_CODES.has(code);
}

/** OpenSSL's certificate verification codes that do not say CERT (the rest do). */
const OPENSSL_VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CRL_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CRL_SIGNATURE_FAILURE',
  'CRL_NOT_YET_VALID',
  'CRL_HAS_EXPIRED',
  'ERROR_IN_CRL_LAST_UPDATE_FIELD',
  'ERROR_IN_CRL_NEXT_UPDATE_FIELD',
  'OUT_OF_MEM',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
]);

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_ABORTED') return code;
    if ((e as Error).name === 'TimeoutError') return 'ABORT_ERR';
  }
  return undefined;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
