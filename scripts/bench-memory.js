// Memory benchmark (not a test): the peak RSS of the CLI's functional run and of a run with a load profile, both
// against the embedded reference on loopback, each `--runs` times (default 3), and the CLI's RSS over time during the
// load profile (issue 23, item 3: any load profile's RSS flat in time). Prints the medians against the targets: a
// functional run at most 110 MB, a 60 s closed loop at 8 connections on the default mix at most 160 MB, and a soak
// (`--soak-seconds 600`, the built-in soak's length) within 10 % of the 60 s figure.
//
// - Functional: `petstore-conformance --embedded --load none --report-dir DIR`.
// - Load: the same with `--load bench-memory`, a profile from a config file written for the run: closed loop,
//   8 connections (soak's), the default mix, `--load-seconds` long (default 60).
// - RSS over time: the CLI's VmRSS read every second; the load profile's start is its report's `startedAt`, and each
//   line gives the RSS at 10 s, 20 s… of the profile (the reading nearest each mark), with the growth from 10 s to the
//   end per minute and per request. The reference runs in a child process of its own and is not counted there.
// - Soak (`--soak-seconds S`, default 0: none): one run of an S-second profile, the same otherwise; its RSS timeline and
//   its peak against the 60 s runs' median (target: within 10 %).
// - MB are MiB (1024 × 1024 bytes): /usr/bin/time and /proc count KiB.
// - Peak RSS: /usr/bin/time -f %M when it is there; that is the largest process of the run's tree (the CLI, or the
//   embedded reference in its child process; not their sum). Without it, the largest VmHWM read from /proc/PID/status
//   every 50 ms while the run goes (a rise in the last 50 ms before a process exits can be missed). Either way each
//   run also prints each process's own VmHWM, so it says which side held the memory.
// - Heap: the CLI's largest heapTotal, heapUsed, external and arrayBuffers (process.memoryUsage(), every 50 ms, by
//   scripts/bench-memory-probe.js preloaded with `--import`): whether RSS is the JS heap, buffers, or neither (code,
//   compilers, the runtime), and the CLI's CPU seconds (a smaller heap is paid for in collections).
// - `--node-flags "…"` runs the CLI as `node <flags> bin/…` (e.g. `--node-flags --max-semi-space-size=16` to compare
//   a heap setting against the CLI's own, which yields to flags given); `--no-load` / `--no-functional` skip a kind.
//
// Usage: npm run bench:memory [-- --runs 3 --load-seconds 60 --soak-seconds 600 --no-functional --no-load]
// From another script: `import { benchMemory } from './bench-memory.js'`; `await benchMemory({ runs: 3 })` resolves
// to rows `{ what, medianMB, target, met }`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './median.js';

const BIN = fileURLToPath(new URL('../bin/petstore-conformance.js', import.meta.url));
const TIME = '/usr/bin/time';
const PROBE = pathToFileURL(fileURLToPath(new URL('./bench-memory-probe.js', import.meta.url))).href;
/** Targets of issue 23, MB; `soak`: the soak's peak at most this much above the 60 s profile's. */
export const TARGETS = { functional: 110, load: 160, soak: 0.1 };
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

/** A `Vm…:` field of a process's /proc status in KiB, or undefined once it is gone. */
function statusKiB(pid, field) {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** VmHWM (peak RSS) of a process in KiB, or undefined once it is gone. */
const hwmOf = (pid) => statusKiB(pid, 'VmHWM');

/** VmRSS of a process in KiB, or undefined once it is gone. */
const rssOf = (pid) => statusKiB(pid, 'VmRSS');

/**
 * The verdict of a report.json, with the rules that failed, and its load profile's start (epoch ms), length (ms) and
 * requests; undefined when there is no report.
 */
function reportOf(path) {
  try {
    const { summary, rules, load } = JSON.parse(readFileSync(path, 'utf8'));
    const failed = rules.filter((rule) => rule.outcome === 'fail').map((rule) => rule.id);
    const profile = load?.[0];
    return {
      verdict: `${summary.verdict}${failed.length ? ` (${failed.join(', ')} failed)` : ''}`,
      load: profile && { startedAt: Date.parse(profile.startedAt), durationMs: profile.durationMs, requests: profile.overall.requests },
    };
  } catch {
    return undefined;
  }
}

/**
 * The CLI's RSS at every 10 s of its load profile (the reading nearest each mark, none further than 1.5 s from it),
 * from `samples` (`[epoch ms, KiB]`); undefined without a load profile.
 */
function timelineOf(samples, load) {
  if (!load) return undefined;
  const marks = [];
  for (let at = 10_000; at <= load.durationMs + 500; at += 10_000) {
    const when = load.startedAt + Math.min(at, load.durationMs);
    let best;
    for (const sample of samples) if (!best || Math.abs(sample[0] - when) < Math.abs(best[0] - when)) best = sample;
    if (best && Math.abs(best[0] - when) <= 1500) marks.push({ second: Math.round(at / 1000), kib: best[1] });
  }
  return marks;
}

/** One line for an RSS timeline: each mark, then the growth from the first mark to the last, per minute and per request. */
function describeTimeline(marks, load) {
  if (!marks?.length) return 'no RSS timeline';
  const line = marks.map((m) => `${m.second} s ${mb(m.kib)}`).join(', ');
  if (marks.length < 2) return `RSS (MB) ${line}`;
  const first = marks[0];
  const last = marks.at(-1);
  const minutes = (last.second - first.second) / 60;
  const requests = (load.requests * (last.second - first.second)) / (load.durationMs / 1000);
  const perMinute = (last.kib - first.kib) / 1024 / minutes;
  return `RSS (MB) ${line}; from ${first.second} s to ${last.second} s ${perMinute >= 0 ? '+' : ''}${perMinute.toFixed(1)} MB/min, ${(((last.kib - first.kib) * 1024) / requests).toFixed(1)} bytes/request`;
}

/** The CLI's heap peaks written by the probe, in bytes; undefined when it wrote none. */
function heapOf(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** One line for the heap peaks, MB, and the CLI's CPU. */
const describeHeap = (heap) =>
  heap
    ? `heap peaks (MB): total ${mb(heap.heapTotal / 1024)}, used ${mb(heap.heapUsed / 1024)}, external ${mb(heap.external / 1024)}, arrayBuffers ${mb(heap.arrayBuffers / 1024)}; CLI CPU ${heap.cpuSeconds.toFixed(2)} s`
    : 'no heap figures';

/**
 * Runs the CLI once with `args` (under node's `nodeFlags`); resolves to its exit code, the peak RSS of the run (KiB),
 * each process's own VmHWM (the CLI first, then the processes it started) and the CLI's heap peaks.
 */
function runOnce(args, nodeFlags = []) {
  const dir = mkdtempSync(join(tmpdir(), 'pc-bench-memory-'));
  const timeFile = join(dir, 'time.txt');
  const probeFile = join(dir, 'heap.json');
  const withTime = existsSync(TIME);
  const cliArgs = [...nodeFlags, BIN, ...args, '--report-dir', join(dir, 'report')];
  const command = withTime ? [TIME, ['-f', '%M', '-o', timeFile, process.execPath, ...cliArgs]] : [process.execPath, cliArgs];
  const env = {
    ...process.env,
    NO_COLOR: '1',
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${PROBE}`.trim(),
    PC_BENCH_MEMORY_PROBE: probeFile,
  };
  const child = spawn(command[0], command[1], { stdio: 'ignore', env });
  /** VmHWM by pid, in the order the processes were first seen. */
  const peaks = new Map();
  /** The CLI's own RSS, `[epoch ms, KiB]`, once a second. */
  const rss = [];
  let cli;
  let polls = 0;
  const poll = setInterval(() => {
    cli ??= withTime ? childrenOf(child.pid)[0] : child.pid;
    if (cli === undefined) return;
    if (polls++ % 20 === 0) {
      const kib = rssOf(cli);
      if (kib !== undefined) rss.push([Date.now(), kib]);
    }
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
      const report = reportOf(join(dir, 'report', 'report.json'));
      const heap = heapOf(probeFile);
      rmSync(dir, { recursive: true, force: true });
      // GNU time prints "Command exited with non-zero status N" before the figure; the figure is the last line.
      resolve({
        code,
        verdict: report?.verdict,
        load: report?.load,
        timeline: timelineOf(rss, report?.load),
        peakKib: Number.isFinite(timed) ? timed : Math.max(0, ...processes),
        processes,
        source: Number.isFinite(timed) ? 'time' : 'VmHWM',
        heap,
      });
    });
  });
}

/** Writes a config file with a closed-loop profile of `seconds` (8 connections, the default mix) named {@link PROFILE}. */
function writeProfile(dir, seconds) {
  const config = join(dir, `petstore-conformance.${seconds}.config.json`);
  writeFileSync(
    config,
    JSON.stringify({
      profiles: {
        [PROFILE]: {
          kind: 'closed',
          description: `8 connections for ${seconds} s (bench-memory)`,
          connections: 8,
          durationSec: seconds,
          maxRequests: 50_000_000,
          mix: { listPets: 6, getPet: 3, createPet: 1 },
          thresholds: ['errorRate < 1%', 'p99 < 1000ms'],
        },
      },
    }),
  );
  return config;
}

/**
 * Runs the functional run (unless `functional` is false) and the load run `runs` times each, then the soak once when
 * `soakSeconds` > 0; resolves to one row per kind of run with the median peak RSS (MB; a load run's is the CLI's own,
 * the suite's, not the reference's), its target and whether it was met. `log` gets a line per run, with a load run's
 * RSS over time.
 */
export async function benchMemory({
  runs = 3,
  loadSeconds = 60,
  soakSeconds = 0,
  functional = true,
  load = true,
  nodeFlags = [],
  log = () => {},
} = {}) {
  const configDir = mkdtempSync(join(tmpdir(), 'pc-bench-memory-config-'));
  const loadArgs = (seconds) => ['--embedded', '--load', PROFILE, '--config', writeProfile(configDir, seconds)];
  const kinds = [
    ...(functional
      ? [{ what: 'functional run (--embedded --load none)', target: TARGETS.functional, args: ['--embedded', '--load', 'none'], runs }]
      : []),
    ...(load
      ? [
          {
            what: `load run (--embedded, closed loop, 8 connections, ${loadSeconds} s)`,
            target: TARGETS.load,
            args: loadArgs(loadSeconds),
            runs,
          },
        ]
      : []),
    ...(soakSeconds > 0
      ? [{ what: `soak (--embedded, closed loop, 8 connections, ${soakSeconds} s)`, soak: true, args: loadArgs(soakSeconds), runs: 1 }]
      : []),
  ];
  try {
    const rows = [];
    for (const kind of kinds) {
      const peaks = [];
      const cpus = [];
      for (let run = 1; run <= kind.runs; run++) {
        const result = await runOnce(kind.args, nodeFlags);
        // A run that wrote its report counts, whatever its verdict (exit 1 non-conformant, 3 a threshold breached on a
        // busy machine): the memory figure stands, and the verdict is printed. Without a report the run did not happen.
        if (result.verdict === undefined) throw new Error(`${kind.what}: the CLI exited with ${result.code} and wrote no report`);
        const [cli, ...others] = result.processes.map(mb);
        peaks.push(result.load ? (cli ?? mb(result.peakKib)) : mb(result.peakKib));
        log(
          `${kind.what} ${run}/${kind.runs}: peak ${mb(result.peakKib)} MB (${result.source}); CLI ${cli ?? '?'} MB${others.length ? `, reference ${others.join(' + ')} MB` : ''}; exit ${result.code}, ${result.verdict}`,
        );
        if (result.heap) cpus.push(result.heap.cpuSeconds);
        log(`  ${describeHeap(result.heap)}`);
        if (result.load) log(`  ${describeTimeline(result.timeline, result.load)} (${result.load.requests} requests)`);
      }
      const medianMB = Math.round(median(peaks) * 10) / 10;
      if (kind.soak) {
        // Within 10 % of the 60 s run's figure, itself held to its target: a 60 s run that peaked high (a late
        // collection) does not make a high soak pass.
        const measured = rows.find((row) => row.target === TARGETS.load)?.medianMB ?? TARGETS.load;
        const limit = Math.round(Math.min(measured, TARGETS.load) * (1 + TARGETS.soak) * 10) / 10;
        rows.push({
          what: `${kind.what}: CLI peak within ${TARGETS.soak * 100} % of the ${loadSeconds} s run's (${measured} MB; at most ${TARGETS.load} MB counted)`,
          medianMB,
          target: limit,
          met: medianMB <= limit,
        });
      } else
        rows.push({
          what: kind.what,
          medianMB,
          target: kind.target,
          met: medianMB <= kind.target,
          cpuSeconds: cpus.length ? median(cpus) : undefined,
        });
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
    return Number.isInteger(value) && value >= 0 ? value : fallback;
  };
  const runs = Math.max(1, arg('runs', 3));
  const loadSeconds = Math.max(1, arg('load-seconds', 60));
  const soakSeconds = arg('soak-seconds', 0);
  const functional = !process.argv.includes('--no-functional');
  const load = !process.argv.includes('--no-load');
  const flagsAt = process.argv.indexOf('--node-flags');
  const nodeFlags = flagsAt < 0 ? [] : (process.argv[flagsAt + 1] ?? '').split(/\s+/).filter(Boolean);
  console.log(
    `peak RSS over ${runs} run(s) each${soakSeconds ? `, and one ${soakSeconds} s soak` : ''}; node ${process.version}${nodeFlags.length ? ` ${nodeFlags.join(' ')}` : ''}; ${existsSync(TIME) ? `${TIME} -f %M` : 'VmHWM polled from /proc'}; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const rows = await benchMemory({
    runs,
    loadSeconds,
    soakSeconds,
    functional,
    load,
    nodeFlags,
    log: (line) => console.log(`  ${line}`),
  });
  for (const row of rows)
    console.log(
      `${row.met ? 'met    ' : 'NOT MET'} ${row.what}: median ${row.medianMB} MB (target ${row.target} MB)${row.cpuSeconds === undefined ? '' : `; CLI CPU median ${row.cpuSeconds.toFixed(2)} s`}`,
    );
  process.exitCode = rows.every((row) => row.met) ? 0 : 1;
}
