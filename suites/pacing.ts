/**
 * How the suite paces its own traffic: at most `--rate-limit` requests a
 * second (for shared staging servers), and pauses asked for by the target's
 * temporary answers ({@link isTemporary}: 429, 503 with Retry-After; "Rate
 * limits, quotas … not shown"), honoured within a run-wide
 * wait budget (`--max-wait`). A pause holds every request of the run, not only
 * the one that was limited: the limit is the target's, not one request's.
 */
import { httpDate } from '../core/http-date.js';

/**
 * Whether an answer is temporary: sent again after the wait it asks for
 * (within the wait budget), never a conformance failure by itself. A 429
 * (RFC 6585 §4: "The response representations SHOULD include details
 * explaining the condition, and MAY include a Retry-After header"), and a
 * 503 that carries Retry-After: RFC 9110 §15.6.4, "The 503 (Service
 * Unavailable) status code indicates that the server is currently unable to
 * handle the request due to a temporary overload or scheduled maintenance,
 * which will likely be alleviated after some delay. The server MAY send a
 * Retry-After header field (Section 10.2.3) to suggest an appropriate amount
 * of time for the client to wait before retrying the request"; §10.2.3: "Servers send the
 * Retry-After header field to indicate how long the user agent ought to wait
 * before making a follow-up request … When sent with a 503 (Service
 * Unavailable) response, Retry-After indicates how long the service is
 * expected to be unavailable to the client." A 503 without it says nothing
 * of being temporary: it stays a server error (RESPONSE-NO-5XX).
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-15.6.4
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3
 */
export function isTemporary(response: { status: number; headers: Readonly<Record<string, string>> } | undefined): boolean {
  const status = response?.status;
  return status === 429 || (status === 503 && response!.headers['retry-after'] !== undefined);
}

/** Longest wait a missing or unreadable Retry-After leads to before the budget decides. */
const BACKOFF_MAX_MS = 30_000;

/**
 * The wait a 429 asks for, in ms: its Retry-After (delta-seconds or an
 * HTTP-date, RFC 9110 §10.2.3), else 1 s doubling with each retry of the same
 * request, at most 30 s.
 */
export function retryAfterMs(retryAfter: string | undefined, attempt: number, now: number = Date.now()): number {
  const value = retryAfter?.trim();
  if (value !== undefined && /^\d+$/.test(value)) return Number(value) * 1000;
  if (value !== undefined) {
    const at = httpDate(value);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  return Math.min(BACKOFF_MAX_MS, 1000 * 2 ** attempt);
}

/** Options of {@link PacingGate}. */
export interface PacingOptions {
  /** Requests a second at most; undefined: no limit of the suite's own. */
  ratePerSecond?: number;
  /** Total time the run may spend paused for 429 answers, ms. */
  maxWaitMs: number;
  /** For tests: the clock and the sleep. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export class PacingGate {
  readonly #interval: number;
  readonly #budget: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  #nextSlot = 0;
  #pausedUntil = 0;
  #spent = 0;

  constructor(options: PacingOptions) {
    this.#interval = options.ratePerSecond ? 1000 / options.ratePerSecond : 0;
    this.#budget = options.maxWaitMs;
    this.#now = options.now ?? (() => performance.now());
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Time spent paused for 429 answers so far, ms. */
  get waitedMs(): number {
    return this.#spent;
  }

  /**
   * Resolves when the next request may be sent: after any pause, and in its
   * slot of the rate limit; with true when a pause held it back.
   */
  async beforeSend(): Promise<boolean> {
    let paused = false;
    for (;;) {
      const now = this.#now();
      if (this.#pausedUntil > now) paused = true;
      const slot = Math.max(now, this.#pausedUntil, this.#nextSlot);
      if (slot <= now) {
        this.#nextSlot = now + this.#interval;
        return paused;
      }
      // Take the slot before sleeping, so concurrent senders line up behind each other.
      if (slot >= this.#pausedUntil) {
        this.#nextSlot = slot + this.#interval;
        await this.#sleep(slot - now);
        return paused;
      }
      await this.#sleep(slot - now);
    }
  }

  /**
   * Pauses every request for `ms` from now, as a 429 asked. Returns false, and
   * pauses nothing, when that would take the run past its wait budget.
   */
  pause(ms: number): boolean {
    const now = this.#now();
    const until = now + ms;
    if (until <= this.#pausedUntil) return true;
    const extra = until - Math.max(now, this.#pausedUntil);
    if (this.#spent + extra > this.#budget) return false;
    this.#spent += extra;
    this.#pausedUntil = until;
    return true;
  }
}
