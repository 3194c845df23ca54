/**
 * What the suite does on every socket it opens (core/connection.ts installs
 * it through {@link skipContinueOn}): write request heads in a client's shape
 * ({@link shapeHeads}), note what a connection carried when it fails
 * ({@link watchConnection}, read back by {@link connectionFailure}), and drop
 * unsolicited `100 Continue` answers ({@link skipContinue}).
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
 * because every dispatcher of core/connection.ts runs one request at a time per connection
 * (`pipelining: 1`, which undici enforces by writing the next request only
 * after the previous response was complete): a response starts with the first
 * byte received after a request was written; once bytes of a final answer
 * were received, the next write starts the next exchange. A 100 block
 * anywhere else (inside a body, after a complete answer) is not touched, and
 * undici judges it as before. A block longer than 16 KiB is passed on as is.
 */
import type { Duplex } from 'node:stream';
import type { buildConnector } from 'undici';
import type { Fingerprint } from '../fingerprints.js';
import { shapeHead } from '../request-head.js';

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
    if (typeof error === 'object' && error !== null && requests > 0)
      failures.set(error, { earlier: requests - 1, answerBytes: bytes, endedBeforeWrite });
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
    let data =
      typeof chunk === 'string'
        ? Buffer.from(chunk, encoding)
        : Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
