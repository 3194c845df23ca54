/**
 * core/undici.ts takes undici's dispatchers from their own files, not from undici's index (which loads fetch,
 * WebSocket, cookies and the rest with them). They must be the very classes the index exports, and the index must add
 * nothing to a dispatcher that core/undici.ts does not: checked here against the undici installed, so an update that
 * moves a file or adds to the prototype fails here rather than in a run. (In e2e: it loads undici, which a unit test
 * may not.)
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import * as ours from '../../../core/undici.js';

const require = createRequire(import.meta.url);

describe('core/undici.ts', () => {
  it("gives the classes undici's index exports, from the files core/undici.ts names", () => {
    expect(ours.Pool).toBe(undici.Pool);
    expect(ours.Client).toBe(undici.Client);
    expect(ours.ProxyAgent).toBe(undici.ProxyAgent);
    expect(ours.EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
    expect(ours.buildConnector).toBe(undici.buildConnector);
    // The files themselves, not the index it falls back to.
    expect(require('undici/lib/dispatcher/pool.js')).toBe(undici.Pool);
    expect(require('undici/lib/dispatcher/client.js')).toBe(undici.Client);
    expect(require('undici/lib/dispatcher/proxy-agent.js')).toBe(undici.ProxyAgent);
    expect(require('undici/lib/dispatcher/env-http-proxy-agent.js')).toBe(undici.EnvHttpProxyAgent);
    expect(require('undici/lib/core/connect.js')).toBe(undici.buildConnector);
    expect(require('undici/lib/dispatcher/dispatcher.js')).toBe(undici.Dispatcher);
  });

  it('adds to every dispatcher what the index adds: the request API, nothing else', () => {
    const index = readFileSync(require.resolve('undici'), 'utf8');
    expect([...index.matchAll(/^.*\bprototype\b.*$/gm)].map((m) => m[0].trim())).toEqual(['Object.assign(Dispatcher.prototype, api)']);
    expect(index).toMatch(/^const api = require\('\.\/lib\/api'\)$/m);
    const api = require('undici/lib/api/index.js') as Record<string, unknown>;
    expect(Object.keys(api).sort()).toEqual(['connect', 'pipeline', 'request', 'stream', 'upgrade']);
    for (const [name, method] of Object.entries(api))
      expect((undici.Dispatcher.prototype as unknown as Record<string, unknown>)[name], name).toBe(method);
  });
});
