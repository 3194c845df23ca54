// Memory benchmark (not a test): the peak RSS of the CLI's functional run and of a run with a load profile,
// both against the embedded reference on loopback, each `--runs` times (default 3); prints the medians against the
// targets of issue 12: a functional run at most 150 MB, a run with a 30-60 s load profile at most 200 MB.
//
// - Functional: `petstore-conformance --embedded --load none --report-dir DIR`.
// - Load: the same with `--load bench-memory`, a profile from a config file written for the run: closed loop,
//   8 connections (soak's), the default mix, `--load-seconds` long (default 45).
// - MB are MiB (1024 × 1024 bytes): /usr/bin/time and /proc count KiB.
// - Peak RSS: /usr/bin/time -f %M when it is there; that is the largest process of the run's tree (the CLI, or the
//   embedded reference in its child process; not their sum). Without it, the largest VmHWM read from /proc/PID/status
//   every 50 ms while the run goes (a rise in the last 50 ms before a process exits can be missed). Either way each
//   run also prints each process's own VmHWM, so it says which side held the memory.
//
// Usage: npm run bench:memory [-- --runs 3 --load-seconds 45]
// From another script: `import { benchMemory } from './bench-memory.js'`; `await benchMemory({ runs: 3 })` resolves
// to rows `{ what, medianMB, target, met }`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './median.js';

const BIN = fileURLToPath(new URL('../bin/petstore-conformance.js', import.meta.url));
const TIME = '/usr/bin/time';
/** Targets of issue 12, MB. */
export const TARGETS = { functional: 150, load: 200 };
/** The load run's profile: soak's connections and mix, shorter. */
const PROFILE = 'bench-memory';

const mb = (kib) => Math.round((kib / 1024) * 10) / 10;

/** Children of `pid`, from /proc (the kernel's list when it keeps one, else every process's parent). */
function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    const children = [];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        // Field 4 of stat, after the name in parentheses (which may hold spaces).
        if (Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === pid) children.push(Number(name));
      } catch {
        // gone meanwhile
      }
    }
    return children;
  }
}

/** VmHWM of a process in KiB, or undefined once it is gone. */
function hwmOf(pid) {
  try {
    const match = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The verdict of a report.json, with the rules that failed, or undefined when there is none. */
function verdictOf(path) {
  try {
    const { summary, rules } = JSON.parse(readFileSync(path, 'utf8'));
    const failed = rules.filter((rule) => rule.outcome === 'fail').map((rule) => rule.id);
    return `${summary.verdict}${failed.length ? ` (${failed.join(', ')} failed)` : ''}`;
  } catch {
    return undefined;
  }
}

/**
 * Runs the CLI once with `args`; resolves to its exit code, the peak RSS of the run (KiB) and each process's own
 * VmHWM (the CLI first, then the processes it started).
 */
function runOnce(args) {
  const dir = mkdtempSync(join(tmpdir(), 'pc-bench-memory-'));
  const timeFile = join(dir, 'time.txt');
  const withTime = existsSync(TIME);
  const command = withTime
    ? [TIME, ['-f', '%M', '-o', timeFile, process.execPath, BIN, ...args, '--report-dir', join(dir, 'report')]]
    : [process.execPath, [BIN, ...args, '--report-dir', join(dir, 'report')]];
  const child = spawn(command[0], command[1], { stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
  /** VmHWM by pid, in the order the processes were first seen. */
  const peaks = new Map();
  let cli;
  const poll = setInterval(() => {
    cli ??= withTime ? childrenOf(child.pid)[0] : child.pid;
    if (cli === undefined) return;
    const tree = [cli];
    for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i]));
    for (const pid of tree) {
      const hwm = hwmOf(pid);
      if (hwm !== undefined) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, hwm));
    }
  }, 50);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(poll);
      const processes = [...peaks.values()];
      const timed = withTime && existsSync(timeFile) ? Number(readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)) : NaN;
      const verdict = verdictOf(join(dir, 'report', 'report.json'));
      rmSync(dir, { recursive: true, force: true });
      // GNU time prints "Command exited with non-zero status N" before the figure; the figure is the last line.
      resolve({
        code,
        verdict,
        peakKib: Number.isFinite(timed) ? timed : Math.max(0, ...processes),
        processes,
        source: Number.isFinite(timed) ? 'time' : 'VmHWM',
      });
    });
  });
}

/**
 * Runs the functional run and the load run `runs` times each; resolves to one row per kind of run with the
 * median peak RSS (MB), its target and whether it was met. `log` gets a line per run.
 */
export async function benchMemory({ runs = 3, loadSeconds = 45, log = () => {} } = {}) {
  const configDir = mkdtempSync(join(tmpdir(), 'pc-bench-memory-config-'));
  const config = join(configDir, 'petstore-conformance.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      profiles: {
        [PROFILE]: {
          kind: 'closed',
          description: `8 connections for ${loadSeconds} s (bench-memory)`,
          connections: 8,
          durationSec: loadSeconds,
          maxRequests: 50_000_000,
          mix: { listPets: 6, getPet: 3, createPet: 1 },
          thresholds: ['errorRate < 1%', 'p99 < 1000ms'],
        },
      },
    }),
  );
  const kinds = [
    { what: 'functional run (--embedded --load none)', target: TARGETS.functional, args: ['--embedded', '--load', 'none'] },
    {
      what: `load run (--embedded, closed loop, 8 connections, ${loadSeconds} s)`,
      target: TARGETS.load,
      args: ['--embedded', '--load', PROFILE, '--config', config],
    },
  ];
  try {
    const rows = [];
    for (const kind of kinds) {
      const peaks = [];
      for (let run = 1; run <= runs; run++) {
        const result = await runOnce(kind.args);
        // A run that wrote its report counts, whatever its verdict (exit 1 non-conformant, 3 a threshold breached on a
        // busy machine): the memory figure stands, and the verdict is printed. Without a report the run did not happen.
        if (result.verdict === undefined) throw new Error(`${kind.what}: the CLI exited with ${result.code} and wrote no report`);
        peaks.push(mb(result.peakKib));
        const [cli, ...others] = result.processes.map(mb);
        log(
          `${kind.what} ${run}/${runs}: peak ${mb(result.peakKib)} MB (${result.source}); CLI ${cli ?? '?'} MB${others.length ? `, reference ${others.join(' + ')} MB` : ''}; exit ${result.code}, ${result.verdict}`,
        );
      }
      const medianMB = median(peaks);
      rows.push({ what: kind.what, medianMB, target: kind.target, met: medianMB <= kind.target });
    }
    return rows;
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name, fallback) => {
    const at = process.argv.indexOf(`--${name}`);
    const value = at < 0 ? NaN : Number(process.argv[at + 1]);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  const runs = arg('runs', 3);
  const loadSeconds = arg('load-seconds', 45);
  console.log(
    `peak RSS over ${runs} run(s) each; node ${process.version}; ${existsSync(TIME) ? `${TIME} -f %M` : 'VmHWM polled from /proc'}`,
  );
  const rows = await benchMemory({ runs, loadSeconds, log: (line) => console.log(`  ${line}`) });
  for (const row of rows)
    console.log(`${row.met ? 'met    ' : 'NOT MET'} ${row.what}: median ${row.medianMB} MB (target ${row.target} MB)`);
  process.exitCode = rows.every((row) => row.met) ? 0 : 1;
}
