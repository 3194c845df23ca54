/**
 * How the suite reaches its target, in one description every sender uses: the
 * functional client (core/http.ts), the load lanes (suites/load/sender.ts),
 * `replay` and `certify`. TLS is verified with the given CA unless `insecure`
 * was asked for, a client certificate is presented when given (mTLS), a proxy
 * is used as asked (an explicit URL, or HTTP_PROXY/HTTPS_PROXY/NO_PROXY with
 * undici's EnvHttpProxyAgent semantics), and the extra headers go on every
 * request. {@link openDispatcher} turns it into an undici dispatcher.
 *
 * Every socket passes through the hooks of core/connection/socket.ts (request
 * heads in a client's shape, failures noted, unsolicited `100 Continue`
 * answers dropped: see there why that is sound). Tunnels through a proxy are
 * core/tunnel.ts's: bounded, given up on an interruption, and a failure of
 * the proxy worded as the proxy's. Connections are opened a few at a time,
 * and direct ones ahead of need when asked (core/connection/stock.ts). The
 * options themselves, their check, their secrets and their record are
 * core/connection/options.ts's.
 */
import type { buildConnector as Connector, Dispatcher } from 'undici';
import { buildConnector, Client, EnvHttpProxyAgent, Pool, ProxyAgent } from './undici.js';
import type { Fingerprint } from './fingerprints.js';
import { type ConnectOptions, shownProxy } from './connection/options.js';
import { skipContinueOn } from './connection/socket.js';
import { ConnectionStock } from './connection/stock.js';
import { boundedTunnel, proxyConnection } from './tunnel.js';

// Callers import the options and the socket hooks from here.
export {
  checkConnectOptions,
  type ConnectionRecord,
  connectionRecord,
  type ConnectionSecret,
  connectionSecrets,
  type ConnectOptions,
  credentialHeader,
  type EnvironmentValue,
  headerProblem,
  MIN_SECRET_LENGTH,
  type ProxyChoice,
  REFUSED_HEADERS,
  SECRET_HEADER_ENV,
  secretHeaderVariable,
  secretLabel,
  shownProxy,
} from './connection/options.js';
export { ConnectionStock } from './connection/stock.js';
export {
  type ConnectionFailure,
  connectionFailure,
  type HeadShape,
  shapeHeads,
  skipContinue,
  skipContinueOn,
  watchConnection,
} from './connection/socket.js';

/** How long and how wide: the deadline of one request, and connections. */
export interface DispatcherShape {
  timeoutMs: number;
  /** 1: one undici Client (a load lane); more: a Pool. */
  connections: number;
  keepAliveTimeout?: number;
  /** The run's interruption: once it fires no tunnel is opened or tried again, and one being opened is given up. */
  signal?: AbortSignal;
  /**
   * The client shape every request head on these connections is written in
   * (core/request-head.ts {@link shapeHead}). Default: undici's own head.
   */
  fingerprint?: Fingerprint;
  /**
   * Connections paced (core/connection/stock.ts), and direct ones opened ahead of need: their stock is put in the
   * route (`Route.stock`); tunnels through a proxy are paced, never opened ahead. Default: undici opens connections
   * as requests need them, as many at once as they need.
   */
  openAhead?: boolean;
}

/** The TLS options of the target's connections (the load's raw lanes connect with them too). */
export function tlsOptions(options: ConnectOptions): { ca?: string; cert?: string; key?: string; rejectUnauthorized?: boolean } {
  return {
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.cert && options.key ? { cert: options.cert, key: options.key } : {}),
    // Always said: Node's default gives way to NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment, and the key would
    // then go to any certificate while the run reports TLS verified. Only --insecure accepts any.
    rejectUnauthorized: !options.insecure,
  };
}

/** Where the connections of a dispatcher went: straight, or through a proxy (known once one was opened). */
export interface Route {
  proxied: boolean | undefined;
  /** Direct, and asked to open connections ahead (`DispatcherShape.openAhead`): where they are kept. */
  stock?: ConnectionStock;
  /** Every stock that paced this dispatcher's openings, direct or through tunnels (`DispatcherShape.openAhead`). */
  paced?: ConnectionStock[];
}

/**
 * An undici dispatcher for `origin` (the target's), shaped by `shape`, reaching
 * it as `options` says. Every connection skips unsolicited `100 Continue`
 * answers ({@link skipContinue}); through a proxy, every tunnel is bounded and
 * the proxy's own failures are worded as the proxy's (core/tunnel.ts).
 * Requests must name their `origin`.
 */
export function openDispatcher(
  origin: string,
  options: ConnectOptions,
  shape: DispatcherShape,
  route: Route = { proxied: undefined },
): Dispatcher {
  const tls = tlsOptions(options);
  const direct = buildConnector({ timeout: shape.timeoutMs, ...tls });
  const make = (o: string | URL, connect: Connector.connector): Dispatcher => {
    const common = {
      pipelining: 1,
      headersTimeout: shape.timeoutMs,
      bodyTimeout: shape.timeoutMs,
      ...(shape.keepAliveTimeout === undefined ? {} : { keepAliveTimeout: shape.keepAliveTimeout }),
      connect: skipContinueOn(connect, shape.fingerprint && { fingerprint: shape.fingerprint, origin }),
    };
    return shape.connections === 1 ? new Client(o, common) : new Pool(o, { ...common, connections: shape.connections });
  };
  const proxy = options.proxy ?? { kind: 'none' };
  if (proxy.kind === 'none') {
    route.proxied = false;
    if (!shape.openAhead) return make(origin, direct);
    route.stock = new ConnectionStock(direct, origin);
    route.paced = [route.stock];
    return make(origin, route.stock.connect);
  }
  // undici's proxy agents open the tunnel (CONNECT, then TLS to the target with requestTls); the pools they make
  // for the target are the suite's own, with the same shape and the same filter.
  const factory = (o: string | URL, opts: object): Dispatcher => {
    const connect = (opts as { connect?: unknown }).connect;
    const tunnelled = typeof connect === 'function';
    route.proxied = tunnelled;
    // Tunnels are opened at the pace of direct connections (a proxy's listen backlog is as short as any), never ahead.
    const tunnel = tunnelled ? boundedTunnel(connect as Connector.connector, shape.signal) : direct;
    if (!shape.openAhead) return make(o, tunnel);
    const stock = new ConnectionStock(tunnel, typeof o === 'string' ? o : o.origin);
    (route.paced ??= []).push(stock);
    return make(o, stock.connect);
  };
  const proxyTls = {
    timeout: shape.timeoutMs,
    ...(options.ca ? { ca: options.ca } : {}),
    rejectUnauthorized: !options.insecure,
  };
  // The connection to the proxy answers CONNECT within the deadline too, and marks its failures as the proxy's.
  const clientFactory = (url: URL, opts: object): Dispatcher => proxyConnection(url, opts, shape.timeoutMs, shownProxy(url.href));
  const common = {
    factory,
    clientFactory,
    requestTls: { timeout: shape.timeoutMs, ...tls },
    proxyTls,
    connect: { timeout: shape.timeoutMs, ...tls },
  };
  if (proxy.kind === 'url') return new ProxyAgent({ ...common, uri: proxy.url });
  return new EnvHttpProxyAgent({ ...common, httpProxy: proxy.httpProxy, httpsProxy: proxy.httpsProxy, noProxy: proxy.noProxy });
}
