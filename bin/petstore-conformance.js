#!/usr/bin/env node
// Thin launcher: the CLI lives in dist/ (built by `npm run build`, run by npm's prepare); dist/cli/launch.js loads it,
// from one bundle with its build-time code cache for a run, from the ES modules for --version and --help.
// scripts/build-code-cache.js imports this file to set up the process as a run does (V8 takes a code cache only under
// the flags it was made with), with this mark set: then nothing after the heap's settings runs.
const buildingCache = globalThis[Symbol.for('petstore-conformance.build-code-cache')] === true;
// V8's heap settings come first, before anything else loads; the user's own flags win (cli/heap.ts).
await import('../dist/cli/heap.js').then((heap) => heap.sizeHeap(process, undefined, { deferred: !buildingCache })).catch(() => {}); // no dist: said below
if (!buildingCache) {
  const argv = process.argv.slice(2);
  let main;
  try {
    ({ main } = await (await import('../dist/cli/launch.js')).loadCli(argv));
  } catch (error) {
    process.stderr.write(
      `petstore-conformance: error: cannot load the built CLI (${error.code ?? error.message}); run "npm run build" first\n`,
    );
    process.exit(2);
  }
  process.exitCode = await main(argv);
}
