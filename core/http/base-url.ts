/**
 * The base URL of a target (core/http.ts): parsed and checked once, joined
 * with a request's path, and named as the suite names the target.
 */
import { InvalidBaseUrlError } from '../errors.js';
import { setting, wording } from '../wording.js';

const BASE_URL = setting('baseUrl');

/**
 * Parses and checks a base URL: absolute, http or https, no credentials, no
 * query or fragment. The trailing slash is dropped so `/pets` appends cleanly.
 */
export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidBaseUrlError(
      wording`${BASE_URL} "${withoutUserinfo(text)}" is not an absolute URL; write it with its scheme, e.g. http://127.0.0.1:8080/v1`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    // The scheme is not shown: without "//", "user:password@host" parses as scheme "user".
    throw new InvalidBaseUrlError(
      wording`${BASE_URL} must use http or https; write it as http://host:port/path, e.g. http://127.0.0.1:8080/v1`,
    );
  }
  if (url.username || url.password)
    throw new InvalidBaseUrlError(wording`${BASE_URL} must not carry credentials; pass the key with ${setting('apiKey')}`);
  if (url.search || url.hash) throw new InvalidBaseUrlError(wording`${BASE_URL} must not have a query or fragment`);
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

/** A URL as given, for messages: everything before its last "@" after the scheme (user and password) left out, at most 200 characters. */
function withoutUserinfo(text: string): string {
  const shown = text
    .replace(/^([^/?#@]*?\/\/)?.*@/s, (_match, scheme: string | undefined) => `${scheme ?? ''}…@`)
    .replace(/[\u0000-\u001f\u007f]/g, '?');
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
}

/**
 * The path a request goes to: the base URL's path (without its trailing
 * slash; a URL's path is never empty, so `http://h/` has `/`) joined with the
 * request's (`/pets`). Never `//pets`.
 */
export function requestPath(base: URL, path: string): string {
  return `${base.pathname.replace(/\/+$/, '')}${path}`;
}

/** The base URL as the suite names it: origin and path, no trailing slash, no credentials. */
export function targetOf(base: URL): string {
  return `${base.origin}${requestPath(base, '')}`;
}
