/**
 * `export-load`: a load profile as a script for k6 or Artillery, so that the
 * same load can come from more machines than the one the suite runs on (k6
 * cloud or distributed k6, Artillery's cloud runners, several hosts at once).
 *
 * The script reproduces what the suite's load phase does: 20 animals created
 * first (their ids read as digits, never through a double), then the
 * profile's request mix (listPets with the suite's limits and status filters,
 * getPet of those animals, createPet with valid bodies), its share of requests
 * without a key (answered 401: not an error), its pacing (closed loop, fixed
 * rate, or stepped ramp), its request bound, and its thresholds, in the tool's
 * own terms. The key is read from `PETSTORE_API_KEY` when the script runs and
 * is never written into it; `PETSTORE_BASE_URL` overrides the base URL.
 *
 * What a tool cannot express is said in the script, never silently dropped:
 * drift (the suite compares the last tenth of a soak with the first), a ramp
 * that stops at the first breaking stage, latency measured from when a
 * fixed-rate request was due, and, for Artillery, per-operation error rates and
 * throughput and the p97.5 and p99.9 percentiles.
 *
 * Run on many machines, the tools differ: Grafana Cloud and k6-operator split
 * the script's virtual users, rate and request bound between their instances
 * (k6's execution segments), so the load stays the profile's; each of
 * Artillery's Fargate or Lambda workers runs the whole script, so the load,
 * the set-up and the bound are multiplied by the workers. The scripts say so.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Options } from 'yargs';
import { UsageError } from '../core/errors.js';
import { refusalOf, textMarker, writeFileAtomic } from '../core/safe-write.js';
import { parseBaseUrl, targetOf } from '../core/http.js';
import { TOOL_VERSION } from '../core/version.js';
import { PET_STATUSES } from '../spec/openapi.js';
import type { LoadOperation } from '../result/model.js';
import { builtinProfiles, type LoadProfile, MIN_ANSWERED, type Threshold, validateProfile } from '../suites/load/profiles.js';
import { EXIT } from '../result/policy.js';
import { loadConfigFile, profilesOf } from './config.js';
import type { Io } from './io.js';

export const EXPORT_FORMATS = ['k6', 'artillery'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const exportLoadOptions = {
  profile: { type: 'string', describe: 'The load profile: smoke, baseline, stress, soak, or one from the config file' },
  format: { type: 'string', choices: EXPORT_FORMATS, describe: 'k6 (a JavaScript test for k6 run) or artillery (a YAML script for artillery run)' },
  out: { type: 'string', describe: "File to write (default: stdout). Artillery's closed loop needs a processor, written beside it as <name>.processor.cjs" },
  'base-url': { type: 'string', describe: 'Base URL written into the script as its default; PETSTORE_BASE_URL, where the script runs, overrides it' },
  config: { type: 'string', describe: 'Config file holding the profile [default: found as for a run]' },
} satisfies Record<string, Options>;

/** Animals the script creates before the load, for getPet: as many as the suite's load phase creates. */
export const SETUP_ANIMALS = 20;
/** The suite's listPets queries under load (suites/load/mix.ts): limits, and status filters. */
const LIMITS = [undefined, 1, 5, 20, 50, 100] as const;
const STATUSES = [undefined, ...PET_STATUSES] as const;
const DEFAULT_AUTH_PROBE_SHARE = 0.02;

/** What an export needs: the profile with its parsed thresholds, and where the target is by default. */
export interface ExportInput {
  profile: LoadProfile;
  thresholds: Threshold[];
  /** Written into the script as the default base URL; PETSTORE_BASE_URL wins. */
  baseUrl?: string;
  /** The script's file name, for its run command (default `<profile>.k6.js`, `<profile>.artillery.yml`); Artillery's processor is named after it. */
  scriptName?: string;
}

/** A generated script, and the files beside it it needs. */
export interface ExportedScript {
  script: string;
  /** Other files, by name relative to the script (Artillery's processor). */
  extra: Record<string, string>;
}

/** The command: validates, renders, writes. Exit 0, or 2 for a usage error. */
export async function exportLoadCommand(args: Record<string, unknown>, io: Io): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const format = args.format as ExportFormat | undefined;
  if (!format) throw new UsageError(`export-load needs --format (${EXPORT_FORMATS.join(' or ')})`);
  const file = (await loadConfigFile(args.config as string | undefined, cwd, io.env)).config;
  const profiles: Record<string, LoadProfile> = { ...builtinProfiles, ...profilesOf(file) };
  const name = args.profile as string | undefined;
  if (!name) throw new UsageError(`export-load needs --profile (known: ${Object.keys(profiles).join(', ')})`);
  const profile = profiles[name];
  if (!profile) throw new UsageError(`--profile: unknown profile "${name}" (known: ${Object.keys(profiles).join(', ')})`);
  const named = { ...profile, name };
  const thresholds = validateProfile(named);
  const given = (args['base-url'] as string | undefined) ?? file.baseUrl;
  const baseUrl = given === undefined ? undefined : targetOf(parseBaseUrl(given));
  const out = args.out === undefined ? undefined : resolve(cwd, String(args.out));
  const input: ExportInput = { profile: named, thresholds, ...(baseUrl ? { baseUrl } : {}), ...(out ? { scriptName: basename(out) } : {}) };
  const exported = format === 'k6' ? renderK6(input) : renderArtillery(input);
  if (!out) {
    if (Object.keys(exported.extra).length > 0) throw new UsageError(`an Artillery script for the ${profile.kind} profile "${name}" needs a processor file beside it: give --out <file>.yml`);
    io.stdout.write(exported.script);
    return EXIT.conformant;
  }
  const folder = await stat(dirname(out)).catch(() => undefined);
  if (!folder?.isDirectory()) throw new UsageError(`--out ${String(args.out)}: the folder ${dirname(out)} ${folder ? 'is not a folder' : 'does not exist'}`);
  const outGiven = String(args.out);
  const files = [[out, exported.script, `--out ${outGiven}`], ...Object.entries(exported.extra).map(([extra, text]) => [join(dirname(out), extra), text, join(dirname(outGiven), extra)])] as const;
  // A file named at --out (or the processor beside it) is replaced only when export-load wrote it; both are checked first.
  const inTheWay = await refusalOf(files.map(([path, , label]) => ({ path, ours: EXPORTED_MARKER, label })), 'give another --out');
  if (inTheWay) throw new UsageError(inTheWay);
  const written: string[] = [];
  for (const [path, content, label] of files) {
    await writeFileAtomic(path, content, { label, ours: EXPORTED_MARKER });
    written.push(path);
  }
  const run = format === 'k6' ? `PETSTORE_API_KEY=… k6 run ${out}` : `PETSTORE_API_KEY=… artillery run ${out}`;
  io.stdout.write(`wrote ${written.join(', ')}\nrun it with: ${run}${baseUrl ? '' : ' (and PETSTORE_BASE_URL=https://…/v1)'}\n`);
  return EXIT.conformant;
}

/** A file export-load wrote (a script, an Artillery processor): its first line, a comment that says so. */
export const EXPORTED_MARKER = textMarker(128, /^(?:\/\/|#) Generated by petstore-conformance /);

/** The operations' weights, with getPet's share kept (the script creates its animals first). */
function weights(profile: LoadProfile): [LoadOperation, number][] {
  return (['listPets', 'getPet', 'createPet'] as const).map((op) => [op, profile.mix[op]] as [LoadOperation, number]).filter(([, w]) => w > 0);
}

const listQuery = (i: number): string => {
  const limit = LIMITS[i % LIMITS.length];
  const status = STATUSES[Math.floor(i / LIMITS.length) % STATUSES.length];
  const params = [limit === undefined ? '' : `limit=${limit}`, status === undefined ? '' : `status=${status}`].filter(Boolean);
  return params.length ? `?${params.join('&')}` : '';
};

/** How long a profile runs, in seconds, at most. */
function durationSec(profile: LoadProfile): number {
  return profile.kind === 'ramp' ? profile.stages.length * profile.stageSec : profile.durationSec;
}

function describe(profile: LoadProfile): string {
  if (profile.kind === 'closed') return `closed loop: ${profile.connections} connections for ${profile.durationSec} s`;
  if (profile.kind === 'rate') return `fixed rate: ${profile.rate} requests/s for ${profile.durationSec} s, at most ${profile.connections} in flight`;
  return `ramp: ${profile.stages.join(', ')} connections, ${profile.stageSec} s each`;
}

/** `answered >= 90%`: every profile's threshold besides its own (suites/load/run.ts). */
const ANSWERED = `answered >= ${MIN_ANSWERED * 100}%`;

/** The script's file name: the one it is written to, else `<profile>.k6.js` or `<profile>.artillery.yml`. */
function scriptNameOf(input: ExportInput, format: ExportFormat): string {
  return input.scriptName ?? `${input.profile.name}.${format === 'k6' ? 'k6.js' : 'artillery.yml'}`;
}

function header(comment: string, input: ExportInput, format: ExportFormat, override: string): string[] {
  const { profile } = input;
  const mix = weights(profile).map(([op, w]) => `${op} ${w}`).join(', ');
  const share = profile.authProbeShare ?? DEFAULT_AUTH_PROBE_SHARE;
  const script = scriptNameOf(input, format);
  return [
    `${comment} Generated by petstore-conformance ${TOOL_VERSION}: export-load --profile ${profile.name} --format ${format}.`,
    `${comment} Load profile "${profile.name}" (${profile.description}): ${describe(profile)}, at most ${profile.maxRequests} requests.`,
    `${comment} Mix: ${mix}; ${Math.round(share * 1000) / 10}% of listPets and getPet requests sent without a key (401 expected, not an error).`,
    `${comment} ${SETUP_ANIMALS} animals are created first for getPet; every animal it creates is named "pcload-…" (the interface has no delete).`,
    `${comment} Thresholds: ${[...input.thresholds.map((t) => t.expression), ANSWERED].join('; ')}.`,
    `${comment} The key comes from PETSTORE_API_KEY when the script runs: it is not in this file. ${override}`,
    `${comment} Run: PETSTORE_API_KEY=… ${format} run ${script}`,
  ];
}

// ---------------------------------------------------------------------------
// k6

const K6_STAT: Record<string, string> = { p50: 'p(50)', p90: 'p(90)', p95: 'p(95)', p97_5: 'p(97.5)', p99: 'p(99)', p99_9: 'p(99.9)', max: 'max', mean: 'avg' };

/** A threshold in k6's terms: the (sub)metric and its expression, or why k6 cannot hold it. */
export function k6Threshold(t: Threshold): { metric: string; expression: string } | { unsupported: string } {
  const filter = t.operation === 'all' ? '{load:yes}' : `{operation:${t.operation}}`;
  if (t.metric === 'drift') return { unsupported: `${t.expression}: k6 has no drift metric (the suite compares p99 and the error rate of the last tenth of the run with the first)` };
  if (t.metric === 'errorRate') return { metric: `http_req_failed${filter}`, expression: `rate${t.comparator}${t.limit / 100}` };
  if (t.metric === 'throughput') return { metric: `http_reqs${filter}`, expression: `rate${t.comparator}${t.limit}` };
  return { metric: `http_req_duration${filter}`, expression: `${K6_STAT[t.metric]}${t.comparator}${t.limit}` };
}

/** A k6 test (JavaScript, `k6 run`), type-checked against @types/k6 by the project's tests. */
export function renderK6(input: ExportInput): ExportedScript {
  const { profile } = input;
  const thresholds: Record<string, (string | { threshold: string; abortOnFail: boolean; delayAbortEval: string })[]> = {};
  const unsupported: string[] = [];
  const held = (metric: string, expression: string) => {
    // A ramp stops at the first stage that breaks a threshold: k6 aborts the test when one fails.
    const entry = profile.kind === 'ramp' ? { threshold: expression, abortOnFail: true, delayAbortEval: `${profile.stageSec}s` } : expression;
    (thresholds[metric] ??= []).push(entry);
  };
  for (const t of input.thresholds) {
    const mapped = k6Threshold(t);
    if ('unsupported' in mapped) unsupported.push(mapped.unsupported);
    else held(mapped.metric, mapped.expression);
  }
  held('answered', `rate>=${MIN_ANSWERED}`);
  // Executors that stop by themselves at the request bound or the duration, whichever comes first: a test that
  // ends at its bound ends normally, as in the suite (k6's test.abort() would exit non-zero).
  let scenarios: Record<string, Record<string, unknown>>;
  const notes: string[] = [];
  if (profile.kind === 'closed') {
    scenarios = { [profile.name]: { executor: 'shared-iterations', vus: profile.connections, iterations: Math.max(profile.connections, profile.maxRequests), maxDuration: `${profile.durationSec}s` } };
    notes.push("Closed loop: each virtual user sends its next request when the previous one is answered, as the suite's own load sender does, until the request bound (iterations) or the duration (maxDuration).");
  } else if (profile.kind === 'rate') {
    // At a fixed rate the count is rate × duration: the bound, where it is lower, shortens the duration, as in the suite.
    const durationSec = Math.min(profile.durationSec, Math.max(1, Math.floor(profile.maxRequests / profile.rate)));
    scenarios = { [profile.name]: { executor: 'constant-arrival-rate', rate: profile.rate, timeUnit: '1s', duration: `${durationSec}s`, preAllocatedVUs: profile.connections, maxVUs: profile.connections } };
    notes.push(
      `Fixed rate: ${profile.rate} × ${durationSec} s requests due${durationSec < profile.durationSec ? ` (the request bound, ${profile.maxRequests}, ends it before ${profile.durationSec} s)` : ''}; a due request that finds every virtual user busy is dropped and counted (dropped_iterations), as the suite counts it.`,
      'k6 measures latency from when a request is sent; the suite measures it from when it was due, so a stalled server weighs more in its percentiles.',
    );
  } else {
    scenarios = Object.fromEntries(profile.stages.map((vus, i) => [`stage_${i + 1}`, { executor: 'shared-iterations', vus, iterations: Math.max(vus, profile.maxRequests), maxDuration: `${profile.stageSec}s`, startTime: `${i * profile.stageSec}s` }]));
    notes.push(
      'Ramp: one closed-loop scenario per stage; the test aborts when a threshold fails (abortOnFail), as the suite stops at the first breaking stage, but k6 judges the whole run so far, not the stage alone.',
      `The request bound (${profile.maxRequests}) holds for each stage: k6 cannot share one bound between scenarios, as the suite shares it between stages.`,
    );
  }
  notes.push(
    `${ANSWERED}: answered is the share of the requests sent that got an answer (any status)${profile.kind === 'rate' ? '; due requests k6 dropped (dropped_iterations) are not in it, where the suite counts them as unanswered' : ''}.`,
    'Distributed (k6 cloud run, k6-operator): the virtual users, the rate and the request bound are split between the instances, not multiplied;',
    `setup() runs once in Grafana Cloud, but in every k6-operator runner (${SETUP_ANIMALS} animals each), and each k6-operator runner judges the thresholds on its own share.`,
  );
  notes.push(...unsupported.map((u) => `Not reproduced: ${u}.`));
  const share = profile.authProbeShare ?? DEFAULT_AUTH_PROBE_SHARE;
  const options = { scenarios, thresholds, summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'] };
  const lines = [
    ...header('//', input, 'k6', `PETSTORE_BASE_URL${input.baseUrl ? ' overrides the base URL' : ' gives the base URL (…/v1)'}.`),
    ...notes.map((n) => `// ${n}`),
    "import http from 'k6/http';",
    "import exec from 'k6/execution';",
    "import { fail } from 'k6';",
    "import { Rate } from 'k6/metrics';",
    '',
    `const BASE_URL = (__ENV.PETSTORE_BASE_URL || ${JSON.stringify(input.baseUrl ?? '')}).replace(/\\/+$/, '');`,
    'const API_KEY = __ENV.PETSTORE_API_KEY;',
    '/** @type {[string, number][]} Operations and their weights. */',
    `const MIX = ${JSON.stringify(weights(profile))};`,
    `const AUTH_PROBE_SHARE = ${share};`,
    '/** @type {(number | null)[]} The suite\'s listPets limits under load (null: none). */',
    `const LIMITS = ${JSON.stringify(LIMITS.map((l) => l ?? null))};`,
    '/** @type {(string | null)[]} Status filters, and statuses of created animals (null: none). */',
    `const STATUSES = ${JSON.stringify(STATUSES.map((s) => s ?? null))};`,
    '// What is not an error, as in the suite: a 2xx to a request with the key, a 401 to one without (any other answer is, a 401 to a request with the key too).',
    'const OK = http.expectedStatuses({ min: 200, max: 299 });',
    'const UNAUTHORIZED = http.expectedStatuses(401);',
    '/** Requests that got an answer, of any status (status 0: a timeout or a network error). */',
    "const answered = new Rate('answered');",
    '',
    '/** @type {import("k6/options").Options} */',
    `export const options = ${JSON.stringify(options, null, 2)};`,
    '',
    '/**',
    ' * A valid NewPet: an ordinary name with the run\'s prefix, category 1, a PetStatus or none.',
    ' * @param {string} prefix',
    ' * @param {number} i',
    ' * @returns {string}',
    ' */',
    'function newPet(prefix, i) {',
    '  const status = STATUSES[i % STATUSES.length];',
    "  return JSON.stringify(status === null ? { name: `${prefix}${i}`, categoryId: 1 } : { name: `${prefix}${i}`, categoryId: 1, status });",
    '}',
    '',
    '/**',
    ' * The id of a created Pet as digits: ids are int64, and JSON.parse would round those beyond 2^53.',
    ' * @param {{ body: unknown }} response',
    ' * @returns {string | undefined}',
    ' */',
    'function idOf(response) {',
    '  const match = /"id"\\s*:\\s*(-?\\d+)/.exec(String(response.body));',
    '  return match ? match[1] : undefined;',
    '}',
    '',
    'export function setup() {',
    "  if (!BASE_URL) fail('set PETSTORE_BASE_URL (…/v1)');",
    "  if (!API_KEY) fail('set PETSTORE_API_KEY: the key is read from the environment, never written into this script');",
    "  const prefix = `pcload-${Math.floor(Math.random() * 0x10000).toString(16).padStart(4, '0')} `;",
    '  /** @type {string[]} */',
    '  const ids = [];',
    `  for (let i = 0; i < ${SETUP_ANIMALS}; i++) {`,
    "    const response = http.post(`${BASE_URL}/pets`, newPet(prefix, i), { headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, tags: { name: 'POST /pets (setup)', phase: 'setup' } });",
    '    const id = idOf(response);',
    '    if (response.status === 201 && id !== undefined) ids.push(id);',
    '  }',
    '  return { prefix, ids };',
    '}',
    '',
    '/**',
    ' * An operation by weight; without animals, getPet\'s share goes to listPets (as in the suite).',
    ' * @param {string[]} ids',
    ' * @returns {string}',
    ' */',
    'function pick(ids) {',
    "  /** @type {[string, number][]} */",
    "  const mix = MIX.map(([op, weight]) => [op === 'getPet' && ids.length === 0 ? 'listPets' : op, weight]);",
    '  let roll = Math.random() * mix.reduce((sum, [, weight]) => sum + weight, 0);',
    '  for (const [op, weight] of mix) {',
    '    roll -= weight;',
    '    if (roll < 0) return op;',
    '  }',
    '  return mix[mix.length - 1][0];',
    '}',
    '',
    '/** @param {{ prefix: string, ids: string[] }} data What setup() returned. */',
    'export default function (data) {',
    '  const i = exec.scenario.iterationInTest;',
    '  const op = pick(data.ids);',
    "  const probe = op !== 'createPet' && Math.random() < AUTH_PROBE_SHARE;",
    '  /** @type {Record<string, string>} */',
    "  const headers = probe ? {} : { authorization: `Bearer ${API_KEY}` };",
    "  const tags = { load: 'yes', operation: op, probe: probe ? 'yes' : 'no' };",
    '  const responseCallback = probe ? UNAUTHORIZED : OK;',
    '  let response;',
    "  if (op === 'listPets') {",
    '    const limit = LIMITS[i % LIMITS.length];',
    '    const status = STATUSES[Math.floor(i / LIMITS.length) % STATUSES.length];',
    "    const query = [limit === null ? '' : `limit=${limit}`, status === null ? '' : `status=${status}`].filter(Boolean).join('&');",
    "    response = http.get(`${BASE_URL}/pets${query ? `?${query}` : ''}`, { headers, tags: { ...tags, name: 'GET /pets' }, responseCallback });",
    "  } else if (op === 'getPet') {",
    '    const id = data.ids[i % data.ids.length];',
    "    response = http.get(`${BASE_URL}/pets/${id}`, { headers, tags: { ...tags, name: 'GET /pets/{petId}' }, responseCallback });",
    '  } else {',
    "    response = http.post(`${BASE_URL}/pets`, newPet(data.prefix, i), { headers: { ...headers, 'content-type': 'application/json' }, tags: { ...tags, name: 'POST /pets' }, responseCallback });",
    '  }',
    '  answered.add(response.status !== 0);',
    '}',
    '',
  ];
  return { script: lines.join('\n'), extra: {} };
}

// ---------------------------------------------------------------------------
// Artillery

// p99.9: Artillery reports it as p999, but its ensure plugin swaps metric names for values by substring, so
// `….p999` is read as `….p99` followed by a 9, and the condition never holds.
const ARTILLERY_STAT: Record<string, string | undefined> = { p50: 'p50', p90: 'p90', p95: 'p95', p97_5: undefined, p99: 'p99', p99_9: undefined, max: 'max', mean: 'mean' };

/**
 * A counter that may never have occurred, as 0 then: ensure reads a missing
 * metric as undefined (a name with `-` as a subtraction of undefineds, NaN),
 * and any arithmetic with it would fail the condition.
 */
const orZero = (metric: string): string => `(${metric} ? ${metric} : 0)`;

/**
 * A threshold as an Artillery `ensure` condition, or why Artillery cannot
 * hold it. `probes`: whether the flow sends requests without a key.
 */
export function artilleryCondition(t: Threshold, probes: boolean): { expression: string } | { unsupported: string } {
  if (t.metric === 'drift') return { unsupported: `${t.expression}: Artillery has no drift metric (the suite compares the last tenth of the run with the first)` };
  if (t.metric === 'throughput') {
    if (t.operation !== 'all') return { unsupported: `${t.expression}: Artillery reports no request rate per endpoint` };
    return { expression: `http.request_rate ${t.comparator} ${t.limit}` };
  }
  if (t.metric === 'errorRate') {
    if (t.operation !== 'all') return { unsupported: `${t.expression}: Artillery counts no requests per endpoint to divide by` };
    // As in the suite, not an error: a 2xx to a request with the key, a 401 to one without. So a 401 to a request with
    // the key, a 200 to a probe, a timeout or a network error (sent, never answered) is one.
    const ok = probes ? ` + ${orZero('plugins.metrics-by-endpoint.authProbe.codes.200')} - ${orZero('plugins.metrics-by-endpoint.authProbe.codes.401')}` : '';
    return { expression: `(http.requests - ${orZero('http.response_time.2xx.count')}${ok}) / http.requests * 100 ${t.comparator} ${t.limit}` };
  }
  const stat = ARTILLERY_STAT[t.metric];
  if (t.metric === 'p99_9') return { unsupported: `${t.expression}: Artillery's ensure plugin cannot name its p999 metric (it reads it as p99 followed by 9)` };
  if (!stat) return { unsupported: `${t.expression}: Artillery reports no ${t.metric.replace('_', '.')} percentile` };
  const metric = t.operation === 'all' ? `http.response_time.${stat}` : `plugins.metrics-by-endpoint.response_time.${t.operation}.${stat}`;
  return { expression: `${metric} ${t.comparator} ${t.limit}` };
}

/**
 * `answered >= 90%` as an `ensure` condition: responses of any status over
 * requests due. At a fixed rate each virtual user sends one request, so those
 * skipped at `maxVusers` are due requests never sent, as the suite counts them.
 */
export function artilleryAnswered(profile: LoadProfile): string {
  const due = profile.kind === 'rate' ? `(http.requests + ${orZero('vusers.skipped')})` : 'http.requests';
  return `${orZero('http.responses')} / ${due} * 100 >= ${MIN_ANSWERED * 100}`;
}

/** One request of the flow, as YAML lines at `indent`. */
function artilleryRequest(op: LoadOperation | 'authProbe', i: number, indent: string): string[] {
  const auth = [`${indent}    headers:`, `${indent}      authorization: "Bearer {{ $env.PETSTORE_API_KEY }}"`];
  if (op === 'createPet') {
    const status = STATUSES[i % STATUSES.length];
    return [
      `${indent}- post:`,
      `${indent}    url: "/pets"`,
      `${indent}    name: createPet`,
      ...auth,
      `${indent}    json:`,
      `${indent}      name: "pcload-{{ $randomString(4) }} ${i}"`,
      `${indent}      categoryId: 1`,
      ...(status ? [`${indent}      status: ${status}`] : []),
    ];
  }
  if (op === 'getPet') return [`${indent}- get:`, `${indent}    url: "/pets/{{ petId${i % SETUP_ANIMALS} }}"`, `${indent}    name: getPet`, ...auth];
  if (op === 'authProbe') return [`${indent}- get:`, `${indent}    url: "/pets${listQuery(i)}"`, `${indent}    name: authProbe`];
  return [`${indent}- get:`, `${indent}    url: "/pets${listQuery(i)}"`, `${indent}    name: listPets`, ...auth];
}

/**
 * One cycle of requests following the mix: each operation's share of the
 * cycle, in the suite's query order, one of them (by the probe share) sent
 * without a key.
 */
export function mixCycle(profile: LoadProfile): (LoadOperation | 'authProbe')[] {
  const share = profile.authProbeShare ?? DEFAULT_AUTH_PROBE_SHARE;
  const length = share > 0 ? Math.max(10, Math.round(1 / share)) : 20;
  const mix = weights(profile);
  const total = mix.reduce((sum, [, w]) => sum + w, 0);
  const counts = mix.map(([op, w]) => [op, Math.max(1, Math.round((w / total) * length))] as const);
  const cycle: (LoadOperation | 'authProbe')[] = [];
  // Interleaved, so a short run still sees every operation.
  for (let round = 0; cycle.length < counts.reduce((n, [, c]) => n + c, 0); round++) for (const [op, c] of counts) if (round < c) cycle.push(op);
  const probes = share > 0 ? Math.max(1, Math.round(cycle.length * share)) : 0;
  for (let p = 0, i = 0; p < probes && i < cycle.length; i++) {
    if (cycle[i] === 'listPets') {
      cycle[i] = 'authProbe';
      p++;
    }
  }
  return cycle;
}

/** An Artillery script (YAML, `artillery run`); closed loops and ramps need the processor it names, `<script name>.processor.cjs`. */
export function renderArtillery(input: ExportInput): ExportedScript {
  const { profile } = input;
  const processorName = `${scriptNameOf(input, 'artillery').replace(/\.ya?ml$/, '')}.processor.cjs`;
  const cycle = mixCycle(profile);
  const conditions: string[] = [];
  const unsupported: string[] = [];
  for (const t of input.thresholds) {
    const mapped = artilleryCondition(t, cycle.includes('authProbe'));
    if ('unsupported' in mapped) unsupported.push(mapped.unsupported);
    else conditions.push(mapped.expression);
  }
  conditions.push(artilleryAnswered(profile));
  const lines = [
    ...header('#', input, 'artillery', input.baseUrl ? '`artillery run --target https://…/v1` overrides the base URL.' : 'PETSTORE_BASE_URL gives the base URL (…/v1), or `artillery run --target https://…/v1`.'),
  ];
  const notes: string[] = [];
  const extra: Record<string, string> = {};
  const phases: string[] = [];
  let scenarios: string[];
  if (profile.kind === 'rate') {
    notes.push('Fixed rate: virtual users arrive at the rate, each sending one request (weighted scenarios), at most `maxVusers` in flight.');
    notes.push('Artillery measures latency from when a request is sent; the suite measures it from when it was due.');
    phases.push(`    - name: ${profile.name}`, `      duration: ${profile.durationSec}`, `      arrivalRate: ${profile.rate}`, `      maxVusers: ${profile.connections}`);
    // One scenario per request of the mix cycle, of equal weight: the mix, the queries and the probes in their proportions.
    scenarios = cycle.flatMap((op, i) => [`  - name: ${op} ${i + 1}`, '    weight: 1', '    flow:', ...artilleryRequest(op, i, '      ')]);
  } else {
    const duration = durationSec(profile);
    const connections = profile.kind === 'ramp' ? Math.max(...profile.stages) : profile.connections;
    const cycles = Math.max(1, Math.ceil(profile.maxRequests / connections / cycle.length));
    if (profile.kind === 'closed') {
      notes.push(`Closed loop: ${profile.connections} virtual users arrive at once and each sends its next request when the previous one is answered, until ${duration} s have passed (the processor's withinProfile) or the request bound is reached.`);
      notes.push('A virtual user whose request gets no answer (a timeout, a network error) stops: Artillery ends a scenario at its first error, where the suite goes on.');
      phases.push(`    - name: ${profile.name}`, '      duration: 1', `      arrivalCount: ${profile.connections}`);
    } else {
      notes.push('Ramp: at each stage the virtual users that make up its connections arrive, and all loop until the last stage ends; Artillery cannot stop at the first breaking stage, so the thresholds are judged on the whole ramp.');
      profile.stages.forEach((vus, i) => {
        const arriving = vus - (i === 0 ? 0 : profile.stages[i - 1]!);
        if (arriving > 0) phases.push(`    - name: stage ${i + 1} (${vus} connections)`, '      duration: 1', `      arrivalCount: ${arriving}`);
        if (profile.stageSec > 1 || arriving <= 0) phases.push(`    - pause: ${arriving > 0 ? profile.stageSec - 1 : profile.stageSec}`);
      });
    }
    scenarios = ['  - name: mix', '    flow:', '      - loop:', ...cycle.flatMap((op, i) => artilleryRequest(op, i, '          ')), '        whileTrue: withinProfile'];
    extra[processorName] = [
      `// Generated by petstore-conformance ${TOOL_VERSION} for the load profile "${profile.name}": Artillery has no loop bounded by time,`,
      '// so each virtual user asks here before every cycle of the mix whether the profile is still running.',
      '// The bound is per virtual user, so per worker in a distributed run (run-fargate, run-lambda): each worker runs the whole script.',
      "'use strict';",
      '',
      `const DURATION_MS = ${duration * 1000};`,
      `/** Cycles of ${cycle.length} requests a virtual user sends at most: the profile's request bound (${profile.maxRequests}) shared by ${connections}. */`,
      `const MAX_CYCLES = ${cycles};`,
      'let endsAt;',
      '',
      'module.exports = {',
      '  withinProfile(context, next) {',
      '    if (endsAt === undefined) endsAt = Date.now() + DURATION_MS;',
      '    context.vars.cycles = (context.vars.cycles || 0) + 1;',
      '    return next(Date.now() < endsAt && context.vars.cycles <= MAX_CYCLES);',
      '  },',
      '};',
      '',
    ].join('\n');
  }
  notes.push(
    `Distributed (run-fargate, run-lambda --count N): each worker runs the whole script, so the load, the ${SETUP_ANIMALS} set-up animals and the request bound are multiplied by N;`,
    'Artillery merges the workers\' figures before it judges the ensure conditions.',
    ...unsupported.map((u) => `Not reproduced: ${u}.`),
  );
  lines.push(...notes.map((n) => `# ${n}`));
  lines.push(
    'config:',
    `  target: ${JSON.stringify(input.baseUrl ?? '{{ $env.PETSTORE_BASE_URL }}')}`,
    ...(profile.kind === 'rate' ? [] : [`  processor: ${JSON.stringify(`./${processorName}`)}`]),
    '  phases:',
    ...phases,
    '  plugins:',
    '    metrics-by-endpoint:',
    '      useOnlyRequestNames: true',
    '    ensure:',
    ...(conditions.length ? ['      conditions:', ...conditions.map((c) => `        - expression: ${JSON.stringify(c)}`)] : []),
    '',
    `# ${SETUP_ANIMALS} animals for getPet, created once before the load; their ids captured as digits (never through a double).`,
    "# Artillery leaves this flow's requests out of its report, as the suite leaves its set-up out of the figures.",
    'before:',
    '  flow:',
    ...Array.from({ length: SETUP_ANIMALS }, (_, i) => [
      '    - post:',
      '        url: "/pets"',
      '        name: setup',
      '        headers:',
      '          authorization: "Bearer {{ $env.PETSTORE_API_KEY }}"',
      '        json:',
      `          name: "pcload-{{ $randomString(4) }} setup ${i}"`,
      '          categoryId: 1',
      '        capture:',
      `          - regexp: '"id"\\s*:\\s*(-?\\d+)'`,
      '            group: 1',
      `            as: petId${i}`,
    ]).flat(),
    '',
    'scenarios:',
    ...scenarios,
    '',
  );
  return { script: lines.join('\n'), extra };
}
