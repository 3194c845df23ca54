// Benchmark (not a test): the functional phase with default settings against a
// target a given round trip away. The reference runs in its own process, behind
// this project's delay proxy (scripts/delay-proxy.js); the suite runs as a user
// runs it, a CLI process with `--load none`, and the figure is the run's own
// duration from report.json (start of the preflight to the verdict).
//
//   node scripts/bench-network.js [--runs 3] [--rtt 30,100]
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startReferenceProcess } from '../dist/cli/embedded.js';
import { startDelayProxy } from './delay-proxy.js';
import { median } from './median.js';

const run = promisify(execFile);
const bin = new URL('../bin/petstore-conformance.js', import.meta.url).pathname;
const KEY = 'bench-network-key';
/** Targets of issue 12, seconds per round trip. */
export const NETWORK_TARGETS = { 30: 3, 100: 6 };

/** One CLI run through a proxy `rttMs` away: seconds the run took, requests, verdict. */
async function functionalRun(target, rttMs) {
  const proxy = await startDelayProxy({ target, rttMs });
  const dir = mkdtempSync(join(tmpdir(), 'pc-bench-net-'));
  try {
    await run(process.execPath, [bin, '--base-url', proxy.url, '--load', 'none', '--reporter', 'json', '--report-dir', dir, '-q'], {
      env: { ...process.env, PETSTORE_API_KEY: KEY },
    }).catch((error) => {
      if (error.code !== 0 && error.code !== 1) throw error;
    });
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    return { seconds: report.durationMs / 1000, requests: report.summary.requests, verdict: report.summary.verdict };
  } finally {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rows `{ what, median, unit, target, met, runs }` for each round trip. */
export async function benchNetwork({ runs = 3, rtts = [30, 100], log = () => {} } = {}) {
  const rows = [];
  for (const rtt of rtts) {
    const seconds = [];
    for (let i = 0; i < runs; i++) {
      // A fresh reference each run: every run creates its animals into the same empty store.
      const reference = await startReferenceProcess(KEY);
      try {
        const r = await functionalRun(reference.url, rtt);
        log(`  ${rtt} ms away, run ${i + 1}: ${r.seconds.toFixed(2)} s, ${r.requests} requests, ${r.verdict}`);
        seconds.push(r.seconds);
      } finally {
        await reference.close();
      }
    }
    const target = NETWORK_TARGETS[rtt];
    const m = median(seconds);
    rows.push({
      what: `functional phase, target ${rtt} ms away`,
      median: m,
      unit: 's',
      target: target === undefined ? undefined : `≤ ${target} s`,
      met: target === undefined ? undefined : m <= target,
      runs: seconds,
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = (name) => process.argv[process.argv.indexOf(`--${name}`) + 1];
  const runs = process.argv.includes('--runs') ? Number(at('runs')) : 3;
  const rtts = process.argv.includes('--rtt') ? at('rtt').split(',').map(Number) : [30, 100];
  for (const row of await benchNetwork({ runs, rtts, log: console.log })) {
    console.log(
      `${row.what}: median ${row.median.toFixed(2)} s over ${row.runs.length} runs (${row.target ?? 'no target'}: ${row.met === undefined ? '-' : row.met ? 'met' : 'NOT met'})`,
    );
  }
}
