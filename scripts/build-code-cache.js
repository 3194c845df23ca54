// Makes dist/cli/main.bundle.cache, the V8 code cache of the CLI's bundle (scripts/build-bundle.js), which
// cli/launch.ts compiles the bundle with. Run by `npm run build` after the bundle; the only writer of the cache (a run
// only reads it: a cache is code, so it is never written where a run could be made to write it).
// V8 keeps in a cache what is compiled when it is made: the bundle runs a whole run first (`--load none`, against
// the reference implementation in this process, on loopback), so the functions a run compiles before and after its
// first request come compiled. V8 takes a cache only under the flags it was made with: this process sets itself up
// as bin/ does (it imports bin/, which stops before the CLI when it finds the mark below).
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
try {
  const code = await main(['--base-url', server.url, '--load', 'none', '--report-dir', dir], {
    stdout: sink(),
    stderr: sink(),
    env: { PETSTORE_API_KEY: apiKey, NO_COLOR: '1' },
    cwd: dir,
  });
  if (code !== 0) throw new Error(`build-code-cache: the run against the reference exited ${code}:\n${output}`);
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
writeFileSync(CACHE_FILE, cacheFileOf(compiled.id, compiled.script.createCachedData()));
