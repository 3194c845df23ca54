// Benchmark (not a test): the CPU one functional run costs, in this process,
// against the embedded reference in this process too, beside the CPU of the same
// number of plain undici requests to it (the reference, measured in the same
// run). Per exchange: the run's CPU over its requests, and what it costs beyond
// a plain request (the suite's own work on an exchange: redaction, parsing,
// judging, recording). Medians of several runs; the first run (loading,
// compiling) not counted.
//
//   npm run bench:engine [-- --runs 9 --num-runs 20 --dist ./dist --against ../other/dist]
//
// --dist points at another build (an older checkout's dist/) to compare two versions on one machine in one sitting;
// --against runs a second build in the same process, its runs alternating with the first's (a busy machine's noise
// falls on both alike), and prints the ratio.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { median } from './median.js';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : process.argv[at + 1];
};

const apiKey = 'bench-engine-key-7781';

const cpuMs = async (work) => {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
};

/** A fresh store for each run: every run adds animals, and a run's work grows with what the store holds. */
async function withReference(build, use) {
  const server = await build.startReference({ apiKey });
  try {
    return await use(server.url);
  } finally {
    await server.close();
  }
}

/** One functional run of `build`: its CPU and its requests. */
async function suiteRun(build, numRuns, i) {
  let ms = 0;
  const result = await withReference(build, async (url) => {
    let ran;
    ms = await cpuMs(async () => (ran = await build.runConformance({ baseUrl: url, apiKey, seed: 20_241_205, numRuns, load: 'none' })));
    return ran;
  });
  if (result.summary.verdict !== 'conformant') throw new Error(`run ${i}: the reference was not conformant (${result.summary.reason})`);
  return { ms, requests: result.summary.requests };
}

/** `requests` plain GET /pets, 8 at a time: what a request costs the client and the reference without the suite. */
function plainRun(build, requests) {
  return withReference(build, (url) =>
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
}

const load = async (dist) => import(pathToFileURL(resolve(dist, 'index.js')).href);

/** Rows of one build or of two alternating (`against`): run i of each follows run i of the other. */
export async function benchEngine({ runs = 9, numRuns = 20, dist = new URL('../dist/', import.meta.url).pathname, against } = {}) {
  const builds = [{ dist, build: await load(dist), suite: [], plain: [], requests: 0 }];
  if (against) builds.push({ dist: against, build: await load(against), suite: [], plain: [], requests: 0 });
  for (let i = 0; i <= runs; i++) {
    for (const b of i % 2 ? [...builds].reverse() : builds) {
      const run = await suiteRun(b.build, numRuns, i);
      b.requests = run.requests;
      if (i > 0) b.suite.push(run.ms);
    }
  }
  for (let i = 0; i <= runs; i++) {
    for (const b of i % 2 ? [...builds].reverse() : builds) {
      const ms = await plainRun(b.build, b.requests);
      if (i > 0) b.plain.push(ms);
    }
  }
  return builds.map((b) => {
    const suiteMs = median(b.suite);
    const plainMs = median(b.plain);
    return {
      dist: b.dist,
      runs,
      numRuns,
      requests: b.requests,
      suiteMs,
      plainMs,
      usPerExchange: (1000 * suiteMs) / b.requests,
      usBeyondPlain: (1000 * (suiteMs - plainMs)) / b.requests,
      range: [Math.min(...b.suite), Math.max(...b.suite)],
    };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dist = arg('dist', undefined);
  const against = arg('against', undefined);
  const rows = await benchEngine({
    runs: Number(arg('runs', 9)),
    numRuns: Number(arg('num-runs', 20)),
    ...(dist ? { dist } : {}),
    ...(against ? { against } : {}),
  });
  for (const row of rows)
    console.log(
      `${rows.length > 1 ? `${row.dist}: ` : ''}functional run, ${row.numRuns} runs per property, ${row.requests} requests: ${row.suiteMs.toFixed(0)} ms of CPU (median of ${row.runs}, ${row.range.map((v) => v.toFixed(0)).join('–')}), ${row.usPerExchange.toFixed(0)} µs per exchange, ${row.usBeyondPlain.toFixed(0)} µs beyond a plain request; the same number of plain GET /pets requests ${row.plainMs.toFixed(0)} ms: ${(row.suiteMs / row.plainMs).toFixed(1)}×`,
    );
  if (rows.length > 1)
    console.log(
      `per exchange: ${(rows[0].usPerExchange / rows[1].usPerExchange).toFixed(2)}× the second build's (beyond a plain request ${(rows[0].usBeyondPlain / rows[1].usBeyondPlain).toFixed(2)}×)`,
    );
}
