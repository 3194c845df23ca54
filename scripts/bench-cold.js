// Benchmark (not a test): how fast the CLI starts from cold (issue 12). Times each command in its
// own process, the commands taken in turn so a busy moment of the machine falls on all of them
// alike, and compares each median with `node -e 0`'s median measured in the same run.
// Usage: npm run bench:cold [-- --runs N]   (N default 7; or node scripts/bench-cold.js after a build)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './median.js';

const BIN = fileURLToPath(new URL('../bin/petstore-conformance.js', import.meta.url));

/** What is timed; `target` is a ratio to `node -e 0` (`ratio`) or a wall time (`ms`). */
const COMMANDS = [
  { what: 'node -e 0', args: () => ['-e', '0'] },
  { what: '--version', args: () => [BIN, '--version'], target: { ratio: 3 } },
  { what: '--help', args: () => [BIN, '--help'] },
  { what: 'rules', args: () => [BIN, 'rules'] },
  {
    what: '--embedded --load none --report-dir <tmp>',
    args: (dir) => [BIN, '--embedded', '--load', 'none', '--report-dir', dir],
    target: { ms: 2500 },
  },
];

/**
 * Runs every command `runs` times, alternating, and returns one row per command:
 * median wall time, its ratio to `node -e 0`'s median, the target and whether it is met
 * (`met` is undefined for a command without a target). Throws if a command fails.
 */
export function benchCold({ runs = 7 } = {}) {
  const walls = COMMANDS.map(() => []);
  const dir = mkdtempSync(join(tmpdir(), 'pc-bench-cold-'));
  try {
    for (let i = 0; i < runs; i++) {
      COMMANDS.forEach((command, c) => {
        const reportDir = join(dir, `run-${i}`);
        const started = performance.now();
        const child = spawnSync(process.execPath, command.args(reportDir), {
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { ...process.env, NO_COLOR: '1' },
        });
        walls[c].push(performance.now() - started);
        if (child.status !== 0) throw new Error(`${command.what} exited with ${child.status ?? child.signal}: ${child.stderr}`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const medians = walls.map(median);
  return COMMANDS.map(({ what, target }, c) => {
    const ratio = medians[c] / medians[0];
    const met = target === undefined ? undefined : target.ratio !== undefined ? ratio <= target.ratio : medians[c] <= target.ms;
    return {
      what,
      medianMs: Math.round(medians[c]),
      ratio: Number(ratio.toFixed(2)),
      target: target === undefined ? '' : target.ratio !== undefined ? `≤ ${target.ratio}× node -e 0` : `≤ ${target.ms} ms`,
      met,
    };
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--runs');
  const runs = at === -1 ? 7 : Number(process.argv[at + 1]);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive integer');
  const rows = benchCold({ runs });
  const width = Math.max(...rows.map((r) => r.what.length));
  console.log(`${'command'.padEnd(width)}  median ms  × node -e 0  target`);
  for (const r of rows)
    console.log(
      `${r.what.padEnd(width)}  ${String(r.medianMs).padStart(9)}  ${r.ratio.toFixed(2).padStart(11)}  ${r.target}${r.met === undefined ? '' : r.met ? '  met' : '  NOT met'}`,
    );
  console.log(`medians of ${runs} alternating runs; node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
}
