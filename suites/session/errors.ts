/**
 * What the target session (suites/session.ts) throws into a check: an
 * exchange that says nothing of the target (not judged), the run interrupted,
 * a request still rate-limited after the wait budget.
 */
import { PcError } from '../../core/errors.js';
import type { SentExchange } from '../check.js';
import { type InterruptSignal, TargetLost } from '../../result/reasons.js';

/**
 * Thrown into a check when an exchange it sent says nothing of the target:
 * it is not judged, and what depended on it is inconclusive with `message` as
 * the reason (never a failure). `exchange` is that exchange.
 */
export class NotJudged extends Error {
  constructor(
    message: string,
    readonly exchange: SentExchange,
  ) {
    super(message);
  }
}

/**
 * A request that may not be repeated (not repeatable, suites/session.ts `REPEATABLE`: a POST) whose
 * deadline came due while the suite's own event loop was stalled: whether the
 * target answered is unknown, so it is neither judged nor sent again (never a
 * failure, never the target's silence).
 */
export class StalledRequest extends NotJudged {
  constructor(
    readonly ms: number,
    exchange: SentExchange,
  ) {
    const { method, url } = exchange.request;
    super(
      `the suite's own event loop stalled (for ${ms} ms) when the deadline of ${method} ${new URL(url).pathname} came due, so whether the target answered is unknown; a ${method} is not sent again (it may have been carried out), and the target is not blamed`,
      exchange,
    );
  }
}

/**
 * A request that may not be repeated (not repeatable, suites/session.ts `REPEATABLE`: a POST) that failed
 * on a reused connection before any byte of its answer came (core/http.ts
 * `closedWhenIdle`): the server may have closed the connection as idle and
 * never received it, or received it and carried it out. RFC 9112 §9.3.1: "A
 * user agent MUST NOT automatically retry a request with a non-idempotent
 * method unless it has some means to know that the request semantics are
 * actually idempotent, regardless of the method, or some means to detect that
 * the original request was never applied." Neither sent again nor judged:
 * inconclusive, never a failure, never the target's silence.
 * @see https://www.rfc-editor.org/rfc/rfc9112#section-9.3.1
 */
export class IdleClosed extends NotJudged {
  constructor(exchange: SentExchange) {
    const { method, url } = exchange.request;
    super(
      `the connection ${method} ${new URL(url).pathname} went out on had carried earlier requests and was closed before any byte of the answer (the server may have closed it as idle), so whether the target received it is unknown; a ${method} is not sent again (it may have been carried out), and the target is not blamed`,
      exchange,
    );
  }
}

/** Thrown into checks once the run was interrupted (SIGINT, SIGTERM, SIGHUP). */
export class Interrupted extends TargetLost {
  constructor(readonly signal: InterruptSignal) {
    super({ code: 'interrupted', signal });
  }
}

/** Thrown into a check when a request is still rate-limited after the run's wait budget: what depended on it is inconclusive. */
export class RateLimited extends PcError {
  constructor(
    message: string,
    readonly exchange: SentExchange,
  ) {
    super('PC_ERR_RATE_LIMITED', message);
  }
}
