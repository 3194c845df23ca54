// Load benchmark (not a test), against the reference on loopback, started in its own process:
//  1. the suite's `baseline` profile narrowed to one endpoint (GET /pets/{id}), next to wrk with the same
//     connections and duration: requests per second, ratio, and each tool's CPU share of one core;
//     `--rounds N` runs both N times, alternating which goes first, and prints the medians (a busy
//     machine's load drifts: one pair of runs says little);
//  2. the suite's peak memory (RSS high-water mark) during a 60 s profile (`--soak-seconds 0` skips it).
// Installs wrk (Debian) if it is missing. Usage: npm run bench:load [-- --seconds 20 --rounds 5 --soak-seconds 60]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceProcess } from '../dist/cli/embedded.js';
import { builtinProfiles } from '../dist/suites/load/profiles.js';
import { median } from './median.js';

const baseline = builtinProfiles.baseline;
const connections = baseline.connections;
const key = 'bench-load-key';
const bin = new URL('../bin/petstore-conformance.js', import.meta.url).pathname;

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs the suite CLI with a config-file profile; returns the profile's result, its CPU share and the process's peak RSS. */
async function runSuite(url, profile, dir) {
  writeFileSync(join(dir, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { bench: profile } }));
  const child = spawn(
    process.execPath,
    [bin, '--base-url', url, '--load', 'bench', '--num-runs', '5', '--reporter', 'json', '--report-dir', join(dir, 'r')],
    { cwd: dir, env: { ...process.env, PETSTORE_API_KEY: key }, stdio: 'ignore' },
  );
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
    } catch {
      // the process has ended
    }
  }, 500);
  await new Promise((resolve) => child.once('exit', resolve));
  clearInterval(poll);
  const report = JSON.parse(readFileSync(join(dir, 'r', 'report.json'), 'utf8'));
  return { load: report.load[0], peakMb: Math.round(peakKb / 1024) };
}

/**
 * The wrk comparison (median ratio over `rounds`) and, unless `soakSeconds` is
 * 0, the suite's peak RSS during a long profile. Returns rows `{ what, median,
 * unit, target, met }`; `log` receives the per-round lines.
 */
export async function benchLoad({ rounds = 1, seconds = baseline.durationSec, soakSeconds = 60, log = console.log } = {}) {
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

    // 1a. The suite: baseline's connections and duration, getPet only, no auth probes.
    const runSuiteOnce = async () => {
      const targetCpu0 = cpuSeconds(target.pid);
      const suite = await runSuite(
        target.url,
        {
          ...baseline,
          name: undefined,
          durationSec: seconds,
          mix: { listPets: 0, createPet: 0, getPet: 1 },
          authProbeShare: 0,
          thresholds: [],
        },
        dir,
      );
      return { rps: suite.load.operations.getPet.throughput, load: suite.load, targetCpu: (cpuSeconds(target.pid) - targetCpu0) / seconds };
    };

    // 1b. wrk: same connections, duration and request (2 threads: this machine's cores).
    const runWrkOnce = () => {
      const targetCpu1 = cpuSeconds(target.pid);
      const wrkOut = execFileSync(
        'bash',
        ['-c', `{ time wrk -t2 -c${connections} -d${seconds}s -H 'authorization: Bearer ${key}' '${target.url}${path}'; } 2>&1`],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const targetCpu = (cpuSeconds(target.pid) - targetCpu1) / seconds;
      const [user, sys] = ['user', 'sys'].map((w) => {
        const m = new RegExp(`${w}\\s+(\\d+)m([\\d.]+)s`).exec(wrkOut);
        return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
      });
      return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(wrkOut)?.[1]), cpuShare: (user + sys) / seconds, targetCpu };
    };

    log(`single endpoint GET ${path}, ${connections} connections, ${seconds} s, reference in its own process, ${rounds} round(s)`);
    const pct = (share) => `${Math.round(share * 100)}%`;
    const results = [];
    for (let round = 1; round <= rounds; round++) {
      // Alternate which goes first, so a machine getting busier or quieter favours neither.
      let suite;
      let wrk;
      if (round % 2 === 1) {
        suite = await runSuiteOnce();
        wrk = runWrkOnce();
      } else {
        wrk = runWrkOnce();
        suite = await runSuiteOnce();
      }
      results.push({ suite, wrk, ratio: suite.rps / wrk.rps });
      const l = suite.load;
      log(
        `  round ${round}: suite (${l.generator}) ${suite.rps.toFixed(0)} req/s, p50 ${l.overall.latencyMs.p50} ms, p99 ${l.overall.latencyMs.p99} ms, generator CPU ${pct(l.generatorLoad.cpuShare)} of a core, target CPU ${pct(suite.targetCpu)}${l.generatorLoad.bound ? ' (generator-bound)' : ''}; wrk ${wrk.rps.toFixed(0)} req/s, generator CPU ${pct(wrk.cpuShare)}, target CPU ${pct(wrk.targetCpu)}; ratio ${(suite.rps / wrk.rps).toFixed(2)}`,
      );
    }
    const suiteRps = median(results.map((r) => r.suite.rps));
    const wrkRps = median(results.map((r) => r.wrk.rps));
    const ratio = median(results.map((r) => r.ratio));
    log(
      `  median suite: ${suiteRps.toFixed(0)} req/s; median wrk: ${wrkRps.toFixed(0)} req/s; median ratio suite/wrk: ${ratio.toFixed(2)} (target at least 0.90)`,
    );
    rows.push({
      what: `closed-loop throughput against wrk (${connections} connections, ${seconds} s, ${rounds} round(s))`,
      median: ratio,
      unit: '× wrk',
      target: '≥ 0.9',
      met: ratio >= 0.9,
    });

    // 2. Peak memory of the suite during a long profile (closed loop, the default mix).
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
        target: '≤ 200 MB',
        met: soak.peakMb * 1.048576 <= 200,
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
  await benchLoad({
    rounds: Math.max(1, arg('rounds', 1)),
    seconds: arg('seconds', baseline.durationSec),
    soakSeconds: arg('soak-seconds', 60),
  });
}
