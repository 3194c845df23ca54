/**
 * A load lane without undici's request machinery: one connection, opened by
 * undici's own connector (the same TCP and TLS options, verification, `ca`,
 * client certificate, connect deadline and TLS session cache as the undici
 * lane's), carrying one request at a time written as undici writes it, and
 * its answer read by the strict reader of h1.ts. It is what a lane costs at
 * the floor: undici's request objects, queue and timers cost about as much
 * CPU per request as the rest of the sender (issue 23, item 4).
 *
 * The lanes (sender.ts `Lanes`) use it for the common case only: a direct
 * connection (no proxy), the tool's own head (no client fingerprint), extra
 * headers undici would send as given ({@link rawRoute}); otherwise lane.ts.
 *
 * What it keeps of undici's lane, so that a run counts the same:
 * - one request at a time; the next one written on the loop's check phase
 *   after the last answer, so that bytes, a FIN or a reset already pending
 *   on the connection are read first (undici's idle-socket validation): bytes
 *   no request asked for close the connection, uncounted, and the next
 *   request goes on a new one;
 * - a connection is reused while its answers allow it (HTTP/1.1 without
 *   `Connection: close`, a framed body) and for as long idle as undici would
 *   (4 s, or the server's `Keep-Alive: timeout` less 2 s);
 * - a connection that fails or ends under a request fails it (a socket error;
 *   one whose body runs to the connection's end completes it), a framing
 *   error is a socket error, a refused connection or TLS failure too, a
 *   connect that outlives the deadline a timeout;
 * - deadlines from when the request is written, enforced by the lanes' sweep.
 */
import type { Socket } from 'node:net';
import type { buildConnector as Connector } from 'undici';
import { buildConnector } from '../../core/undici.js';
import { type Answer, H1Reader, headersOfHead } from './h1.js';
import { failureOf, type FailureKind, type LaneOptions, type LaneUser, type Prepared } from './lane.js';

/** Lanes with a request to write on the next check phase (one immediate for all of them). */
const due: RawLane[] = [];
let flushing: NodeJS.Immediate | undefined;

function flush(): void {
  flushing = undefined;
  const lanes = due.splice(0);
  for (const lane of lanes) lane.write();
}

/**
 * Where plain connections read into: one buffer for all the raw lanes (the
 * reader copies what it keeps), so a read costs no stream machinery and no
 * allocation.
 */
const READS = Buffer.allocUnsafe(64 * 1024);

/** The options of a raw lane: a lane's, and the TLS options of its connections (core/connection.ts `tlsOptions`). */
export interface RawLaneOptions extends LaneOptions {
  tls: object;
}

/** One connection, one request at a time, undici's framing without undici's request machinery. */
export class RawLane {
  user: LaneUser | undefined;
  readonly #options: RawLaneOptions;
  readonly #url: URL;
  readonly #reader: H1Reader;
  readonly #connector: Connector.connector;
  #socket: Socket | undefined;
  #connecting = false;
  /** The connection may carry the next request until `#idleSince + #keepAliveMs`. */
  #idleSince = 0;
  #keepAliveMs = 0;
  /** The request on this lane: its bytes (undefined when it could not be written), whether its answer is kept. */
  #busy = false;
  #bytes: Buffer | undefined;
  #wanted = false;
  /** When the request was written (0 until then). */
  #writtenAt = 0;
  #dropped = false;

  constructor(options: RawLaneOptions) {
    this.#options = options;
    this.#url = new URL(options.origin);
    this.#reader = new H1Reader(options.maxBodyBytes);
    // undici's connector, one per lane as lane.ts's (core/connection.ts), so each keeps its own TLS sessions as there;
    // plain connections read straight into READS (net.Socket's `onread`, which the connector passes on).
    // (A lane's connection before this one was destroyed: it reads nothing more.)
    const onread = {
      buffer: READS,
      callback: (length: number, buffer: Buffer): void => {
        if (this.#socket) this.#data(buffer.subarray(0, length));
      },
    };
    this.#connector = buildConnector({
      timeout: options.timeoutMs,
      ...options.tls,
      ...(this.#url.protocol === 'http:' ? { onread } : {}),
    });
  }

  /** Sends `prepared` (its `raw` bytes); `user` is told once how it ended, never from within this call. */
  send(prepared: Prepared, wanted: boolean): void {
    this.#busy = true;
    this.#bytes = prepared.raw;
    this.#wanted = wanted;
    this.#writtenAt = 0;
    due.push(this);
    flushing ??= setImmediate(flush);
  }

  /** Writes the request due, on the connection if it may carry it, else on a new one. */
  write(): void {
    if (!this.#busy || this.#dropped) return;
    // undici refuses a request it cannot write (an invalid path) as an error of that request.
    if (!this.#bytes) return this.#fail('socketErrors');
    const socket = this.#socket;
    if (socket && performance.now() - this.#idleSince >= this.#keepAliveMs) this.#discard();
    if (this.#socket) return this.#writeOn(this.#socket);
    if (this.#connecting) return;
    this.#connecting = true;
    const url = this.#url;
    // As undici's Client: an IPv6 literal without its brackets.
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, url.hostname.indexOf(']')) : url.hostname;
    this.#connector(
      { hostname, host: url.host, protocol: url.protocol, port: url.port, servername: undefined } as never,
      (error, opened) => {
        this.#connecting = false;
        if (error) {
          if (this.#busy) this.#fail(failureOf(error));
          return;
        }
        const s = opened as Socket;
        if (this.#dropped) {
          s.destroy();
          return;
        }
        this.#attach(s);
        if (this.#busy) this.#writeOn(s);
      },
    );
  }

  #writeOn(socket: Socket): void {
    this.#reader.begin(this.#wanted);
    this.#writtenAt = performance.now();
    socket.write(this.#bytes!);
  }

  #attach(socket: Socket): void {
    this.#socket = socket;
    this.#idleSince = performance.now();
    this.#keepAliveMs = Infinity;
    socket.on('data', (chunk: Buffer) => {
      if (this.#socket === socket) this.#data(chunk);
    });
    socket.on('end', () => {
      if (this.#socket !== socket) return;
      // A body read up to the connection's end is complete now; any other end fails the request under way.
      const answer = this.#reader.untilEnd ? this.#reader.end() : undefined;
      this.#discard();
      if (answer) this.#answered(answer);
      else if (this.#busy && this.#writtenAt > 0) this.#fail('socketErrors');
    });
    socket.on('error', (error: Error & { code?: string }) => {
      if (this.#socket !== socket) return;
      // As undici: a reset after a body that runs to the connection's end completes it.
      const answer = error.code === 'ECONNRESET' && this.#reader.untilEnd ? this.#reader.end() : undefined;
      this.#discard();
      if (answer) this.#answered(answer);
      else if (this.#busy && this.#writtenAt > 0) this.#fail(failureOf(error));
    });
    socket.on('close', () => {
      if (this.#socket !== socket) return;
      this.#discard();
      if (this.#busy && this.#writtenAt > 0) this.#fail('socketErrors');
    });
  }

  #data(chunk: Buffer): void {
    if (!this.#busy || this.#writtenAt === 0) {
      // Bytes no request asked for: the connection is not used again (undici's "bad response"), nothing is counted.
      this.#discard();
      return;
    }
    let read;
    try {
      read = this.#reader.push(chunk);
    } catch {
      this.#discard();
      this.#fail('socketErrors');
      return;
    }
    if (!read) return;
    const { answer, rest } = read;
    if (rest > 0 || !answer.reusable) this.#discard();
    else {
      this.#idleSince = performance.now();
      this.#keepAliveMs = answer.keepAliveMs;
    }
    this.#answered(answer);
  }

  /** Closes the connection without counting anything; the next request opens a new one. */
  #discard(): void {
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.destroy();
  }

  #answered(answer: Answer): void {
    this.#busy = false;
    if (this.#dropped) return;
    this.#options.ended?.(undefined);
    const body = answer.body;
    const sampled = body
      ? {
          headers: headersOfHead(answer.head ?? ''),
          body: body.length === 1 ? body[0]! : Buffer.concat(body, answer.size),
          truncated: answer.truncated,
          ...(this.#wanted ? {} : { errorOnly: true as const }),
        }
      : undefined;
    this.user!.answered(answer.status, sampled);
  }

  #fail(kind: FailureKind): void {
    this.#busy = false;
    if (this.#dropped) return;
    this.#options.ended?.(undefined);
    const user = this.user!;
    setImmediate(() => user.failed(kind));
  }

  /** Fails the request on this lane as a timeout if it was written more than `timeoutMs` before `now`. */
  sweep(now: number, timeoutMs: number): void {
    if (this.#busy && this.#writtenAt > 0 && now - this.#writtenAt >= timeoutMs) {
      this.#discard();
      this.#fail('timeouts');
    }
  }

  async close(): Promise<void> {
    this.#dropped = true;
    const socket = this.#socket;
    this.#socket = undefined;
    if (!socket || socket.destroyed) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.destroy();
    });
  }

  /** Stops the lane at once: the request on it is dropped, and its end is not reported. */
  drop(): void {
    this.#dropped = true;
    this.#busy = false;
    this.#discard();
  }
}
