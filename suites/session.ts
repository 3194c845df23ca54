/**
 * The target session: how the run sends a request, around the transport. It
 * adds the credentials a check asks for, waits out temporary answers (429,
 * 503 with Retry-After: suites/pacing.ts `isTemporary`) within the run's wait
 * budget (rate limits are not shown: never a failure), sends once more on a
 * new connection a request the connection was closed under (a POST that died
 * on a reused connection only when provably not received: {@link IdleClosed}),
 * holds a request without response until the target shows it is alive
 * (suites/silence.ts), sends again a request whose deadline came due while
 * the suite's own event loop was stalled (core/loop-stall.ts: that timeout is
 * the suite's, not the target's silence) when the request may be repeated,
 * does not let a check judge a request the proxy did not carry (it never
 * reached the target), and stops sending once the run must stop: the target
 * (or the proxy) is gone, the suite's loop keeps stalling, the run was
 * interrupted, its time bound or `maxFailures` reached. What it throws into
 * a check is suites/session/errors.ts (importable from here).
 */
import { PROXY_FAILED } from '../core/errors.js';
import type { RedactedTransport } from '../core/boundary.js';
import { closedWhenIdle, stalledFor } from '../core/http.js';
import type { RunClients } from '../core/clients.js';
import type { FingerprintId } from '../core/fingerprints.js';
import { bearer } from '../core/key.js';
import type { SendOptions, SentExchange } from './check.js';
import type { OperationId } from '../result/model.js';
import { isTemporary, PacingGate, retryAfterMs } from './pacing.js';
import { listPets } from './requests.js';
import { SilenceWatch } from './silence.js';
import { INTERRUPT_SIGNALS, type InterruptSignal, TargetLost } from '../result/reasons.js';
import { IdleClosed, Interrupted, NotJudged, RateLimited, StalledRequest } from './session/errors.js';
import { InFlightGate, LoopLag } from './session/in-flight.js';
import { asWritten } from './session/written.js';

export { IdleClosed, Interrupted, NotJudged, RateLimited, StalledRequest } from './session/errors.js';

/** A 32-bit hash of the seed, a request's order and a stream (splitmix32's finaliser): the same run draws the same. */
function draw(seed: number, order: number, stream: number): number {
  let h = (seed ^ Math.imul(order + 1, 0x9e3779b9) ^ Math.imul(stream, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x21f0aaad);
  h = Math.imul(h ^ (h >>> 15), 0x735a2d97);
  return (h ^ (h >>> 15)) >>> 0;
}

/**
 * The client the `order`-th request of a run with `seed` goes as, among
 * `ids`: drawn from the seed and the order alone, so which client sends a
 * request never changes which requests are sent (verify's replay matches them
 * by method, path, Authorization and body), and a server cannot tell the
 * suite's clients by a fixed rotation.
 */
export function fingerprintFor(ids: readonly FingerprintId[], seed: number, order: number): FingerprintId {
  return ids[draw(seed, order, 1) % ids.length]!;
}

/** The pause before the `order`-th request, 0 to `maxMs` ms, drawn from the seed. */
export function jitterFor(seed: number, order: number, maxMs: number): number {
  return maxMs <= 0 ? 0 : draw(seed, order, 2) % (maxMs + 1);
}

/** Exchanges in a row that got no response at all before the target is taken as gone. */
export const LOST_AFTER = 3;

/**
 * Times a request is sent again after a timeout the suite's own stalled loop
 * caused, in a row (any other outcome in between, a 429 waited out or a
 * connection closed under it, starts the count again); one more such timeout
 * in a row, and the run stops, saying so. Only a request that may be repeated
 * ({@link REPEATABLE}) is sent again.
 */
export const STALLED_RESENDS = 2;

/**
 * Methods a request may be sent again with unasked when whether it was
 * answered is unknown: the idempotent ones (RFC 9110 §9.2.2). A `POST /pets`
 * whose answer may have come unread may have created an animal: sent again,
 * it could create a second one.
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-9.2.2
 */
const REPEATABLE: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** The check name of the preflight's request: a target that does not answer it is not tested at all. */
export const PREFLIGHT = 'preflight';

/** The check name of the session's probes: recorded, never judged. */
export const PROBE = 'probe';

export { TargetLost };

export interface SessionOptions {
  client: RedactedTransport;
  apiKey: string;
  maxWaitMs: number;
  /** The clients a request not naming its own fingerprint is sent under, one per request ({@link fingerprintFor}). Default: none, the tool's own shape. */
  fingerprints?: readonly FingerprintId[];
  /** Each client as the run has it (core/clients.ts): a request sent as one is written as its application writes it. Default: as the suite writes it. */
  clients?: RunClients;
  /** The run's seed: which client each request goes as, and each jitter pause, are drawn from it. */
  seed?: number;
  /** Longest pause before each request (pacing with jitter), ms. Default 0. */
  jitterMs?: number;
  /** The suite's own requests per second at most. */
  rateLimit?: number;
  /** Requests in flight at most (suites/session/in-flight.ts), until {@link TargetSession.concurrency} changes it. Default: no limit of the session's own. */
  concurrency?: number;
  /** Watch how far behind the suite's own loop is ({@link TargetSession.loop}), until closed. Default false. */
  watchLoop?: boolean;
  signal?: AbortSignal;
  /** Each exchange sent for a check, before it is judged (and a probe's, never judged). */
  onExchange(x: SentExchange): void;
  /** Each exchange a check will judge, once the session knows it stands: the response checks see it here. */
  inspect(x: SentExchange): void;
  /** What the session noticed about rate limits (GAP-RATE-LIMITS). */
  observeRateLimit(operation: OperationId, summary: string, x: SentExchange): void;
}

export class TargetSession {
  /** Set once the run must stop sending; every later send throws it. */
  stopped: TargetLost | undefined;
  /** Set when the run was interrupted. */
  interrupted: Interrupted | undefined;
  readonly #options: SessionOptions;
  readonly #pacing: PacingGate;
  readonly #silence: SilenceWatch;
  readonly #gate: InFlightGate;
  readonly #lag: LoopLag | undefined;
  #inFlight = 0;
  /** Requests asked for so far (a resend, a wait, a probe aside): a request's order, from which its client is drawn. */
  #requests = 0;
  /** Requests sent so far by each check. */
  readonly #byCheck = new Map<string, number>();
  /**
   * Requests sleeping (first-contact jitter, pacing, a Retry-After), woken by an interrupt. The session holds one
   * listener on the run's signal, not one per sleeper: a load set-up's creates sleep by the dozen at once, and more
   * than ten listeners on one signal is what Node warns of as a leak (MaxListenersExceededWarning).
   */
  readonly #sleepers = new Set<() => void>();

  readonly #interrupt = () => {
    const reason: unknown = this.#options.signal?.reason;
    this.interrupted ??= new Interrupted(INTERRUPT_SIGNALS.includes(reason as InterruptSignal) ? (reason as InterruptSignal) : 'SIGINT');
    this.stopped = this.interrupted;
    this.#silence.stop(this.interrupted);
    for (const wake of [...this.#sleepers]) wake();
  };

  constructor(options: SessionOptions) {
    this.#options = options;
    this.#gate = new InFlightGate(options.concurrency ?? Number.POSITIVE_INFINITY);
    this.#lag = options.watchLoop ? new LoopLag() : undefined;
    this.#pacing = new PacingGate({
      maxWaitMs: options.maxWaitMs,
      ...(options.rateLimit ? { ratePerSecond: options.rateLimit } : {}),
      sleep: (ms) => this.#sleep(ms),
    });
    this.#silence = new SilenceWatch({
      lostAfter: LOST_AFTER,
      inFlight: () => this.#inFlight,
      // The last request did not reach the target when the proxy failed its tunnel: the proxy is named, not the target.
      onLost: (why) => this.stop(new TargetLost({ code: PROXY_FAILED.test(why) ? 'proxy-failed' : 'target-silent', detail: why })),
      probe: () => this.#probe(),
    });
    if (options.signal?.aborted) this.#interrupt();
    options.signal?.addEventListener('abort', this.#interrupt, { once: true });
  }

  /** Stops sending (the first reason stands); returns the reason that stands. */
  stop(reason: TargetLost): TargetLost {
    this.stopped ??= reason;
    return this.stopped;
  }

  /** Requests in flight at most; set, it holds for every request sent after (the waiting ones included). */
  get concurrency(): number {
    return this.#gate.limit;
  }

  set concurrency(limit: number) {
    this.#gate.limit = limit;
  }

  /** Whether the in-flight limit is used now: requests wait for it, or it is all in flight. */
  get full(): boolean {
    return this.#gate.full;
  }

  /** How far behind the suite's own loop is now, and how busy it has been, when watched (`watchLoop`); else 0 and 0. */
  get loop(): { readonly lateMs: number; readonly busy: number } {
    return this.#lag ?? { lateMs: 0, busy: 0 };
  }

  /** Time spent waiting out 429 answers, ms. */
  get waitedMs(): number {
    return this.#pacing.waitedMs;
  }

  /**
   * Sends `request` for `check`, written as its client's application writes it; resolves with the exchange its check
   * may judge, or throws why nothing more is sent. `watch: false` leaves a request without response out of the silence
   * watch, as the preflight's is (the differential probe's prelude, sent before it: whether the target answers at all
   * is the preflight's to tell).
   */
  async send(check: string, request: SendOptions, options: { watch?: false } = {}): Promise<SentExchange> {
    if (this.stopped) throw this.stopped;
    const { operation, auth = 'valid', authorization, headers, refused, fingerprint: own, written, ...spec } = request;
    const order = this.#requests++;
    // Which client is drawn from the check's own count, not the run's: how concurrent checks interleave (jitter, timing) never moves it.
    const nth = this.#byCheck.get(check) ?? 0;
    this.#byCheck.set(check, nth + 1);
    const fingerprint = own ?? this.#fingerprintOf(check, nth);
    const rest = { ...spec, ...asWritten({ ...spec, headers, written }, fingerprint && this.#options.clients?.apps?.[fingerprint], order) };
    const jitter = jitterFor(this.#options.seed ?? 0, order, this.#options.jitterMs ?? 0);
    if (jitter > 0) {
      await this.#sleep(jitter);
      if (this.stopped) throw this.stopped;
    }
    // Refused by the document (no key, or a body the check knows is invalid): it changes nothing on a conforming server.
    const repeatable = REPEATABLE.has(rest.method) || refused === true || auth !== 'valid';
    const sentHeaders: Record<string, string> = { ...rest.headers };
    if (auth === 'valid') sentHeaders.authorization = bearer(this.#options.apiKey);
    else if (auth !== 'none' && authorization !== undefined) sentHeaders.authorization = authorization;
    let x: SentExchange;
    let resent = false;
    let fresh = false;
    let stalls = 0;
    for (let attempt = 0; ; attempt++) {
      // A pause (a temporary answer waited out) left the pooled connections idle, and a server may close one just as
      // this goes out on it: a request that may not be repeated then goes on a new connection of its own.
      if ((await this.#pacing.beforeSend()) && !repeatable) fresh = true;
      if (this.stopped) throw this.stopped;
      this.#inFlight++;
      // After the pacing, as the transport's own pool was: a paced request waits its turn here, not twice.
      await this.#gate.acquire();
      try {
        x = {
          ...(await this.#options.client.send({
            ...rest,
            headers: sentHeaders,
            ...(fresh ? { fresh } : {}),
            ...(fingerprint ? { fingerprint } : {}),
          })),
          meta: { operation, auth, check },
        };
      } finally {
        this.#gate.release();
        this.#inFlight--;
      }
      fresh = false;
      // An exchange cut by the interruption says nothing about the target: it is neither recorded nor judged.
      if (this.interrupted) throw this.interrupted;
      this.#options.onExchange(x);
      // A deadline that came due while the suite's own loop was stalled: the answer may have come unread. Not the
      // target's silence: sent again, a bounded number of times.
      const stalled = stalledFor(x.error);
      if (stalled !== undefined) {
        // A request that may not be repeated is not sent again: it may have been carried out (an animal created).
        if (!repeatable) throw new StalledRequest(stalled, x);
        this.#stalledAgain(stalled, ++stalls);
        attempt--;
        continue;
      }
      // "In a row": any other outcome starts the count again.
      stalls = 0;
      // A connection closed under a request (a keep-alive race: the server closed an idle connection as the request
      // went out) is sent once more on a new connection of its own before it counts (another pooled one may have been
      // closed as idle too); only a failure there tells of the target, and a target that keeps doing it is still lost.
      if (!x.response && x.error?.code === 'PC_ERR_PROTOCOL' && !resent) {
        // On a reused connection before any byte of the answer, a request that may not be repeated is sent again only
        // when the server provably never took it (it had ended the connection before the request was written);
        // otherwise it may have been carried out (RFC 9112 §9.3.1): neither sent again nor judged.
        if (closedWhenIdle(x.error) === 'unknown' && !repeatable) throw new IdleClosed(x);
        resent = true;
        fresh = true;
        attempt--;
        continue;
      }
      // Rate limits are not shown by the document: a temporary answer (a 429, or a 503 with Retry-After) is waited out,
      // never failed; its body is still judged as an Error (ERROR-SCHEMA), and only that.
      this.#options.inspect(x);
      // GET /store/orders with the key: "Its parameters, payloads and responses: not shown", so its 503 is an answer
      // like any other (observed as GAP-ORDERS-RESPONSES), not a wait; a 429 there is still a rate limit, and without
      // the key the document says 401, so a 503 with Retry-After there is a limiter's, waited out.
      if (!isTemporary(x.response) || (operation === 'listStoreOrders' && auth === 'valid' && x.response!.status !== 429)) break;
      const status = x.response!.status;
      const wait = retryAfterMs(x.response!.headers['retry-after'], attempt);
      if (!this.#pacing.pause(wait)) {
        this.#options.observeRateLimit(
          operation,
          `${status} answered, asking for ${Math.round(wait / 1000)} s more than the wait budget left: not sent again`,
          x,
        );
        throw new RateLimited(
          `still answered ${status} (a temporary answer) after waiting ${Math.round(this.#pacing.waitedMs / 1000)} s of the ${Math.round(this.#options.maxWaitMs / 1000)} s wait budget`,
          x,
        );
      }
      // The wait left the pooled connections idle: one closed as this request goes back out is a new race, not the same.
      resent = false;
      this.#options.observeRateLimit(
        operation,
        `${status} answered; every request paused ${wait < 1000 ? `${wait} ms` : `${Math.round(wait / 1000)} s`} (Retry-After ${x.response!.headers['retry-after'] === undefined ? 'absent' : 'honoured'}), then sent again`,
        x,
      );
    }
    if (check === PREFLIGHT || options.watch === false) return x;
    await this.#silence.completed(x.response ? undefined : (x.error?.message ?? 'no response'));
    // The target is alive, and this request never reached it: the proxy's failure is not the target's.
    if (!x.response && PROXY_FAILED.test(x.error?.message ?? ''))
      throw new NotJudged(`the proxy did not carry this request to the target (${x.error?.message}); the target is not blamed`, x);
    return x;
  }

  /** The client the `nth` request of `check` goes as, when the run was given clients. */
  #fingerprintOf(check: string, nth: number): FingerprintId | undefined {
    const ids = this.#options.fingerprints ?? [];
    if (ids.length === 0) return undefined;
    let stream = 0x811c9dc5;
    for (const ch of check) stream = Math.imul(stream ^ ch.charCodeAt(0), 0x01000193);
    return fingerprintFor(ids, (this.#options.seed ?? 0) ^ stream, nth);
  }

  /** Stops listening to the run's signal, and watching the loop. */
  close(): void {
    this.#options.signal?.removeEventListener('abort', this.#interrupt);
    this.#lag?.stop();
  }

  /** Counts a timeout the suite's stalled loop caused (`stalls` in a row for one request); past {@link STALLED_RESENDS}, stops the run and throws why. */
  #stalledAgain(ms: number, stalls: number): void {
    if (stalls <= STALLED_RESENDS) return;
    const reason = this.stop(new TargetLost({ code: 'suite-stalled', ms, times: stalls }));
    this.#silence.stop(reason);
    throw reason;
  }

  /** GET /pets?limit=1 with the key, when nothing else in flight can tell whether the target is alive. */
  async #probe(): Promise<void> {
    const { operation: _operation, ...probe } = listPets({ limit: 1 });
    let why: string | undefined;
    try {
      let fresh = false;
      for (let stalls = 1; ; stalls++) {
        await this.#pacing.beforeSend();
        this.#requests++;
        const nth = this.#byCheck.get(PROBE) ?? 0;
        this.#byCheck.set(PROBE, nth + 1);
        const fingerprint = this.#fingerprintOf(PROBE, nth);
        await this.#gate.acquire();
        let x: SentExchange;
        try {
          x = {
            ...(await this.#options.client.send({
              ...probe,
              headers: { authorization: bearer(this.#options.apiKey) },
              ...(fresh ? { fresh } : {}),
              ...(fingerprint ? { fingerprint } : {}),
            })),
            meta: { operation: 'listPets', auth: 'valid', check: PROBE },
          };
        } finally {
          this.#gate.release();
        }
        this.#options.onExchange(x);
        // A probe on a connection closed as idle tells nothing: asked again, once, on a new connection.
        if (closedWhenIdle(x.error) !== undefined && !fresh) {
          fresh = true;
          stalls--;
          continue;
        }
        fresh = false;
        const stalled = stalledFor(x.error);
        if (stalled === undefined) {
          why = x.response ? undefined : (x.error?.message ?? 'no response');
          break;
        }
        this.#stalledAgain(stalled, stalls);
      }
    } catch (error) {
      // The run stopped (the suite's loop kept stalling): the watch was ended with it.
      if (this.stopped) return;
      why = (error as Error).message;
    }
    this.#silence.probed(why);
  }

  /** A pause that ends early when the run is interrupted. */
  #sleep(ms: number): Promise<void> {
    if (this.interrupted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#sleepers.add(done);
    });
  }
}
