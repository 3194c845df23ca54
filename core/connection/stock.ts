/**
 * Connections to the target opened ahead of need, and the pace every
 * connection of a pool is opened at. A pool's `connect` goes through
 * {@link ConnectionStock.connect}: a connection opened ahead and still sound
 * is handed out at once, otherwise one is opened, by the same undici connector
 * the pool would use (so the same TLS verification, `--ca`, client
 * certificate and connect deadline). {@link ConnectionStock.openAhead} opens
 * connections before the requests that will need them, toward a far target:
 * while a run's first steps go one after another on one connection, the ones
 * its in-flight limit will use are opened, and its first wide wave does not
 * wait a round trip for handshakes.
 *
 * Openings are paced, whoever asked: at most {@link FIRST_OPENINGS} at once,
 * and to a far target (an opening takes {@link NEAR_OPENING_MS} or more) as
 * many as are open (TCP's slow start, up to {@link MOST_OPENINGS}). A burst
 * of 32 SYNs overflows a listen backlog of 1 and its dropped SYNs come back
 * together, again and again, until requests miss their deadline; a few at a
 * time lose at most a few. An overdue opening (its SYN was most likely
 * dropped by a full accept queue, and comes back a second later: RFC 6298
 * §2.1) no longer counts: it is the kernel's to retry, and neither the
 * openings after it nor the connect waiting for it wait behind it (they did,
 * one after another, and a backlog-1 target's run took 30 s where undici
 * alone takes 7).
 *
 * A connection opened ahead is handed out only while sound: not closed,
 * nothing received on it (a server that gives up on an idle connection closes
 * it, or answers 408 first), and unused for less than {@link IDLE_MS}; past
 * that it is closed (a server's idle deadline may be near). Direct
 * connections only: a tunnel through a proxy is opened when asked for
 * (core/tunnel.ts).
 * @see https://www.rfc-editor.org/rfc/rfc6298#section-2
 */
import type { Socket } from 'node:net';
import type { buildConnector as Connector } from 'undici';

/** Openings at once before any connection opened. */
export const FIRST_OPENINGS = 4;

/**
 * Openings at once at most, however many connections are open. At 16, a run 100 ms away over TLS took ten round
 * trips to open the 128 connections it widens to; at 64, six (bench-network --tls: 3.0-3.2 s -> 2.7-2.8 s). A far
 * target whose listen backlog is 1 (the bench's delay proxy listening so) did no worse: 3.4-4.1 s at 16, 3.1-4.1 s at 64
 * (a pace doubling from 16 at once, tried, took 11 s once there: its bursts of dropped SYNs came back together).
 */
export const MOST_OPENINGS = 64;

/**
 * An opening quicker than this, ms, is near (loopback, one data centre): a
 * few at a time cost nothing there, so openings stay at
 * {@link FIRST_OPENINGS} at once; a slower one is far, where each costs a
 * round trip, and their number may grow as for TCP's slow start.
 */
export const NEAR_OPENING_MS = 10;

/** A connection opened ahead and not asked for within this, ms, is closed. */
export const IDLE_MS = 1_000;

/**
 * An opening is overdue past twice the quickest one seen plus this, ms: under
 * the one second a dropped SYN costs, over a busy machine's noise.
 */
export const OVERDUE_MS = 500;

/** How soon openings held back are looked at again, ms: one in progress may have turned overdue meanwhile. */
const RECHECK_MS = 250;

type Callback = Parameters<Connector.connector>[1];
type Params = Parameters<Connector.connector>[0];

interface Idle {
  socket: Socket;
  timer: NodeJS.Timeout;
  drop: () => void;
}

/** Connections opened ahead for one origin, and the pace of every opening (see the module's comment). */
export class ConnectionStock {
  readonly #connector: Connector.connector;
  /** How undici last asked for a connection (before it first asks: as its Client would, from the origin). */
  #params: Params;
  readonly #idle: Idle[] = [];
  /** Pool connects waiting for a connection, oldest first. */
  readonly #waiting: Callback[] = [];
  /** When each opening in progress started. */
  readonly #openings = new Set<number>();
  /** Connections this stock opened that are still open (idle or handed out). */
  #open = 0;
  /** Connections wanted open at once (ahead of need), or 0 once those opened ahead went unused. */
  #wanted = 0;
  /** The most connections asked for ahead: only more than that opens more. */
  #asked = 0;
  #quickest: number | undefined;
  /** Open ahead of need whatever the openings took (`openAhead`'s `evenNear`). */
  #evenNear = false;
  #closed = false;
  /** A look again at openings held back, when one is due. */
  #recheck: NodeJS.Timeout | undefined;

  /** `connector`: undici's, for `origin`'s connections (core/connection.ts builds it). */
  constructor(connector: Connector.connector, origin: string) {
    this.#connector = connector;
    const url = new URL(origin);
    // As undici's Client names the host it connects to: an IPv6 literal without its brackets.
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    this.#params = { hostname, host: url.host, protocol: url.protocol, port: url.port, servername: null } as unknown as Params;
  }

  /** undici's connect: a sound connection opened ahead, or a new one, when the pace allows. */
  readonly connect: Connector.connector = (params, callback) => {
    this.#params = params;
    // Handed out a tick later, as undici's own connector answers: its client does not expect the answer within the call.
    process.nextTick(() => {
      const ready = this.#closed ? undefined : this.#take();
      if (ready) return callback(null, ready);
      if (this.#closed) return callback(new Error('the client was closed'), null);
      this.#waiting.push(callback);
      this.#pump();
    });
  };

  /**
   * Keeps `count` connections open, counting those in use: opens the missing
   * ones, at the pace of the module's comment, once an opening took
   * {@link NEAR_OPENING_MS} or more (a far target, where each costs a round
   * trip), or at once with `evenNear`. A near target's connections open as
   * its requests need them: ahead they would save no time and cost sockets
   * (31 of 32 for a target that answers garbage). Those no request takes
   * within {@link IDLE_MS} are closed, and not opened again until more are
   * asked for.
   */
  openAhead(count: number, { evenNear = false }: { evenNear?: boolean } = {}): void {
    if (this.#closed || count <= this.#asked) return;
    this.#asked = count;
    this.#wanted = count;
    this.#evenNear = evenNear;
    this.#pump();
  }

  /**
   * How long the quickest opening took, ms (undefined before one ended): the
   * name's resolution, the TCP handshake, which the target's kernel answers
   * (the network's round trip, none of the target's work or queue in it),
   * and with TLS its handshake (a round trip more, and the TLS work of both
   * ends); through a proxy's tunnel, until the proxy answered CONNECT, once it
   * had reached the target.
   */
  get quickestMs(): number | undefined {
    return this.#quickest;
  }

  /** Closes the connections opened ahead; a connect still waiting gets an error. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#recheck);
    for (const idle of this.#idle.splice(0)) {
      clearTimeout(idle.timer);
      idle.socket.destroy();
    }
    for (const callback of this.#waiting.splice(0)) callback(new Error('the client was closed'), null);
  }

  /** The oldest sound idle connection; unsound ones on the way are closed. */
  #take(): Socket | undefined {
    for (let idle = this.#idle.shift(); idle; idle = this.#idle.shift()) {
      clearTimeout(idle.timer);
      idle.socket.off('readable', idle.drop).off('close', idle.drop).off('end', idle.drop);
      const { socket } = idle;
      if (!socket.destroyed && socket.readyState === 'open' && socket.readableLength === 0 && !socket.readableEnded) return socket;
      socket.destroy();
    }
    return undefined;
  }

  /**
   * Starts the openings the waiting connects and the wanted count need, as far as the pace allows; held back with
   * connects waiting, looks again a little later (an opening in progress may have turned overdue).
   */
  #pump(): void {
    while (!this.#closed) {
      // Every opening's connection goes to the oldest connect waiting, whoever started it: a connect needs one more
      // only when those in progress (and not overdue) are fewer than the connects waiting.
      const fresh = this.#fresh();
      const forWaiting = this.#waiting.length > fresh;
      const ahead = this.#evenNear || this.#far();
      if (!forWaiting && (!ahead || this.#open + this.#openings.size >= this.#wanted)) return;
      if (!this.#mayOpen(fresh)) break;
      this.#start(forWaiting);
    }
    if (!this.#closed && this.#waiting.length > this.#fresh() && !this.#recheck)
      this.#recheck = setTimeout(() => {
        this.#recheck = undefined;
        this.#pump();
      }, RECHECK_MS).unref();
  }

  /** Openings in progress and not overdue. */
  #fresh(): number {
    const overdue = 2 * (this.#quickest ?? 0) + OVERDUE_MS;
    const now = performance.now();
    let fresh = 0;
    for (const started of this.#openings) if (now - started <= overdue) fresh++;
    return fresh;
  }

  /** Whether an opening took {@link NEAR_OPENING_MS} or more: each costs a round trip. */
  #far(): boolean {
    return this.#quickest !== undefined && this.#quickest >= NEAR_OPENING_MS;
  }

  /** Whether one more opening keeps to the pace, with `fresh` openings in progress and not overdue. */
  #mayOpen(fresh: number): boolean {
    return fresh < (this.#far() ? Math.min(MOST_OPENINGS, Math.max(FIRST_OPENINGS, this.#open)) : FIRST_OPENINGS);
  }

  #start(forWaiting: boolean): void {
    // Distinct keys however quick the clock: the set holds each opening's start.
    let started = performance.now();
    while (this.#openings.has(started)) started += 1e-6;
    this.#openings.add(started);
    let ended = false;
    const end: Callback = (error, socket) => {
      if (ended) return;
      ended = true;
      this.#openings.delete(started);
      if (error || !socket) {
        // An opening asked for by a connect fails the oldest connect, as undici's own would, unless others still in
        // progress may serve it; one ahead fails silently, and none more is opened ahead until asked again.
        if (forWaiting && this.#waiting.length > this.#fresh()) this.#waiting.shift()!(error ?? new Error('no connection'), null);
        else this.#wanted = 0;
        this.#pump();
        return;
      }
      const took = performance.now() - started;
      this.#quickest = Math.min(this.#quickest ?? took, took);
      this.#open++;
      (socket as Socket).once('close', () => this.#open--);
      if (this.#closed) socket.destroy();
      else {
        const waiting = this.#waiting.shift();
        if (waiting) waiting(null, socket);
        else this.#keep(socket as Socket);
      }
      this.#pump();
    };
    try {
      this.#connector({ ...this.#params }, end);
    } catch (error) {
      // undici's own client calls its connector in a promise, where a throw is a failed connect: so here, a tick later.
      process.nextTick(() => end(error instanceof Error ? error : new Error(String(error)), null));
    }
  }

  /** Keeps a connection opened ahead until a connect takes it, or {@link IDLE_MS} passes, or the server ends it. */
  #keep(socket: Socket): void {
    const idle: Idle = {
      socket,
      timer: setTimeout(() => idle.drop(), IDLE_MS).unref(),
      // Not needed after all, or the server would not keep it: none more is opened ahead until more are asked for.
      drop: () => {
        this.#wanted = 0;
        const at = this.#idle.indexOf(idle);
        if (at >= 0) this.#idle.splice(at, 1);
        clearTimeout(idle.timer);
        socket.off('readable', idle.drop).off('close', idle.drop).off('end', idle.drop);
        socket.destroy();
      },
    };
    // Anything readable on an idle connection is the server's end of it (or an answer nobody asked for): closed.
    socket.on('readable', idle.drop).on('close', idle.drop).on('end', idle.drop);
    this.#idle.push(idle);
  }
}
