import type { SentExchange } from './check.js';

/**
 * An exchange in one line for --verbose: sequence number, operation, method,
 * URL, and the status with content type, size and time, or why there was no
 * response; not yet redacted (the engine redacts it before emitting).
 */
export function exchangeLine(x: SentExchange): string {
  const auth = x.meta.auth === 'valid' ? '' : ` [auth ${x.meta.auth}]`;
  const sent = x.request.body ? ` (${x.request.body.byteLength} B)` : '';
  const answer = x.response
    ? `${x.response.status}${x.response.headers['content-type'] ? ` ${x.response.headers['content-type']}` : ''} ${x.response.body.byteLength}${x.response.truncated ? '+' : ''} B`
    : `no response: ${x.error?.message ?? 'unknown'}`;
  return `#${x.seq} ${x.meta.check} ${x.request.method} ${x.request.url}${sent}${auth} → ${answer} in ${x.durationMs.toFixed(1)} ms`;
}
