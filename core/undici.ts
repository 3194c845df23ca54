/**
 * undici's dispatchers, without the rest of undici. Its index loads fetch,
 * WebSocket, EventSource, cookies, the cache stores and the mocks with them:
 * about 95 ms of CPU at every start, of which the suite uses nothing; the
 * modules here cost about 35 ms (issue 23). undici declares no `exports`, so
 * its files are reachable by path; they are the same modules its index
 * re-exports (test/e2e/core/undici.test.ts compares them, and what the index
 * adds to `Dispatcher.prototype`). Should a later undici move them, the whole
 * undici is loaded instead.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

/** What the suite takes from undici. */
type Dispatchers = Pick<typeof Undici, 'buildConnector' | 'Client' | 'EnvHttpProxyAgent' | 'Pool' | 'ProxyAgent'>;

function load(): Dispatchers {
  try {
    const dispatcher = require('undici/lib/dispatcher/dispatcher.js') as typeof Undici.Dispatcher;
    // As undici's index does: the request API (`request`, `stream`, `pipeline`, `connect`, `upgrade`) on every dispatcher.
    Object.assign(dispatcher.prototype, require('undici/lib/api/index.js'));
    return {
      Client: require('undici/lib/dispatcher/client.js') as typeof Undici.Client,
      Pool: require('undici/lib/dispatcher/pool.js') as typeof Undici.Pool,
      ProxyAgent: require('undici/lib/dispatcher/proxy-agent.js') as typeof Undici.ProxyAgent,
      EnvHttpProxyAgent: require('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof Undici.EnvHttpProxyAgent,
      buildConnector: require('undici/lib/core/connect.js') as typeof Undici.buildConnector,
    };
  } catch {
    return require('undici') as typeof Undici;
  }
}

/** undici's `buildConnector`, `Client`, `EnvHttpProxyAgent`, `Pool` and `ProxyAgent`, as its index exports them. */
export const { buildConnector, Client, EnvHttpProxyAgent, Pool, ProxyAgent } = load();
