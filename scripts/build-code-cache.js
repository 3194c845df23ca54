// Makes dist/cli/main.bundle.cache, the V8 code cache of the CLI's bundle (scripts/build-bundle.js), which
// cli/launch.ts compiles the bundle with. Run by `npm run build` after the bundle; the only writer of the cache (a run
// only reads it: a cache is code, so nothing a run does writes one).
// V8 keeps in a cache what is compiled when it is made: the bundle runs a run (`--load none`, against the reference
// implementation in this process, on loopback) up to the answer to its first request, so what a run compiles before
// its first request comes compiled; then the run is interrupted as a SIGTERM would. Taken at the end of a whole run
// instead, the cache was 1.7 times the size, slower to read before the first request, and the run no faster (issue 23).
// V8 takes a cache only under the flags it was made with: this process sets itself up as bin/ does (it imports
// bin/, which stops before the CLI when it finds the mark below).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';

globalThis[Symbol.for('petstore-conformance.build-code-cache')] = true;
await import('../bin/petstore-conformance.js');
const { CACHE_FILE, cacheFileOf, compileBundle, runBundle } = await import('../dist/cli/launch.js');
const { startReference } = await import('../dist/reference/server.js');

rmSync(CACHE_FILE, { force: true });
const compiled = await compileBundle();
if (!compiled?.id) throw new Error('build-code-cache: no bundle with a build id; run scripts/build-bundle.js first');
const { main } = runBundle(compiled.script);
const apiKey = `build-code-cache-${Date.now()}-0123456789`;
const server = await startReference({ apiKey });
const dir = mkdtempSync(join(tmpdir(), 'pc-build-code-cache-'));
let output = '';
const sink = () => new Writable({ write: (chunk, _encoding, done) => ((output += chunk), done()) });
let interrupt;
let data;
// undici (the bundle's copy) publishes each answer's head here; the first is the preflight's.
const answered = () => {
  unsubscribe('undici:request:headers', answered);
  data = compiled.script.createCachedData();
  interrupt?.('SIGTERM');
};
subscribe('undici:request:headers', answered);
try {
  const code = await main(['--base-url', server.url, '--load', 'none', '--report-dir', dir], {
    stdout: sink(),
    stderr: sink(),
    env: { PETSTORE_API_KEY: apiKey, NO_COLOR: '1' },
    cwd: dir,
    signals: (handler) => ((interrupt = handler), () => (interrupt = undefined)),
  });
  if (data === undefined || code !== 143) throw new Error(`build-code-cache: the run against the reference exited ${code}:\n${output}`);
} finally {
  unsubscribe('undici:request:headers', answered);
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
writeFileSync(CACHE_FILE, cacheFileOf(compiled.id, data));
