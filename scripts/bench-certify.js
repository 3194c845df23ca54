// Benchmark (not a test): what the differential probe (CLIENT-INDEPENDENT)
// adds to a certification's wall time. Runs the suite with the certification
// settings (CERTIFICATION: every client fingerprint, paced with jitter, one
// request at a time, load smoke) against the embedded reference in this
// process, a fresh store each time. One request at a time, so the probe's
// share is the paced prelude (from the run's start to the prelude's last
// answer) plus the time its other exchanges took; the rest is the run without
// it. Medians of several runs; the first (loading, compiling) not counted.
//
//   npm run bench:certify [-- --runs 5]
import { performance } from 'node:perf_hooks';
import { CERTIFICATION, runConformance, startReference } from '../dist/index.js';
import { median } from './median.js';

const at = process.argv.indexOf('--runs');
const runs = at < 0 ? 5 : Number(process.argv[at + 1]);
const apiKey = 'bench-certify-key-5519';
const PROBE = 'clients.differential';
const rows = [];
for (let i = 0; i <= runs; i++) {
  const server = await startReference({ apiKey });
  try {
    const started = performance.now();
    let preludeEnd = started;
    let others = 0;
    let probeMs = 0;
    let probeRequests = 0;
    let requests = 0;
    const result = await runConformance({
      baseUrl: server.url,
      apiKey,
      seed: 1000 + i,
      names: CERTIFICATION.names,
      numRuns: CERTIFICATION.numRuns,
      concurrency: CERTIFICATION.concurrency,
      fingerprints: CERTIFICATION.fingerprints,
      jitterMs: CERTIFICATION.jitterMs,
      load: CERTIFICATION.load,
      onExchange: (x) => {
        requests++;
        if (x.meta.check !== PROBE) {
          others++;
          return;
        }
        probeRequests++;
        // The prelude comes before any other request: its pauses count whole.
        if (others === 0) preludeEnd = performance.now();
        else probeMs += x.durationMs;
      },
    });
    const wall = performance.now() - started;
    if (result.summary.verdict !== 'conformant')
      throw new Error(`the reference was not found conformant: ${result.summary.reason ?? result.summary.verdict}`);
    if (i > 0) rows.push({ wall, probe: preludeEnd - started + probeMs, probeRequests, requests });
  } finally {
    await server.close();
  }
}
const wall = median(rows.map((r) => r.wall));
const probe = median(rows.map((r) => r.probe));
console.log(`certification run (settings of certify, load ${CERTIFICATION.load}), median of ${runs}:`);
console.log(
  `  wall ${(wall / 1000).toFixed(2)} s, requests ${median(rows.map((r) => r.requests))} (functional and load set-up), of which the probe's ${median(rows.map((r) => r.probeRequests))}`,
);
console.log(
  `  probe ${(probe / 1000).toFixed(2)} s: it adds ${((100 * probe) / (wall - probe)).toFixed(1)} % to the run without it (${((wall - probe) / 1000).toFixed(2)} s)`,
);
