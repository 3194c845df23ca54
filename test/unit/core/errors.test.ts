import { describe, expect, it } from 'vitest';
import {
  asPcError,
  ERROR_CODES,
  InvalidBaseUrlError,
  PcError,
  PreflightError,
  PROXY_FAILED,
  proxyErrorFrom,
  TransportError,
  transportErrorFrom,
  UsageError,
} from '../../../core/errors.js';

describe('error classes', () => {
  it.each([
    [new UsageError('bad flag'), 'PC_ERR_USAGE', 'UsageError'],
    [new InvalidBaseUrlError('no scheme'), 'PC_ERR_INVALID_BASE_URL', 'InvalidBaseUrlError'],
    [new TransportError('PC_ERR_UNREACHABLE', 'refused'), 'PC_ERR_UNREACHABLE', 'TransportError'],
    [new TransportError('PC_ERR_TIMEOUT', 'slow'), 'PC_ERR_TIMEOUT', 'TransportError'],
    [new PreflightError('PC_ERR_KEY_REJECTED', '401'), 'PC_ERR_KEY_REJECTED', 'PreflightError'],
    [asPcError(new RangeError('boom\nat somewhere')), 'PC_ERR_INTERNAL', 'PcError'],
  ])('%s has code %s, its exit code, and a one-line message', (error, code, name) => {
    expect(error).toBeInstanceOf(PcError);
    expect(error.code).toBe(code);
    expect(error.name).toBe(name);
    expect(error.exitCode).toBe(ERROR_CODES[code as keyof typeof ERROR_CODES]);
    expect(error.message).not.toContain('\n');
  });

  it('keeps the cause', () => {
    const cause = new Error('socket');
    expect(asPcError(cause).cause).toBe(cause);
  });

  it.each([
    [{ code: 'ECONNREFUSED' }, 'PC_ERR_UNREACHABLE', /refused/],
    [{ code: 'ENOTFOUND' }, 'PC_ERR_UNREACHABLE', /unknown host/],
    [{ code: 'UND_ERR_HEADERS_TIMEOUT' }, 'PC_ERR_TIMEOUT', /within 500 ms/],
    [Object.assign(new Error('t'), { name: 'TimeoutError' }), 'PC_ERR_TIMEOUT', /within/],
    [{ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, 'PC_ERR_TLS', /TLS/],
    [{ code: 'HPE_INVALID_CONSTANT' }, 'PC_ERR_PROTOCOL', /broke/],
    [{ code: 'UND_ERR_SOCKET', cause: { code: 'ECONNRESET' } }, 'PC_ERR_PROTOCOL', /broke/],
  ])('classifies %o as %s', (raw, code, message) => {
    const error = transportErrorFrom(raw, 'http://127.0.0.1:9/v1/pets', 500);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.cause).toBe(raw);
  });

  it.each([
    [{ code: 'ECONNREFUSED' }, 1, 'PC_ERR_UNREACHABLE', 'the proxy http://p.example:3128 refused the connection (ECONNREFUSED)'],
    [{ code: 'ECONNRESET' }, 1, 'PC_ERR_UNREACHABLE', 'the proxy http://p.example:3128 reset the connection on CONNECT (ECONNRESET)'],
    [
      { code: 'UND_ERR_SOCKET' },
      3,
      'PC_ERR_UNREACHABLE',
      'the proxy http://p.example:3128 closed the connection on CONNECT, 3 times in a row (UND_ERR_SOCKET)',
    ],
    [{ code: 'ENOTFOUND' }, 1, 'PC_ERR_UNREACHABLE', 'the proxy http://p.example:3128 could not be found: unknown host (ENOTFOUND)'],
    [{ code: 'EHOSTUNREACH' }, 1, 'PC_ERR_UNREACHABLE', 'the proxy http://p.example:3128 could not be reached: no route (EHOSTUNREACH)'],
    [
      { code: 'UND_ERR_HEADERS_TIMEOUT' },
      1,
      'PC_ERR_UNREACHABLE',
      'the proxy http://p.example:3128 did not answer CONNECT in time (UND_ERR_HEADERS_TIMEOUT)',
    ],
    [{ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, 1, 'PC_ERR_TLS', 'the proxy http://p.example:3128 failed TLS: DEPTH_ZERO_SELF_SIGNED_CERT'],
    [
      Object.assign(new Error('Response does not match the HTTP/1.1 protocol'), { name: 'HTTPParserError' }),
      1,
      'PC_ERR_PROTOCOL',
      'the proxy http://p.example:3128 answered CONNECT with something that is not HTTP (Response does not match the HTTP/1.1 protocol)',
    ],
    [new Error('odd'), 1, 'PC_ERR_UNREACHABLE', 'the proxy http://p.example:3128 failed the CONNECT: odd'],
  ])("words a failure of the proxy's own connection (%o) as the proxy's, never the target's", (raw, times, code, message) => {
    const error = proxyErrorFrom(raw, 'http://p.example:3128', 'petstore.invalid:443', times);
    expect(error.code).toBe(code);
    expect(error.message).toBe(`${message}: no tunnel to petstore.invalid:443`);
    expect(error.proxy).toBe('http://p.example:3128');
    expect(error.message).toMatch(PROXY_FAILED);
    expect(error.cause).toBe(raw);
    // Noted, it still names the proxy as the one that failed.
    expect(error.noted('(x)').proxy).toBe('http://p.example:3128');
  });
});
