import { FINGERPRINTS, type FingerprintId, type Shapes } from './fingerprints.js';
import { fingerprintHeaders } from './request-head.js';

/** Headers every request of the functional phases carries unless the request sets its own; a replay of a transcript recomputes them alike. */
export const DEFAULT_REQUEST_HEADERS: Readonly<Record<string, string>> = {
  'user-agent': 'petstore-conformance',
  accept: 'application/json',
};

/** What {@link sentHeaders} needs of a request. */
export interface HeadersOf {
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  fingerprint?: FingerprintId;
}

/**
 * The headers a request goes out with (names in lower case, as undici is
 * given them): the defaults of its shape, then `extra` (-H), then its own
 * (a check's headers are what it tests). The tool's shape has
 * {@link DEFAULT_REQUEST_HEADERS}, with `userAgent` for its User-Agent when
 * given; a fingerprint's, the headers its client adds by itself
 * (core/request-head.ts `fingerprintHeaders`, `{origin}` being `origin`).
 * (`shapes[id]`, the run's, as it drew them). The HTTP client and the
 * replay of a transcript compute them alike.
 */
export function sentHeaders(
  request: HeadersOf,
  origin: string,
  extra: Readonly<Record<string, string>> = {},
  userAgent?: string,
  shapes: Shapes = FINGERPRINTS,
): Record<string, string> {
  const body = request.body;
  const defaults = request.fingerprint
    ? fingerprintHeaders(shapes[request.fingerprint], origin, body !== undefined && body.length > 0)
    : userAgent === undefined
      ? DEFAULT_REQUEST_HEADERS
      : { ...DEFAULT_REQUEST_HEADERS, 'user-agent': userAgent };
  return { ...defaults, ...extra, ...request.headers };
}
