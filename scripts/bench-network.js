// Benchmark (not a test): the functional phase with default settings against a
// target a given round trip away. The reference runs in its own process, behind
// this project's delay proxy (scripts/delay-proxy.js, rtt 0: loopback through
// the proxy); the suite runs as a user runs it, a CLI process with `--load none`.
// Per run: the dependent waves the proxy counted (round trips waited one after
// another) and the most requests in flight, the requests, the run's own
// duration from report.json (preflight to verdict) and the whole CLI's wall
// time (spawn to exit), which the targets are about. `loopback`: no proxy at
// all, the CLI straight to the reference (no waves counted): the target "on
// loopback" is this row's, run with the CLI's own default (its openings are
// real); rtt 0 relays every byte through the proxy, whose own CPU shares the
// machine's two cores with the suite and the reference.
//
// --tls: the reference behind a TLS terminator of this process, the proxy in
// front of it, the CLI with --ca and its own default: a TLS handshake goes
// through the proxy, so connections open a round trip or two late as toward a
// real far target, and the CLI decides from its openings as it would there
// (their pace, core/connection/stock.ts, included). The proxy cannot frame
// TLS: no waves, no most in flight. No targets (the issue's are for plain HTTP).
//
//   node scripts/bench-network.js [--runs 3] [--rtt loopback,0,30,100] [--concurrency N] [--auto | --no-widen] [--tls] [--log]
//   (--concurrency: passed to the CLI; without it, the CLI's default. By default the CLI is run through the plain
//   proxy with --widen-concurrency: the proxy delays what goes through it, never a connection's handshake (the kernel
//   answers that at once), so without it the CLI sees a target near the suite and keeps 32, where a far target's slow
//   handshakes let it widen; on loopback and with --tls, with its own default. --auto: the CLI's own default on every
//   row, as behind a proxy near the suite; --no-widen: --no-widen-concurrency, the fixed default of 32, on every row)
//   (--log: every request of the last run at each rtt, with its depth, start and end in ms)
// Beside each run, its floor (scripts/network-floor.js): a fresh process sending as many requests, as many in flight
// as the run had at most, none waiting for another, nothing judged; the table gives the run's wall against it.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startReferenceProcess } from '../dist/cli/embedded.js';
import { startDelayProxy } from './delay-proxy.js';
import { median } from './median.js';

const run = promisify(execFile);
const bin = new URL('../bin/petstore-conformance.js', import.meta.url).pathname;
const KEY = 'bench-network-key';
/** Targets of issue 23, whole CLI wall time in seconds, by round trip in ms (`loopback`: no proxy). */
export const NETWORK_TARGETS = { loopback: 0.6, 30: 1.0, 100: 1.5 };

/** A row's name: `loopback, no proxy` or `30 ms`, `, TLS` with --tls. */
const rowName = (rtt, tls) => `${rtt === 'loopback' ? 'loopback, no proxy' : `${rtt} ms`}${tls ? ', TLS' : ''}`;

/** The median of what a proxy counted; undefined without one. */
const counted = (values) => (values.includes(undefined) ? undefined : median(values));

/** No proxy: the target as it is, nothing counted (the stats of a proxy that saw nothing). */
const DIRECT = {
  url: undefined,
  stats: () => ({ waves: undefined, maxInFlight: undefined, requests: undefined, log: [] }),
  close: async () => {},
};

/** A delay proxy to `target` `rttMs` away, or none for `loopback`; with `tls`, to a TLS terminator in front of it. */
async function proxyFor(target, rttMs, { log = false, tls } = {}) {
  const front = tls ? await tlsFront(target, tls) : undefined;
  const to = front?.url ?? target;
  const proxy = rttMs === 'loopback' ? { ...DIRECT, url: to } : await startDelayProxy({ target: to, rttMs, log });
  if (!front) return proxy;
  // TLS bytes are not HTTP: what the proxy would count of them means nothing.
  return { ...proxy, stats: DIRECT.stats, close: () => proxy.close().then(front.close) };
}

/** A self-signed certificate for 127.0.0.1 (openssl, RSA 2048, two days) in a new temporary folder: `{ key, cert, dir }` paths. */
export function selfSignedCertificate() {
  const dir = mkdtempSync(join(tmpdir(), 'pc-bench-tls-'));
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2'];
  execFileSync('openssl', [...args, '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { key, cert, dir };
}

/** A TLS server on loopback passing each connection's bytes to `target` (http): `target` served over HTTPS. */
async function tlsFront(target, { key, cert }) {
  const upstream = new URL(target);
  const sockets = new Set();
  const server = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (socket) => {
    const plain = connect(Number(upstream.port), upstream.hostname);
    const end = () => {
      socket.destroy();
      plain.destroy();
    };
    for (const s of [socket, plain]) {
      sockets.add(s);
      s.on('error', end).on('close', () => sockets.delete(s));
    }
    socket.pipe(plain).pipe(socket);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${server.address().port}${upstream.pathname.replace(/\/$/, '')}`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One CLI run through a proxy `rttMs` away: wall and report seconds, requests, waves, verdict. */
async function functionalRun(target, rttMs, keepLog, concurrency, widen, tls) {
  const proxy = await proxyFor(target, rttMs, { log: keepLog, tls });
  const dir = mkdtempSync(join(tmpdir(), 'pc-bench-net-'));
  try {
    const spawned = performance.now();
    await run(
      process.execPath,
      [
        bin,
        '--base-url',
        proxy.url,
        '--load',
        'none',
        '--reporter',
        'json',
        '--report-dir',
        dir,
        '-q',
        ...(concurrency ? ['--concurrency', String(concurrency)] : []),
        ...(widen === true ? ['--widen-concurrency'] : widen === false ? ['--no-widen-concurrency'] : []),
        ...(tls ? ['--ca', tls.cert] : []),
      ],
      {
        env: { ...process.env, PETSTORE_API_KEY: KEY },
      },
    ).catch((error) => {
      if (error.code !== 0 && error.code !== 1) throw error;
    });
    const wall = (performance.now() - spawned) / 1000;
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    const { waves, maxInFlight, requests, log } = proxy.stats();
    return {
      wall,
      seconds: report.durationMs / 1000,
      requests: report.summary.requests,
      seen: requests,
      waves,
      maxInFlight,
      verdict: report.summary.verdict,
      // The in-flight limit the run kept and why (reports of versions before it was recorded: none).
      limit: report.options.concurrency ? `${report.options.concurrency.limit} ${report.options.concurrency.source}` : 'not recorded',
      log,
    };
  } finally {
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const floorScript = new URL('./network-floor.js', import.meta.url).pathname;

/**
 * The floor beside a run (scripts/network-floor.js): a fresh process sending as many requests, as many in flight as
 * the run had at most, none waiting for another, nothing judged; through a proxy `rttMs` away, spawn to exit.
 */
async function floorRun(target, rttMs, count, inFlight, tls) {
  const proxy = await proxyFor(target, rttMs, { tls });
  try {
    const spawned = performance.now();
    const { stdout } = await run(process.execPath, [floorScript, proxy.url, String(count), String(inFlight), ...(tls ? [tls.cert] : [])], {
      env: { ...process.env, PETSTORE_API_KEY: KEY },
    });
    const wall = (performance.now() - spawned) / 1000;
    const { requests } = JSON.parse(stdout);
    if (requests !== count) throw new Error(`bench-network: the floor got ${requests} of ${count} answers`);
    return { wall, waves: proxy.stats().waves };
  } finally {
    await proxy.close();
  }
}

/**
 * Rows `{ what, median, unit, target, met, runs, waves, report, floor }` for each round trip (median: whole-CLI wall
 * time; floor: the median wall and waves of {@link floorRun} beside each run, against the same reference after it).
 */
export async function benchNetwork({
  runs = 3,
  rtts = ['loopback', 0, 30, 100],
  concurrency,
  widen,
  log = () => {},
  requestLog = false,
  tls = false,
} = {}) {
  const rows = [];
  const certificate = tls ? selfSignedCertificate() : undefined;
  for (const rtt of rtts) {
    const results = [];
    for (let i = 0; i < runs; i++) {
      // A fresh reference each run: every run creates its animals into the same empty store.
      const reference = await startReferenceProcess(KEY);
      try {
        // Unless told: --widen-concurrency through the plain proxy, standing in for the slow openings it cannot make;
        // with TLS (openings slow as a far target's) or no proxy (real ones), the CLI's own default.
        const choice = widen !== undefined ? widen : rtt === 'loopback' || certificate ? null : true;
        const r = await functionalRun(reference.url, rtt, requestLog && i === runs - 1, concurrency, choice, certificate);
        const where = rowName(rtt, certificate);
        log(
          `  ${where}, run ${i + 1}: wall ${r.wall.toFixed(2)} s, report ${r.seconds.toFixed(2)} s, ${r.requests} requests${r.waves === undefined ? '' : `, ${r.waves} waves (${r.seen} seen by the proxy), at most ${r.maxInFlight} in flight`} (limit ${r.limit}), ${r.verdict}`,
        );
        if (requestLog && i === runs - 1)
          for (const q of r.log) log(`    #${q.n} depth ${q.depth} ${q.start.toFixed(1)}–${q.end?.toFixed(1) ?? '?'} ms ${q.line}`);
        // Without a proxy, nothing counted the run's most in flight: the floor keeps the limit report.json gives.
        const inFlight = r.maxInFlight ?? (Number.parseInt(r.limit, 10) || 32);
        const floor = await floorRun(reference.url, rtt, r.requests, inFlight, certificate);
        log(
          `  ${where}, floor ${i + 1}: wall ${floor.wall.toFixed(2)} s, ${floor.waves ?? '-'} waves (${r.requests} requests, ${inFlight} in flight, nothing judged)`,
        );
        results.push({ ...r, floor });
      } finally {
        await reference.close();
      }
    }
    const target = certificate ? undefined : NETWORK_TARGETS[rtt];
    const m = median(results.map((r) => r.wall));
    rows.push({
      rtt,
      tls: Boolean(certificate),
      what:
        (rtt === 'loopback'
          ? 'functional run (whole CLI), loopback'
          : rtt === 0
            ? 'functional run (whole CLI), loopback through the proxy'
            : `functional run (whole CLI), target ${rtt} ms away`) + (certificate ? ', over TLS' : ''),
      median: m,
      unit: 's',
      target: target === undefined ? undefined : `≤ ${target} s`,
      met: target === undefined ? undefined : m <= target,
      runs: results.map((r) => r.wall),
      waves: counted(results.map((r) => r.waves)),
      maxInFlight: counted(results.map((r) => r.maxInFlight)),
      requests: median(results.map((r) => r.requests)),
      report: median(results.map((r) => r.seconds)),
      floor: { wall: median(results.map((r) => r.floor.wall)), waves: counted(results.map((r) => r.floor.waves)) },
    });
  }
  if (certificate) rmSync(certificate.dir, { recursive: true, force: true });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = (name) => process.argv[process.argv.indexOf(`--${name}`) + 1];
  const runs = process.argv.includes('--runs') ? Number(at('runs')) : 3;
  const rtts = process.argv.includes('--rtt')
    ? at('rtt')
        .split(',')
        .map((r) => (r === 'loopback' ? r : Number(r)))
    : undefined;
  const concurrency = process.argv.includes('--concurrency') ? Number(at('concurrency')) : undefined;
  // null: the CLI's own default; undefined: benchNetwork's, per row.
  const widen = process.argv.includes('--auto') ? null : process.argv.includes('--no-widen') ? false : undefined;
  const rows = await benchNetwork({
    runs,
    ...(rtts ? { rtts } : {}),
    concurrency,
    widen,
    log: console.log,
    requestLog: process.argv.includes('--log'),
    tls: process.argv.includes('--tls'),
  });
  if (concurrency) console.log(`\n--concurrency ${concurrency}`);
  console.log('\nrtt | waves | in flight | requests | report | wall (whole CLI) | floor: wall, waves | × floor | target');
  console.log('--- | --- | --- | --- | --- | --- | --- | --- | ---');
  for (const row of rows)
    console.log(
      `${rowName(row.rtt, row.tls)} | ${row.waves ?? '-'} | ${row.maxInFlight ?? '-'} | ${row.requests} | ${row.report.toFixed(2)} s | ${row.median.toFixed(2)} s (runs ${row.runs.map((s) => s.toFixed(2)).join(', ')}) | ${row.floor.wall.toFixed(2)} s, ${row.floor.waves ?? '-'} | ${(row.median / row.floor.wall).toFixed(2)} | ${row.target ?? '-'}: ${row.met === undefined ? '-' : row.met ? 'met' : 'NOT met'}`,
    );
  console.log(
    'medians; the machine may be shared: read them as such. floor: a fresh process sending as many pages, as many in flight, none waiting for another, nothing judged (scripts/network-floor.js)',
  );
}
