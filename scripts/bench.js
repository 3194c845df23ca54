// Benchmark (not a test): every figure of issue 12 on the machine it runs on,
// each a median of several runs and against its target, references measured
// in the same run. Shared, noisy machines: read the ratios more than seconds.
//
//   npm run bench [-- --runs 3 --memory-load-seconds 60 --load-rounds 3 --load-seconds 10]
//
// Rows:
//   functional phase, 30 ms and 100 ms away  scripts/bench-network.js (own delay proxy)
//   cold starts against `node -e 0`           scripts/bench-cold.js
//   peak RSS, functional run and load run     scripts/bench-memory.js
//   sender CPU per request against wrk        scripts/bench-load.js (installs wrk if missing)
import { cpus } from 'node:os';
import { benchCold } from './bench-cold.js';
import { benchLoad } from './bench-load.js';
import { benchMemory } from './bench-memory.js';
import { benchNetwork } from './bench-network.js';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  const value = at < 0 ? NaN : Number(process.argv[at + 1]);
  return Number.isFinite(value) ? value : fallback;
};
const runs = arg('runs', 3);
const quiet = () => {};

console.log(
  `petstore-conformance benchmark: node ${process.version}, ${cpus().length} cores, load average ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
const rows = [];
const section = async (name, run) => {
  process.stdout.write(`${name}…\n`);
  rows.push(...(await run()));
};
await section('functional phase through the delay proxy', () => benchNetwork({ runs, log: console.log }));
await section('cold starts', () => benchCold({ runs: Math.max(runs, 7) }));
await section('peak memory', () => benchMemory({ runs, loadSeconds: arg('memory-load-seconds', 60) }));
await section('load sender against wrk', () =>
  benchLoad({ rounds: arg('load-rounds', 3), seconds: arg('load-seconds', 10), soakSeconds: arg('soak-seconds', 0), log: quiet }),
);

const shown = (row) => {
  const value = row.median ?? row.medianMs ?? row.medianMB ?? row.ratio;
  const unit = row.unit ?? (row.medianMs !== undefined ? 'ms' : row.medianMB !== undefined ? 'MB' : '');
  const ratio = row.ratio !== undefined && row.medianMs !== undefined ? ` (${row.ratio.toFixed(1)}× node -e 0)` : '';
  // A functional run against its floor: as many requests from a fresh process, nothing judged (scripts/network-floor.js).
  const floor = row.floor ? ` (${(row.median / row.floor.wall).toFixed(1)}× its floor, ${row.floor.wall.toFixed(2)} s)` : '';
  return `${typeof value === 'number' ? value.toFixed(value < 10 ? 2 : 0) : value} ${unit}${ratio}${floor}`;
};
console.log('\nwhat | median | target | met');
console.log('--- | --- | --- | ---');
for (const row of rows)
  console.log(
    `${row.what} | ${shown(row)} | ${typeof row.target === 'number' ? `≤ ${row.target} MB` : row.target || '-'} | ${row.met === undefined ? '-' : row.met ? 'yes' : 'NO'}`,
  );
process.exitCode = rows.every((row) => row.met !== false) ? 0 : 1;
