/**
 * Tunnels through a proxy: bounded, given up when the run is interrupted, and
 * blamed on the proxy when the proxy failed them. core/connection.ts hands
 * undici's proxy agents these two pieces: {@link proxyConnection}, the
 * connection to the proxy that CONNECT goes over, and {@link boundedTunnel},
 * around the agent's own tunnel opener (CONNECT, then TLS to the target).
 *
 * **Bounded.** undici takes a connection that failed with a socket error
 * (`UND_ERR_SOCKET`) for a passing accident and connects again while a
 * request waits, with no bound, and a waiting request's deadline or abort is
 * only heard once it has a connection. A proxy that closes the connection
 * after reading CONNECT therefore made an endless CONNECT loop (hundreds of
 * thousands a minute) that neither the deadline nor an interruption ended.
 * Each tunnel takes {@link TUNNEL_ATTEMPTS} CONNECTs at most, then fails with
 * a `TransportError` (not a socket error: undici fails the waiting requests
 * with it instead of connecting again); none once the run's signal fired.
 *
 * **Blamed right.** undici's errors for a proxy that refused the connection
 * (`ECONNREFUSED` at the proxy's address), reset it on CONNECT (`ECONNRESET`),
 * closed it (`UND_ERR_SOCKET`) or answered CONNECT with another status carry
 * nothing that says the proxy, not the target, failed: worded by the HTTP
 * client they read "connection refused by <target>". The connection to the
 * proxy marks every failure of its own ({@link proxyConnection}), so the
 * tunnel says "the proxy <url> refused the connection…: no tunnel to
 * <target>" (core/errors.ts `proxyErrorFrom`, the proxy shown without its
 * credentials; `TransportError.proxy` set). A failure after the tunnel was
 * opened (TLS with the target through it) is the target's, passed on as it is.
 *
 * **One listener.** The run's signal is listened to once, whatever the number
 * of tunnels being opened (a pool of 8, load lanes by the hundred): undici's
 * own CONNECT gets a signal of the tunnel's, aborted from that one listener,
 * and nothing stays on the run's signal once no tunnel is being opened.
 */
import type { buildConnector, Dispatcher } from 'undici';
import { Pool } from './undici.js';
import { proxyErrorFrom, TransportError } from './errors.js';

/** CONNECTs one tunnel may take: the first, and two more when the proxy closed the connection under it. */
export const TUNNEL_ATTEMPTS = 3;

/** Error codes undici takes for a passing accident, and answers by connecting again, without bound, while a request waits. */
const RETRIED_BY_UNDICI = new Set(['UND_ERR_SOCKET', 'UND_ERR_INFO']);

/** A failure of the connection to the proxy (reaching it, CONNECT, its answer): the proxy's, never the target's. */
class ProxyFailure extends Error {
  constructor(
    /** The proxy as shown: no credentials. */
    readonly proxy: string,
    /** The CONNECT's answer when it was not 200. */
    readonly status: number | undefined,
    cause: unknown,
  ) {
    super(status === undefined ? 'the proxy failed the CONNECT' : `the proxy answered CONNECT with ${status}`, { cause });
  }
}

/**
 * The connection to the proxy at `url` (a `Pool`, its CONNECT answered within
 * `timeoutMs` too): undici's proxy agent's `clientFactory`. Every failure of a
 * CONNECT over it, and an answer other than 200, rejects with a
 * {@link ProxyFailure} naming the proxy as `proxy` (the URL without its
 * credentials), which {@link boundedTunnel} words as the proxy's.
 */
export function proxyConnection(url: URL, options: object, timeoutMs: number, proxy: string): Dispatcher {
  const pool = new Pool(url, { ...options, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const connect = pool.connect.bind(pool) as (options: Dispatcher.ConnectOptions, callback?: unknown) => Promise<Dispatcher.ConnectData>;
  // undici's ProxyAgent asks for the tunnel in the promise form; the callback form is left as it is.
  const marked = async (options: Dispatcher.ConnectOptions, callback?: unknown): Promise<Dispatcher.ConnectData> => {
    if (callback !== undefined) return connect(options, callback);
    let data: Dispatcher.ConnectData;
    try {
      data = await connect(options);
    } catch (error) {
      throw new ProxyFailure(proxy, undefined, error);
    }
    if (data.statusCode === 200) return data;
    data.socket.on('error', () => {}).destroy();
    throw new ProxyFailure(proxy, data.statusCode, undefined);
  };
  pool.connect = marked as typeof pool.connect;
  return pool;
}

/** The proxy's failure in `error` (undici's agent may wrap it once, as a TLS error's cause). */
function proxyFailureIn(error: Error): ProxyFailure | undefined {
  if (error instanceof ProxyFailure) return error;
  return error.cause instanceof ProxyFailure ? error.cause : undefined;
}

/**
 * `connect` (undici's proxy agent's: CONNECT through the proxy, then TLS to the
 * target), bounded: a tunnel the proxy closed is tried again at most
 * {@link TUNNEL_ATTEMPTS} times in all, then fails with a `TransportError`
 * saying so, which undici does not retry. Every other failure of the proxy
 * (refused, reset, another status than 200, unknown host) fails at once,
 * worded as the proxy's. Nothing is tried once `signal` fired, and a tunnel
 * being opened then is given up at once (its socket, should one still come,
 * is closed). Failures after the tunnel opened (TLS with the target) are
 * passed on as they are (bounded like the proxy's should undici retry them).
 */
export function boundedTunnel(connect: buildConnector.connector, signal?: AbortSignal): buildConnector.connector {
  return (options, callback) => {
    const target = `${options.hostname}:${options.port || (options.protocol === 'https:' ? 443 : 80)}`;
    const interruptedError = () => new TransportError('PC_ERR_UNREACHABLE', `no tunnel opened to ${target}: the run was interrupted`);
    if (signal?.aborted) return callback(interruptedError(), null);
    // undici's CONNECT listens to this tunnel's own signal, not to the run's (see the module comment).
    const given = new AbortController();
    let settled = false;
    const settle: typeof callback = (...args) => {
      if (settled) {
        if (args[0] === null) args[1].on('error', () => {}).destroy();
        return;
      }
      settled = true;
      release();
      callback(...args);
    };
    const release = signal
      ? onAbort(signal, () => {
          given.abort();
          settle(interruptedError(), null);
        })
      : () => {};
    const attempt = (tried: number) =>
      connect({ ...options, signal: given.signal } as typeof options, (...args) => {
        const error = args[0];
        if (error === null || settled) return settle(...args);
        const failure = proxyFailureIn(error);
        if (failure?.status !== undefined)
          return settle(
            new TransportError(
              'PC_ERR_UNREACHABLE',
              `the proxy ${failure.proxy} refused the tunnel to ${target}: it answered CONNECT with ${failure.status}`,
              error,
              { proxy: failure.proxy },
            ),
            null,
          );
        const code = ((failure ? failure.cause : error) as { code?: unknown } | undefined)?.code;
        const retried = typeof code === 'string' && RETRIED_BY_UNDICI.has(code);
        if (retried && tried < TUNNEL_ATTEMPTS) return attempt(tried + 1);
        if (failure) return settle(proxyErrorFrom(failure.cause, failure.proxy, target, tried), null);
        // After the tunnel opened (TLS with the target): the target's, passed on; bounded all the same, should undici retry it.
        if (!retried) return settle(...args);
        settle(
          new TransportError(
            'PC_ERR_PROTOCOL',
            `no tunnel to ${target}: the connection through the proxy was closed after CONNECT, ${tried} times in a row (${code})`,
            error,
          ),
          null,
        );
      });
    attempt(1);
  };
}

/** What each tunnel being opened does when a run's signal fires, by signal: one listener per signal, whatever their number. */
const waiting = new WeakMap<AbortSignal, { calls: Set<() => void>; fire: () => void }>();

/** Calls `call` once when `signal` fires; returns what stops that (and removes the signal's listener once nothing waits on it). */
function onAbort(signal: AbortSignal, call: () => void): () => void {
  let entry = waiting.get(signal);
  if (!entry) {
    const calls = new Set<() => void>();
    const fire = () => {
      waiting.delete(signal);
      for (const c of calls) c();
    };
    entry = { calls, fire };
    waiting.set(signal, entry);
    signal.addEventListener('abort', fire, { once: true });
  }
  const mine = entry;
  const own = () => call();
  mine.calls.add(own);
  return () => {
    mine.calls.delete(own);
    if (mine.calls.size > 0 || waiting.get(signal) !== mine) return;
    waiting.delete(signal);
    signal.removeEventListener('abort', mine.fire);
  };
}
