/**
 * What a failed request's message notes beyond its error (core/http.ts adds
 * the notes): a connection closed as idle under it (the keep-alive race), and
 * the suite's own event loop stalled when its deadline came due. Read back
 * from the message, so that a transcript replays the same decision.
 */

/** Said of a deadline that came due while the suite's own event loop was stalled. */
export const STALLED = "the suite's own event loop was stalled for";
/** Said of a request that failed on a reused connection before any byte of its answer came. */
export const IDLE_CLOSE = 'on a reused connection, closed before any byte of the answer';
/** Said, beside {@link IDLE_CLOSE}, when the server had ended the connection before the request was written. */
export const ENDED_FIRST = 'the server had ended the connection before the request was written';

/**
 * Whether the request that failed with `error` failed on a connection that
 * had carried earlier requests, before any byte of its answer came: the
 * server may have closed the connection as idle while the request went out
 * (RFC 9112 §9.5). `not-received`: the server had ended the connection before
 * the request was written, so it never took it; `unknown`: it may have
 * received it. Undefined for any other failure. Read from the error's
 * message, so that a transcript replays the same decision.
 */
export function closedWhenIdle(error: { code: string; message: string } | undefined): 'not-received' | 'unknown' | undefined {
  if (error?.code !== 'PC_ERR_PROTOCOL' || !error.message.includes(`(${IDLE_CLOSE} after `)) return undefined;
  return error.message.includes(`; ${ENDED_FIRST})`) ? 'not-received' : 'unknown';
}
const STALLED_NOTE = /\(the suite's own event loop was stalled for (\d+) ms when the deadline came due\b/;

/**
 * How long the suite's own event loop was stalled when the deadline of the
 * request that failed with `error` came due, in ms; undefined when it was not
 * (the target had its whole deadline). Read from the error's message, so that
 * a recorded exchange (a transcript, replayed by `verify`) tells the same.
 */
export function stalledFor(error: { code: string; message: string } | undefined): number | undefined {
  if (error?.code !== 'PC_ERR_TIMEOUT') return undefined;
  const match = STALLED_NOTE.exec(error.message);
  return match ? Number(match[1]) : undefined;
}
