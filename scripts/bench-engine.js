// Benchmark (not a test): the CPU one functional run costs, in this process,
// against the embedded reference in this process too, beside the CPU of the same
// number of plain undici requests to it (the reference, measured in the same
// run). Medians of several runs; the first run (loading, compiling) not counted.
//
//   npm run bench:engine [-- --runs 9 --num-runs 20 --dist ./dist]
//
// --dist points at another build (an older checkout's dist/) to compare two versions on one machine in one sitting.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { median } from './median.js';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : process.argv[at + 1];
};

export async function benchEngine({ runs = 9, numRuns = 20, dist = new URL('../dist/', import.meta.url).pathname } = {}) {
  const { startReference, runConformance } = await import(pathToFileURL(resolve(dist, 'index.js')).href);
  const apiKey = 'bench-engine-key-7781';
  const cpuMs = async (work) => {
    const before = process.cpuUsage();
    await work();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  // A fresh store for each run: every run adds animals, and a run's work grows with what the store holds.
  const withReference = async (use) => {
    const server = await startReference({ apiKey });
    try {
      return await use(server.url);
    } finally {
      await server.close();
    }
  };
  const suite = [];
  let requests = 0;
  for (let i = 0; i <= runs; i++) {
    const result = await withReference(async (url) => {
      let ran;
      const ms = await cpuMs(async () => (ran = await runConformance({ baseUrl: url, apiKey, seed: 20_241_205, numRuns, load: 'none' })));
      if (i > 0) suite.push(ms);
      return ran;
    });
    if (result.summary.verdict !== 'conformant') throw new Error(`run ${i}: the reference was not conformant (${result.summary.reason})`);
    requests = result.summary.requests;
  }
  const plain = [];
  for (let i = 0; i <= runs; i++) {
    const ms = await withReference((url) =>
      cpuMs(async () => {
        for (let k = 0; k < requests; k += 8) {
          await Promise.all(
            Array.from({ length: Math.min(8, requests - k) }, async () =>
              (await request(`${url}/pets?limit=20`, { headers: { authorization: `Bearer ${apiKey}` } })).body.arrayBuffer(),
            ),
          );
        }
      }),
    );
    if (i > 0) plain.push(ms);
  }
  return { runs, numRuns, requests, suiteMs: median(suite), plainMs: median(plain) };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dist = arg('dist', undefined);
  const row = await benchEngine({ runs: Number(arg('runs', 9)), numRuns: Number(arg('num-runs', 20)), ...(dist ? { dist } : {}) });
  console.log(
    `functional run, ${row.numRuns} runs per property, ${row.requests} requests: ${row.suiteMs.toFixed(0)} ms of CPU (median of ${row.runs}), the same number of plain GET /pets requests ${row.plainMs.toFixed(0)} ms: ${(row.suiteMs / row.plainMs).toFixed(1)}×`,
  );
}
