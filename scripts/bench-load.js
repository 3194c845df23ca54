// Load benchmark (not a test), against the reference on loopback, started in its own process (issue 23, item 4):
//  1. the sender's CPU per request on one endpoint (GET /pets/{id}): the suite's `baseline` profile narrowed to it, next
//     to wrk with the same connections and duration, in the same run; prints each tool's CPU µs per request and the
//     ratio suite/wrk (target ≤ 1.5), and the throughput ratio;
//  2. the sender's CPU per request on the default mix (listPets 6, getPet 3, createPet 1, auth probes), with today's
//     judging (every createPet answer and 1 in 10 of the rest judged in full): target ≤ 100 µs;
//  the floor: a minimal raw net.Socket keep-alive client (scripts/load-floor.js) in the same round, what Node itself
//  costs per request; `--base <checkout>` runs that checkout's CLI on the same endpoint in the same round too (a
//  before/after on one machine: `--base /work/main`); `--mix 0` leaves the default mix out;
//  `--rounds N` runs all of it N times, alternating which of suite and wrk goes first, and prints the medians (a busy
//  machine's load drifts: one pair of runs says little);
//  3. the suite's peak memory (RSS high-water mark) during a long profile when `--soak-seconds S` is given (default 0:
//     `npm run bench:memory` is the memory bench, with RSS over time).
// The suite's CPU is the load phase's own: the CLI's user + sys time from /proc, read every 100 ms, between the readings
// nearest the profile's start and end (its report's `startedAt` and `durationMs`; the functional run before it is left
// out), scaled to the profile's length; wrk's is `time`'s user + sys. Installs wrk (Debian) if it is missing.
// Usage: npm run bench:load [-- --seconds 20 --rounds 3 --connections 32 --soak-seconds 0 --mix 1 --base <checkout>]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceProcess } from '../dist/cli/embedded.js';
import { builtinProfiles } from '../dist/suites/load/profiles.js';
import { median } from './median.js';

const baseline = builtinProfiles.baseline;
const key = 'bench-load-key';
const bin = new URL('../bin/petstore-conformance.js', import.meta.url).pathname;
const floorScript = new URL('./load-floor.js', import.meta.url).pathname;
/** Targets of issue 23: CPU per request against wrk's on one endpoint, and on the default mix. */
export const TARGETS = { ratioToWrk: 1.5, mixUs: 100 };

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs the suite CLI with a config-file profile; returns the profile's result and the process's peak RSS. */
async function runSuite(url, profile, dir, cli = bin) {
  writeFileSync(join(dir, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { bench: profile } }));
  const child = spawn(
    process.execPath,
    [cli, '--base-url', url, '--load', 'bench', '--num-runs', '5', '--reporter', 'json', '--report-dir', join(dir, 'r')],
    { cwd: dir, env: { ...process.env, PETSTORE_API_KEY: key }, stdio: 'ignore' },
  );
  let peakKb = 0;
  /** The CLI's CPU seconds so far, `[epoch ms, seconds]`, every 100 ms. */
  const cpu = [];
  let polls = 0;
  const poll = setInterval(() => {
    try {
      cpu.push([Date.now(), cpuSeconds(child.pid)]);
      if (polls++ % 5 > 0) return;
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    } catch {
      // the process has ended
    }
  }, 100);
  await new Promise((resolve) => child.once('exit', resolve));
  clearInterval(poll);
  const report = JSON.parse(readFileSync(join(dir, 'r', 'report.json'), 'utf8'));
  const load = report.load[0];
  const attempts = load.overall.requests + load.overall.errors.timeouts + load.overall.errors.socketErrors;
  // The CLI's CPU between the readings nearest the profile's start and end (the functional run before it left out).
  const start = Date.parse(load.startedAt);
  const nearest = (when) => cpu.reduce((best, r) => (Math.abs(r[0] - when) < Math.abs(best[0] - when) ? r : best), cpu[0]);
  const [from, to] = [nearest(start), nearest(start + load.durationMs)];
  const cpuUs = (to[1] - from[1]) * 1e6 * (load.durationMs / Math.max(1, to[0] - from[0]));
  return { load, peakMb: Math.round(peakKb / 1024), usPerRequest: cpuUs / Math.max(1, attempts) };
}

/**
 * Per-request CPU of the suite against wrk's (median ratio over `rounds`), on the default mix, and, unless
 * `soakSeconds` is 0, the suite's peak RSS during a long profile. Returns rows `{ what, median, unit, target, met }`;
 * `log` receives the per-round lines.
 */
export async function benchLoad({
  rounds = 1,
  seconds = baseline.durationSec,
  connections = baseline.connections,
  soakSeconds = 0,
  mix: withMix = true,
  base,
  log = console.log,
} = {}) {
  if (!existsSync('/usr/bin/wrk')) {
    log('installing wrk (Debian package)…');
    execFileSync('bash', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null'], {
      stdio: 'inherit',
    });
  }
  const rows = [];
  // The reference in its own process, as a target is.
  const target = await startReferenceProcess(key);
  try {
    // An animal for the single endpoint.
    const created = await fetch(`${target.url}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"name":"pctest-bench","categoryId":1}',
    }).then((r) => r.json());
    const path = `/pets/${created.id}`;
    const dir = mkdtempSync(join(tmpdir(), 'pc-bench-load-'));
    const profile = { ...baseline, name: undefined, connections, durationSec: seconds, thresholds: [] };

    // The suite: getPet only, no auth probes (wrk's request), or the default mix.
    const runSuiteOnce = async (mix, cli = bin) => {
      const targetCpu0 = cpuSeconds(target.pid);
      const suite = await runSuite(
        target.url,
        mix ? profile : { ...profile, mix: { listPets: 0, createPet: 0, getPet: 1 }, authProbeShare: 0 },
        dir,
        cli,
      );
      const requests = suite.load.overall.requests;
      return { ...suite, rps: requests / (suite.load.durationMs / 1000), targetCpu: (cpuSeconds(target.pid) - targetCpu0) / seconds };
    };

    /** `time`'s user + sys seconds in `out`. */
    const timed = (out) =>
      ['user', 'sys']
        .map((w) => {
          const m = new RegExp(`${w}\\s+(\\d+)m([\\d.]+)s`).exec(out);
          return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
        })
        .reduce((a, b) => a + b);
    // wrk: same connections, duration and request (2 threads: this machine's cores).
    const runWrkOnce = () => {
      const targetCpu1 = cpuSeconds(target.pid);
      const wrkOut = execFileSync(
        'bash',
        ['-c', `{ time wrk -t2 -c${connections} -d${seconds}s -H 'authorization: Bearer ${key}' '${target.url}${path}'; } 2>&1`],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const targetCpu = (cpuSeconds(target.pid) - targetCpu1) / seconds;
      const cpu = timed(wrkOut);
      const total = Number(/(\d+) requests in/.exec(wrkOut)?.[1]);
      return {
        rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(wrkOut)?.[1]),
        cpuShare: cpu / seconds,
        usPerRequest: (cpu * 1e6) / Math.max(1, total),
        targetCpu,
      };
    };

    // The floor: a raw net.Socket keep-alive client in one Node process (its start-up, ~50 ms, is left in).
    const runFloorOnce = () => {
      const out = execFileSync(
        'bash',
        ['-c', `{ time ${process.execPath} ${floorScript} '${target.url}${path}' ${seconds} ${connections} 'Bearer ${key}'; } 2>&1`],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const { requests } = JSON.parse(/\{.*\}/.exec(out)[0]);
      return { rps: requests / seconds, usPerRequest: (timed(out) * 1e6) / Math.max(1, requests) };
    };

    log(
      `GET ${path} alone and the default mix, ${connections} connections, ${seconds} s each, reference in its own process, ${rounds} round(s); load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    const pct = (share) => `${Math.round(share * 100)}%`;
    const us = (value) => `${value.toFixed(1)} µs`;
    const results = [];
    for (let round = 1; round <= rounds; round++) {
      // Alternate which goes first, so a machine getting busier or quieter favours neither.
      const runs = {
        suite: () => runSuiteOnce(false),
        wrk: async () => runWrkOnce(),
        floor: async () => runFloorOnce(),
        ...(base ? { base: () => runSuiteOnce(false, join(base, 'bin', 'petstore-conformance.js')) } : {}),
      };
      const order = Object.keys(runs);
      if (round % 2 === 0) order.reverse();
      const got = {};
      for (const name of order) got[name] = await runs[name]();
      const { suite, wrk, floor } = got;
      const mix = withMix ? await runSuiteOnce(true) : undefined;
      results.push({
        suite,
        wrk,
        floor,
        base: got.base,
        mix,
        cpuRatio: suite.usPerRequest / wrk.usPerRequest,
        floorRatio: floor.usPerRequest / wrk.usPerRequest,
        baseRatio: got.base ? got.base.usPerRequest / wrk.usPerRequest : undefined,
        rpsRatio: suite.rps / wrk.rps,
      });
      const l = suite.load;
      log(
        `  round ${round}: suite ${suite.rps.toFixed(0)} req/s, ${us(suite.usPerRequest)} CPU/request (${pct(l.generatorLoad.cpuShare)} of a core), p50 ${l.overall.latencyMs.p50} ms, p99 ${l.overall.latencyMs.p99} ms, target CPU ${pct(suite.targetCpu)}${l.generatorLoad.bound ? ' (generator-bound)' : ''}; wrk ${wrk.rps.toFixed(0)} req/s, ${us(wrk.usPerRequest)} CPU/request (${pct(wrk.cpuShare)}), target CPU ${pct(wrk.targetCpu)}; CPU ratio ${(suite.usPerRequest / wrk.usPerRequest).toFixed(2)}, throughput ratio ${(suite.rps / wrk.rps).toFixed(2)}`,
      );
      log(
        `    floor (raw net.Socket client): ${floor.rps.toFixed(0)} req/s, ${us(floor.usPerRequest)} CPU/request, ratio ${(floor.usPerRequest / wrk.usPerRequest).toFixed(2)}${got.base ? `; base ${got.base.rps.toFixed(0)} req/s, ${us(got.base.usPerRequest)} CPU/request, ratio ${(got.base.usPerRequest / wrk.usPerRequest).toFixed(2)}` : ''}`,
      );
      if (mix)
        log(
          `    default mix: ${mix.rps.toFixed(0)} req/s, ${us(mix.usPerRequest)} CPU/request (${pct(mix.load.generatorLoad.cpuShare)} of a core), ${mix.load.conformance?.sampled ?? '?'} answers judged, p99 ${mix.load.overall.latencyMs.p99} ms, target CPU ${pct(mix.targetCpu)}`,
        );
    }
    const med = (pick) => median(results.map(pick));
    const cpuRatio = med((r) => r.cpuRatio);
    const mixUs = withMix ? med((r) => r.mix.usPerRequest) : NaN;
    log(
      `  medians: suite ${us(med((r) => r.suite.usPerRequest))} CPU/request, wrk ${us(med((r) => r.wrk.usPerRequest))}, ratio ${cpuRatio.toFixed(2)} (target ≤ ${TARGETS.ratioToWrk}); floor ${us(med((r) => r.floor.usPerRequest))}, ratio ${med((r) => r.floorRatio).toFixed(2)}${base ? `; base ${us(med((r) => r.base.usPerRequest))}, ratio ${med((r) => r.baseRatio).toFixed(2)}` : ''}; throughput suite ${med((r) => r.suite.rps).toFixed(0)} req/s, wrk ${med((r) => r.wrk.rps).toFixed(0)} req/s, ratio ${med((r) => r.rpsRatio).toFixed(2)}${withMix ? `; default mix ${us(mixUs)} CPU/request (target ≤ ${TARGETS.mixUs} µs)` : ''}`,
    );
    rows.push(
      {
        what: `sender CPU per request against wrk's, one endpoint (${connections} connections, ${seconds} s, ${rounds} round(s))`,
        median: cpuRatio,
        unit: '× wrk',
        target: `≤ ${TARGETS.ratioToWrk}`,
        met: cpuRatio <= TARGETS.ratioToWrk,
      },
      ...(withMix
        ? [
            {
              what: `sender CPU per request, default mix (${connections} connections, ${seconds} s, ${rounds} round(s))`,
              median: mixUs,
              unit: 'µs',
              target: `≤ ${TARGETS.mixUs} µs`,
              met: mixUs <= TARGETS.mixUs,
            },
          ]
        : []),
      {
        what: `a raw net.Socket keep-alive client's CPU per request against wrk's, one endpoint (the floor in Node)`,
        median: med((r) => r.floorRatio),
        unit: '× wrk',
      },
      {
        what: `closed-loop throughput against wrk, one endpoint (${connections} connections, ${seconds} s, ${rounds} round(s))`,
        median: med((r) => r.rpsRatio),
        unit: '× wrk',
      },
    );

    // Peak memory of the suite during a long profile (closed loop, the default mix).
    if (soakSeconds > 0) {
      const soak = await runSuite(
        target.url,
        { ...builtinProfiles.soak, name: undefined, durationSec: soakSeconds, thresholds: [] },
        mkdtempSync(join(tmpdir(), 'pc-bench-soak-')),
      );
      log(
        `peak memory of the suite during a ${soakSeconds} s profile (8 connections, default mix, ${soak.load.overall.requests} requests): ${soak.peakMb} MiB RSS`,
      );
      rows.push({
        what: `peak RSS, ${soakSeconds} s load profile`,
        median: soak.peakMb,
        unit: 'MiB',
        target: '≤ 160 MB',
        met: soak.peakMb * 1.048576 <= 160,
      });
    }
  } finally {
    await target.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const at = process.argv.indexOf(`--${name}`);
    const value = at < 0 ? NaN : Number(process.argv[at + 1]);
    return Number.isFinite(value) ? value : fallback;
  };
  const rows = await benchLoad({
    rounds: Math.max(1, arg('rounds', 1)),
    seconds: arg('seconds', baseline.durationSec),
    connections: arg('connections', baseline.connections),
    soakSeconds: arg('soak-seconds', 0),
    mix: arg('mix', 1) !== 0,
    base: process.argv.includes('--base') ? process.argv[process.argv.indexOf('--base') + 1] : undefined,
  });
  process.exitCode = rows.every((row) => row.met !== false) ? 0 : 1;
}
