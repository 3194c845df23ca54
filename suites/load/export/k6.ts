/**
 * A load profile as a k6 test (JavaScript, `k6 run`): the load phase's cycle
 * of requests, pacing as k6 executors, thresholds as k6 thresholds on tagged
 * submetrics (script.ts says what every script holds and what it cannot).
 */
import { ANSWERED_THRESHOLD, type Threshold } from '../profiles.js';
import { LIST_LIMITS, LIST_STATUSES } from '../mix.js';
import { type ExportedScript, type ExportInput, header, planOf, SETUP_ANIMALS, thresholdsOf } from './script.js';
import { JUDGE_BEGIN, JUDGE_END, judgeAnswerLines } from './k6-judge.js';

const K6_STAT: Record<string, string> = {
  p50: 'p(50)',
  p90: 'p(90)',
  p95: 'p(95)',
  p97_5: 'p(97.5)',
  p99: 'p(99)',
  p99_9: 'p(99.9)',
  max: 'max',
  mean: 'avg',
};

/** A threshold in k6's terms: the (sub)metric and its expression, or why k6 cannot hold it. */
export function k6Threshold(t: Threshold): { metric: string; expression: string } | { unsupported: string } {
  const filter = t.operation === 'all' ? '{load:yes}' : `{operation:${t.operation}}`;
  if (t.metric === 'drift')
    return {
      unsupported: `${t.expression}: k6 has no drift metric (the suite compares p99 and the error rate of the last tenth of the run with the first)`,
    };
  // Requests that got an answer, of any status: a Rate the script adds to, held as a share.
  if (t.metric === 'answered') return { metric: 'answered', expression: `rate${t.comparator}${t.limit / 100}` };
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
    const entry =
      profile.kind === 'ramp' ? { threshold: expression, abortOnFail: true, delayAbortEval: `${profile.stageSec}s` } : expression;
    (thresholds[metric] ??= []).push(entry);
  };
  for (const t of thresholdsOf(input)) {
    const mapped = k6Threshold(t);
    if ('unsupported' in mapped) unsupported.push(mapped.unsupported);
    else held(mapped.metric, mapped.expression);
  }
  // Executors that stop by themselves at the request bound or the duration, whichever comes first: a test that
  // ends at its bound ends normally, as in the suite (k6's test.abort() would exit non-zero).
  let scenarios: Record<string, Record<string, unknown>>;
  const notes: string[] = [];
  if (profile.kind === 'closed') {
    scenarios = {
      [profile.name]: {
        executor: 'shared-iterations',
        vus: profile.connections,
        iterations: Math.max(profile.connections, profile.maxRequests),
        maxDuration: `${profile.durationSec}s`,
      },
    };
    notes.push(
      "Closed loop: each virtual user sends its next request when the previous one is answered, as the suite's own load sender does, until the request bound (iterations) or the duration (maxDuration).",
    );
  } else if (profile.kind === 'rate') {
    // At a fixed rate the count is rate × duration: the bound, where it is lower, shortens the duration, as in the suite.
    const durationSec = Math.min(profile.durationSec, Math.max(1, Math.floor(profile.maxRequests / profile.rate)));
    scenarios = {
      [profile.name]: {
        executor: 'constant-arrival-rate',
        rate: profile.rate,
        timeUnit: '1s',
        duration: `${durationSec}s`,
        preAllocatedVUs: profile.connections,
        maxVUs: profile.connections,
      },
    };
    notes.push(
      `Fixed rate: ${profile.rate} × ${durationSec} s requests due${durationSec < profile.durationSec ? ` (the request bound, ${profile.maxRequests}, ends it before ${profile.durationSec} s)` : ''}; a due request that finds every virtual user busy is dropped and counted (dropped_iterations), as the suite counts it.`,
      'k6 measures latency from when a request is sent; the suite measures it from when it was due, so a stalled server weighs more in its percentiles.',
    );
  } else {
    scenarios = Object.fromEntries(
      profile.stages.map((vus, i) => [
        `stage_${i + 1}`,
        {
          executor: 'shared-iterations',
          vus,
          iterations: Math.max(vus, profile.maxRequests),
          maxDuration: `${profile.stageSec}s`,
          startTime: `${i * profile.stageSec}s`,
        },
      ]),
    );
    notes.push(
      'Ramp: one closed-loop scenario per stage; the test aborts when a threshold fails (abortOnFail), as the suite stops at the first breaking stage, but k6 judges the whole run so far, not the stage alone.',
      `The request bound (${profile.maxRequests}) holds for each stage: k6 cannot share one bound between scenarios, as the suite shares it between stages.`,
    );
  }
  notes.push(
    `${ANSWERED_THRESHOLD.expression}: answered is the share of the requests sent that got an answer (any status)${profile.kind === 'rate' ? '; due requests k6 dropped (dropped_iterations) are not in it, where the suite counts them as unanswered' : ''}.`,
    'Distributed (k6 cloud run, k6-operator): the virtual users, the rate and the request bound are split between the instances, not multiplied;',
    `setup() runs once in Grafana Cloud, but in every k6-operator runner (${SETUP_ANIMALS} animals each), and each k6-operator runner judges the thresholds on its own share.`,
  );
  notes.push(
    'Every answer is checked as the load phase judges the answers it samples (status and body shape per operation, judgeAnswer below); checks rate==1 fails the test on any wrong answer. Header rules and what needs the store (listings against the animals created) are judged by the suite alone.',
  );
  notes.push(...unsupported.map((u) => `Not reproduced: ${u}.`));
  // Any wrong answer fails the run, as a failed rule fails the suite's.
  thresholds['checks'] = ['rate==1'];
  const plan = planOf(profile);
  const options = { scenarios, thresholds, summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'] };
  const lines = [
    ...header('//', input, 'k6', `PETSTORE_BASE_URL${input.baseUrl ? ' overrides the base URL' : ' gives the base URL (…/v1)'}.`),
    ...notes.map((n) => `// ${n}`),
    "import http from 'k6/http';",
    "import exec from 'k6/execution';",
    "import { check, fail } from 'k6';",
    "import { Rate } from 'k6/metrics';",
    '',
    `const BASE_URL = (__ENV.PETSTORE_BASE_URL || ${JSON.stringify(input.baseUrl ?? '')}).replace(/\\/+$/, '');`,
    'const API_KEY = __ENV.PETSTORE_API_KEY;',
    "/** @type {[string, number, number][]} The load phase's cycle of requests, in order: the operation, its n-th request (its query, its animal), 1 when sent without a key. */",
    `const CYCLE = ${JSON.stringify(plan.map((slot) => [slot.operation, slot.n, slot.authProbe ? 1 : 0]))};`,
    "/** @type {(number | null)[]} The suite's listPets limits under load (null: none). */",
    `const LIMITS = ${JSON.stringify(LIST_LIMITS.map((l) => l ?? null))};`,
    '/** @type {(string | null)[]} Status filters, and statuses of created animals (null: none). */',
    `const STATUSES = ${JSON.stringify(LIST_STATUSES.map((s) => s ?? null))};`,
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
    " * A valid NewPet: an ordinary name with the run's prefix, category 1, a PetStatus or none.",
    ' * @param {string} prefix',
    ' * @param {number} i',
    ' * @returns {string}',
    ' */',
    'function newPet(prefix, i) {',
    '  const status = STATUSES[i % STATUSES.length];',
    '  return JSON.stringify(status === null ? { name: `${prefix}${i}`, categoryId: 1 } : { name: `${prefix}${i}`, categoryId: 1, status });',
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
    JUDGE_BEGIN,
    ...judgeAnswerLines(),
    JUDGE_END,
    '',
    '/** @param {{ prefix: string, ids: string[] }} data What setup() returned. */',
    'export default function (data) {',
    '  const i = exec.scenario.iterationInTest;',
    '  const [planned, n, probe] = CYCLE[i % CYCLE.length];',
    "  // Without animals (the set-up created none), getPet's requests go to listPets, as in the suite.",
    "  const op = planned === 'getPet' && data.ids.length === 0 ? 'listPets' : planned;",
    '  /** @type {Record<string, string>} */',
    '  const headers = probe ? {} : { authorization: `Bearer ${API_KEY}` };',
    "  const tags = { load: 'yes', operation: op, probe: probe ? 'yes' : 'no' };",
    '  const responseCallback = probe ? UNAUTHORIZED : OK;',
    '  let response;',
    '  /** @type {{ limit?: number | null, status?: string | null, id?: string, sent?: string }} */',
    '  let asked = {};',
    "  if (op === 'listPets') {",
    '    const limit = LIMITS[n % LIMITS.length];',
    '    const status = STATUSES[Math.floor(n / LIMITS.length) % STATUSES.length];',
    '    asked = { limit, status };',
    "    const query = [limit === null ? '' : `limit=${limit}`, status === null ? '' : `status=${status}`].filter(Boolean).join('&');",
    "    response = http.get(`${BASE_URL}/pets${query ? `?${query}` : ''}`, { headers, tags: { ...tags, name: 'GET /pets' }, responseCallback });",
    "  } else if (op === 'getPet') {",
    '    const id = data.ids[n % data.ids.length];',
    '    asked = { id };',
    "    response = http.get(`${BASE_URL}/pets/${id}`, { headers, tags: { ...tags, name: 'GET /pets/{petId}' }, responseCallback });",
    '  } else {',
    '    const sent = newPet(data.prefix, i);',
    '    asked = { sent };',
    "    response = http.post(`${BASE_URL}/pets`, sent, { headers: { ...headers, 'content-type': 'application/json' }, tags: { ...tags, name: 'POST /pets' }, responseCallback });",
    '  }',
    '  answered.add(response.status !== 0);',
    '  // An answer, judged; a timeout or a network error is counted by answered and http_req_failed, not here.',
    '  if (response.status !== 0) {',
    '    const judged = judgeAnswer(op, probe === 1, asked, response.status, String(response.body));',
    '    check(response, Object.fromEntries(Object.entries(judged).map(([name, ok]) => [name, () => ok])), tags);',
    '  }',
    '}',
    '',
  ];
  return { script: lines.join('\n'), extra: {} };
}
