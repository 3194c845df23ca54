#!/usr/bin/env node
// Thin launcher: the CLI lives in dist/cli/main.js (built by `npm run build`, run by npm's prepare).
// V8's heap settings before anything else loads; the user's own flags win (cli/heap.ts).
await import('../dist/cli/heap.js').then((heap) => heap.sizeHeap(process)).catch(() => {}); // no dist: said below
let main;
try {
  ({ main } = await import('../dist/cli/main.js'));
} catch (error) {
  process.stderr.write(
    `petstore-conformance: error: cannot load the built CLI (${error.code ?? error.message}); run "npm run build" first\n`,
  );
  process.exit(2);
}
process.exitCode = await main(process.argv.slice(2));
