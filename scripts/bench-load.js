// Load benchmark (not a test), against the reference on loopback, started in its own process:
//  1. the suite's `baseline` profile narrowed to one endpoint (GET /pets/{id}), next to wrk with the same
//     connections and duration: requests per second, ratio, and each tool's CPU share of one core;
//  2. the suite's peak memory (RSS high-water mark) during a 60 s profile.
// Installs wrk (Debian) if it is missing. Usage: npm run bench:load [-- --seconds 20 --soak-seconds 60]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceProcess } from '../dist/cli/embedded.js';
import { builtinProfiles } from '../dist/suites/load/profiles.js';

const arg = (name, fallback) => Number(process.argv[process.argv.indexOf(`--${name}`) + 1]) || fallback;
const baseline = builtinProfiles.baseline;
const seconds = arg('seconds', baseline.durationSec);
const soakSeconds = arg('soak-seconds', 60);
const connections = baseline.connections;
const key = 'bench-load-key';
const bin = new URL('../bin/petstore-conformance.js', import.meta.url).pathname;

if (!existsSync('/usr/bin/wrk')) {
  console.log('installing wrk (Debian package)…');
  execFileSync('bash', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null'], { stdio: 'inherit' });
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Runs the suite CLI with a config-file profile; returns the profile's result, its CPU share and the process's peak RSS. */
async function runSuite(url, profile, dir) {
  writeFileSync(join(dir, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { bench: profile } }));
  const child = spawn(process.execPath, [bin, '--base-url', url, '--load', 'bench', '--num-runs', '5', '--reporter', 'json', '--report-dir', join(dir, 'r')], { cwd: dir, env: { ...process.env, PETSTORE_API_KEY: key }, stdio: 'ignore' });
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

// The reference in its own process, as a target is.
const target = await startReferenceProcess(key);
try {
  // An animal for the single endpoint.
  const created = await fetch(`${target.url}/pets`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"name":"pctest-bench","categoryId":1}' }).then((r) => r.json());
  const path = `/pets/${created.id}`;
  const dir = mkdtempSync(join(tmpdir(), 'pc-bench-load-'));

  // 1a. The suite: baseline's connections and duration, getPet only, no auth probes.
  const targetCpu0 = cpuSeconds(target.pid);
  const suite = await runSuite(target.url, { ...baseline, name: undefined, durationSec: seconds, mix: { listPets: 0, createPet: 0, getPet: 1 }, authProbeShare: 0, thresholds: [] }, dir);
  const targetCpuSuite = cpuSeconds(target.pid) - targetCpu0;

  // 1b. wrk: same connections, duration and request (2 threads: this machine's cores).
  const targetCpu1 = cpuSeconds(target.pid);
  const wrkOut = execFileSync('bash', ['-c', `{ time wrk -t2 -c${connections} -d${seconds}s -H 'authorization: Bearer ${key}' '${target.url}${path}'; } 2>&1`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const targetCpuWrk = cpuSeconds(target.pid) - targetCpu1;
  const wrkRps = Number(/Requests\/sec:\s+([\d.]+)/.exec(wrkOut)?.[1]);
  const [user, sys] = ['user', 'sys'].map((w) => {
    const m = new RegExp(`${w}\\s+(\\d+)m([\\d.]+)s`).exec(wrkOut);
    return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
  });
  const wrkCpuShare = (user + sys) / seconds;

  const suiteRps = suite.load.operations.getPet.throughput;
  console.log(`single endpoint GET ${path}, ${connections} connections, ${seconds} s, reference in its own process`);
  console.log(`  suite (autocannon): ${suiteRps.toFixed(0)} req/s, p50 ${suite.load.overall.latencyMs.p50} ms, p99 ${suite.load.overall.latencyMs.p99} ms, generator CPU ${Math.round(suite.load.generatorLoad.cpuShare * 100)}% of a core, target CPU ${Math.round((targetCpuSuite / seconds) * 100)}%${suite.load.generatorLoad.bound ? ' (generator-bound)' : ''}`);
  console.log(`  wrk:                ${wrkRps.toFixed(0)} req/s, generator CPU ${Math.round(wrkCpuShare * 100)}% of a core, target CPU ${Math.round((targetCpuWrk / seconds) * 100)}%`);
  console.log(`  ratio suite/wrk: ${(suiteRps / wrkRps).toFixed(2)} (target at least 0.90)`);

  // 2. Peak memory of the suite during a long profile (closed loop, the default mix).
  const soak = await runSuite(target.url, { ...builtinProfiles.soak, name: undefined, durationSec: soakSeconds, thresholds: [] }, mkdtempSync(join(tmpdir(), 'pc-bench-soak-')));
  console.log(`peak memory of the suite during a ${soakSeconds} s profile (8 connections, default mix, ${soak.load.overall.requests} requests): ${soak.peakMb} MiB RSS`);
} finally {
  await target.close();
}
