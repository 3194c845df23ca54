// Benchmark (not a test): the full functional suite with default settings against
// the embedded reference on loopback. Prints wall time, requests and checks per run,
// and the median. Target: under 3 s wall on a 2-core machine.
// Usage: npm run bench [-- --runs 5]
import { runConformance, startReference } from '../dist/index.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const walls = [];
for (let i = 0; i < runs; i++) {
  const server = await startReference({ apiKey: 'bench-key' });
  const started = performance.now();
  const result = await runConformance({ baseUrl: server.url, apiKey: 'bench-key', seed: i + 1 });
  const wall = performance.now() - started;
  await server.close();
  walls.push(wall);
  const checks = result.rules.reduce((n, r) => n + r.checks.length, 0);
  console.log(`run ${i + 1}: ${(wall / 1000).toFixed(2)} s wall, ${result.summary.requests} requests, ${result.summary.checks} checks (${checks} rule-check pairs), verdict ${result.summary.verdict}`);
}
walls.sort((a, b) => a - b);
const median = walls[Math.floor(walls.length / 2)];
console.log(`median ${(median / 1000).toFixed(2)} s over ${runs} runs (target < 3 s); node ${process.version}, ${(await import('node:os')).cpus().length} cores`);

// The figure a user sees: a cold process running the CLI's functional suite (no load profile), reports included.
const { execFileSync } = await import('node:child_process');
const { mkdtempSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const cold = performance.now();
execFileSync(process.execPath, [new URL('../bin/petstore-conformance.js', import.meta.url).pathname, '--embedded', '--load', 'none', '--report-dir', mkdtempSync(join(tmpdir(), 'pc-bench-'))], { stdio: 'ignore' });
console.log(`cold CLI (petstore-conformance --embedded --load none, reports written): ${((performance.now() - cold) / 1000).toFixed(2)} s wall`);
