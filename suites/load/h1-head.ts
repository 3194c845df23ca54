/**
 * The head of an HTTP/1.1 exchange for the raw lanes (raw-lane.ts, h1.ts):
 * the request written byte for byte as undici writes it
 * ({@link encodeRequest}), and an answer's head read and checked byte by byte
 * as undici's parser (llhttp, strict) reads it ({@link readHead}).
 */
import { maxHeaderSize } from 'node:http';

/** undici's `maxHeaderSize`: Node's (16 KiB unless `--max-http-header-size`). */
export const MAX_HEADER_SIZE = maxHeaderSize;

/** A request as undici's writeH1 writes it: method, path, headers (names as given), optional body. */
export interface RawRequest {
  method: string;
  path: string;
  headers: Readonly<Record<string, string>>;
  body: Buffer | null;
}

/** Methods undici writes `content-length: 0` for when they carry no body (its `expectsPayload`). */
const EXPECTS_PAYLOAD = new Set(['PUT', 'POST', 'PATCH', 'QUERY', 'PROPFIND', 'PROPPATCH']);

/**
 * The bytes undici writes for `request` on a keep-alive connection to
 * `host` (`hostname[:port]`, as its URL has it): head, then body.
 */
export function encodeRequest(request: RawRequest, host: string): Buffer {
  let head = `${request.method} ${request.path} HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\n`;
  for (const [name, value] of Object.entries(request.headers)) head += `${name}: ${value}\r\n`;
  const length = request.body?.length ?? 0;
  if (length > 0) head += `content-length: ${length}\r\n`;
  else if (EXPECTS_PAYLOAD.has(request.method)) head += 'content-length: 0\r\n';
  head += '\r\n';
  const bytes = Buffer.from(head, 'latin1');
  return length > 0 ? Buffer.concat([bytes, request.body!]) : bytes;
}

/** A framing error: the answer broke HTTP/1.1 (or undici's bounds); the connection is closed and the request failed. */
export class FramingError extends Error {
  readonly code = 'PC_LOAD_FRAMING';
}

/** What a head says that frames its answer and its connection: one object, reused for every head. */
export interface HeadFacts {
  status: number;
  /** 9, 10, 11 or 20 (HTTP/0.9 … 2.0). */
  version: number;
  /** Content-Length, -1 when absent. */
  length: number;
  encoded: boolean;
  chunked: boolean;
  close: boolean;
  keepAlive: boolean;
  /** The `timeout=` of a Keep-Alive header, seconds; -1 when absent. */
  timeout: number;
  /** Where the header lines start (after the status line's CRLF); `end` when there is none. */
  lines: number;
}

const facts: HeadFacts = {
  status: 0,
  version: 0,
  length: -1,
  encoded: false,
  chunked: false,
  close: false,
  keepAlive: false,
  timeout: -1,
  lines: 0,
};

/** Byte classes: a token character (RFC 9110 §5.6.2), a field-value character (HTAB, SP, VCHAR, obs-text). */
const TOKEN = new Uint8Array(256);
const VALUE = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TOKEN[c.charCodeAt(0)] = 1;
for (let c = 0; c < 256; c++) VALUE[c] = c === 0x09 || (c >= 0x20 && c !== 0x7f) ? 1 : 0;

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09;

/** Whether `data[at, at + name.length)` is `name` (lower case, letters and `-`) in any case. */
function named(data: Buffer, at: number, length: number, name: string): boolean {
  if (length !== name.length) return false;
  for (let i = 0; i < length; i++) if ((data[at + i]! | 0x20) !== name.charCodeAt(i)) return false;
  return true;
}

/**
 * Reads and checks a head byte by byte (no string made): a status line
 * `HTTP/d.d ddd[ reason]`, then lines `token:value`, each ended by CRLF, up
 * to `end`; the header fields counted as undici counts them (names and values
 * without leading whitespace). Throws {@link FramingError}.
 */
export function readHead(data: Buffer, start: number, end: number): HeadFacts {
  const d = data;
  if (
    end - start < 12 ||
    d[start] !== 0x48 ||
    d[start + 1] !== 0x54 ||
    d[start + 2] !== 0x54 ||
    d[start + 3] !== 0x50 ||
    d[start + 4] !== 0x2f ||
    !isDigit(d[start + 5]) ||
    d[start + 6] !== 0x2e ||
    !isDigit(d[start + 7]) ||
    d[start + 8] !== 0x20 ||
    !isDigit(d[start + 9]) ||
    !isDigit(d[start + 10]) ||
    !isDigit(d[start + 11])
  )
    throw new FramingError('invalid status line');
  const version = (d[start + 5]! - 0x30) * 10 + (d[start + 7]! - 0x30);
  // The versions undici's parser takes.
  if (version !== 11 && version !== 10 && version !== 20 && version !== 9) throw new FramingError('invalid version');
  facts.version = version;
  facts.status = (d[start + 9]! - 0x30) * 100 + (d[start + 10]! - 0x30) * 10 + (d[start + 11]! - 0x30);
  let i = start + 12;
  if (i < end && d[i] !== 0x0d) {
    if (d[i] !== 0x20) throw new FramingError('invalid status line');
    for (i++; i < end && VALUE[d[i]!]; i++);
  }
  facts.lines = i + 2 < end ? i + 2 : end;
  facts.length = -1;
  facts.encoded = facts.chunked = facts.close = facts.keepAlive = false;
  facts.timeout = -1;
  let size = 0;
  while (i < end) {
    if (d[i] !== 0x0d || d[i + 1] !== 0x0a) throw new FramingError('invalid line end');
    i += 2;
    const name = i;
    for (; i < end && TOKEN[d[i]!]; i++);
    const nameLength = i - name;
    if (nameLength === 0 || d[i] !== 0x3a) throw new FramingError('invalid header name');
    for (i++; i < end && isSpace(d[i]); i++);
    const value = i;
    for (; i < end && VALUE[d[i]!]; i++);
    if (i < end && d[i] !== 0x0d) throw new FramingError('invalid header value');
    size += nameLength + (i - value);
    if (size >= MAX_HEADER_SIZE) throw new FramingError('headers overflow');
    let last = i;
    while (last > value && isSpace(d[last - 1])) last--;
    const first = d[name]! | 0x20;
    if (first === 0x63 /* c */) {
      if (named(d, name, nameLength, 'content-length')) {
        if (facts.length >= 0 || last === value) throw new FramingError('invalid content-length');
        let length = 0;
        for (let j = value; j < last; j++) {
          if (!isDigit(d[j])) throw new FramingError('invalid content-length');
          length = length * 10 + (d[j]! - 0x30);
        }
        facts.length = length;
      } else if (named(d, name, nameLength, 'connection')) tokensOf(d, value, last);
    } else if (first === 0x74 /* t */ && named(d, name, nameLength, 'transfer-encoding')) {
      facts.encoded = true;
      // Chunked only when it is the last coding.
      let j = last - 7;
      facts.chunked = j >= value && named(d, j, 7, 'chunked');
      for (j--; facts.chunked && j >= value && isSpace(d[j]); j--);
      if (facts.chunked && j >= value && d[j] !== 0x2c) facts.chunked = false;
    } else if (first === 0x6b /* k */ && named(d, name, nameLength, 'keep-alive')) {
      // As undici's parseKeepAliveTimeout: the digits after the first `timeout=` (case as written).
      for (let j = value; j + 8 < last && facts.timeout < 0; j++)
        if (d[j] === 0x74 && d.toString('latin1', j, j + 8) === 'timeout=' && isDigit(d[j + 8])) {
          let seconds = 0;
          for (let k = j + 8; isDigit(d[k]) && k < last; k++) seconds = seconds * 10 + (d[k]! - 0x30);
          facts.timeout = seconds;
        }
    }
  }
  return facts;
}

/** Notes the `close` and `keep-alive` tokens of a Connection header's value (comma-separated, any case). */
function tokensOf(d: Buffer, from: number, to: number): void {
  let i = from;
  while (i < to) {
    for (; i < to && (isSpace(d[i]) || d[i] === 0x2c); i++);
    const start = i;
    for (; i < to && d[i] !== 0x2c; i++);
    let last = i;
    while (last > start && isSpace(d[last - 1])) last--;
    if (named(d, start, last - start, 'close')) facts.close = true;
    else if (named(d, start, last - start, 'keep-alive')) facts.keepAlive = true;
  }
}
