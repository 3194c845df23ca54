// Benchmark (not a test): how fast the CLI starts from cold (issues 12 and 23). Times each command in its
// own process, the commands taken in turn so a busy moment of the machine falls on all of them
// alike, and compares each median with `node -e 0`'s median measured in the same run.
// "fixed cost to first request" is a run's start-up alone: the bench serves the reference
// implementation in its own process on loopback, spawns `--base-url <it> --load none` and times
// spawn → the first request's arrival at that server, then stops the run (SIGTERM; it writes its
// reports and exits 143).
// A run loads the CLI from one bundle compiled with the V8 code cache made at build (cli/launch.ts); the bench says
// whether V8 took that cache (a cache made under other V8 flags, or by another Node, is refused and the bundle compiled).
// Node 20 has no module.enableCompileCache (Node 22.1+), so nothing of Node's own compile cache is measured here.
// Usage: npm run bench:cold [-- --runs N]   (N default 7; or node scripts/bench-cold.js after a build)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './median.js';

const BIN = fileURLToPath(new URL('../bin/petstore-conformance.js', import.meta.url));
const KEY = 'bench-cold-key-0123456789';

/**
 * What is timed; `target` is a ratio to `node -e 0` (`ratio`) or a wall time (`ms`); `untilRequest`: timed to the
 * first request the bench's server receives, not to the exit.
 */
const COMMANDS = [
  { what: 'node -e 0', args: () => ['-e', '0'] },
  { what: '--version', args: () => [BIN, '--version'], target: { ratio: 1.5 } },
  { what: '--help', args: () => [BIN, '--help'], target: { ratio: 2 } },
  { what: 'rules', args: () => [BIN, 'rules'] },
  {
    what: 'fixed cost to first request',
    args: (dir, url) => [BIN, '--base-url', url, '--load', 'none', '--report-dir', dir, '-q'],
    target: { ratio: 3 },
    untilRequest: true,
  },
  {
    what: '--embedded --load none --report-dir <tmp>',
    args: (dir) => [BIN, '--embedded', '--load', 'none', '--report-dir', dir],
    target: { ms: 2500 },
  },
];

/** Spawns node with `args`; resolves with its exit code or signal and its stderr. */
function spawned(args) {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', PETSTORE_API_KEY: KEY },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stderr }));
  });
  return { child, exited };
}

/**
 * Runs every command `runs` times, alternating, and returns one row per command:
 * median wall time, its ratio to `node -e 0`'s median, the target and whether it is met
 * (`met` is undefined for a command without a target). Throws if a command fails.
 */
export async function benchCold({ runs = 7 } = {}) {
  const { startReference } = await import('../dist/reference/server.js');
  let arrived;
  // The first request of each spawned run settles `arrived`; the reference answers it and every later one as usual.
  const server = await startReference({
    apiKey: KEY,
    wrap: (handler) => (request) => {
      arrived?.(performance.now());
      arrived = undefined;
      return handler(request);
    },
  });
  const walls = COMMANDS.map(() => []);
  const dir = mkdtempSync(join(tmpdir(), 'pc-bench-cold-'));
  try {
    for (let i = 0; i < runs; i++) {
      for (const [c, command] of COMMANDS.entries()) {
        const reportDir = join(dir, `run-${i}-${c}`);
        const firstRequest = new Promise((resolve) => (arrived = resolve));
        const started = performance.now();
        const { child, exited } = spawned(command.args(reportDir, server.url));
        if (command.untilRequest) {
          const at = await Promise.race([firstRequest, exited.then(() => undefined)]);
          if (at === undefined) throw new Error(`${command.what}: the run exited before its first request: ${(await exited).stderr}`);
          walls[c].push(at - started);
          child.kill('SIGTERM');
          await exited;
        } else {
          const { code, signal, stderr } = await exited;
          walls[c].push(performance.now() - started);
          if (code !== 0) throw new Error(`${command.what} exited with ${code ?? signal}: ${stderr}`);
        }
        arrived = undefined;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
  const medians = walls.map(median);
  return COMMANDS.map(({ what, target }, c) => {
    const ratio = medians[c] / medians[0];
    const met = target === undefined ? undefined : target.ratio !== undefined ? ratio <= target.ratio : medians[c] <= target.ms;
    return {
      what,
      medianMs: Math.round(medians[c]),
      rangeMs: [Math.round(Math.min(...walls[c])), Math.round(Math.max(...walls[c]))],
      ratio: Number(ratio.toFixed(2)),
      target: target === undefined ? '' : target.ratio !== undefined ? `≤ ${target.ratio}× node -e 0` : `≤ ${target.ms} ms`,
      met,
    };
  });
}

/** How a command other than --version and --help loads the CLI: from the bundle with its cache taken or not, or from the ES modules. */
export function howLoaded() {
  const watch = `data:text/javascript,${encodeURIComponent(
    "import vm from 'node:vm'; import { syncBuiltinESMExports } from 'node:module'; const S = vm.Script; vm.Script = class extends S { constructor(c, o) { super(c, o); process.stderr.write(`@@ ${o?.cachedData ? (this.cachedDataRejected ? 'rejected' : 'accepted') : 'none'}\\n`); } }; syncBuiltinESMExports();",
  )}`;
  const { stderr } = spawnSync(process.execPath, ['--import', watch, BIN, 'rules'], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const cache = /^@@ (\w+)$/m.exec(stderr)?.[1];
  return cache === undefined
    ? 'the ES modules (no current bundle)'
    : cache === 'none'
      ? 'the bundle, without a code cache'
      : `the bundle, its code cache ${cache}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--runs');
  const runs = at === -1 ? 7 : Number(process.argv[at + 1]);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive integer');
  const load = loadavg()[0].toFixed(1);
  const rows = await benchCold({ runs });
  const width = Math.max(...rows.map((r) => r.what.length));
  console.log(`${'command'.padEnd(width)}  median ms  range ms    × node -e 0  target`);
  for (const r of rows)
    console.log(
      `${r.what.padEnd(width)}  ${String(r.medianMs).padStart(9)}  ${r.rangeMs.join('–').padEnd(10)}  ${r.ratio.toFixed(2).padStart(11)}  ${r.target}${r.met === undefined ? '' : r.met ? '  met' : '  NOT met'}`,
    );
  console.log(`a run loads the CLI from ${howLoaded()}`);
  console.log(
    `medians of ${runs} alternating runs; node ${process.version}, ${cpus().length} cores, load average ${load} before → ${loadavg()[0].toFixed(1)} after`,
  );
}
