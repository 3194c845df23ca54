/**
 * A load profile as an Artillery script (YAML, `artillery run`): the load
 * phase's cycle of requests as a flow, pacing as phases (closed loops and
 * ramps bounded by a processor beside the script), thresholds as `ensure`
 * conditions (script.ts says what every script holds and what it cannot).
 */
import { Document, type Scalar, type YAMLMap } from 'yaml';
import { listQueryString } from '../../../generators/listQuery.js';
import { TOOL_VERSION } from '../../../core/version.js';
import { LIST_STATUSES, listQueryOf, type MixSlot } from '../mix.js';
import { durationSecOf, type LoadProfile, peakConnectionsOf, type Threshold } from '../profiles.js';
import { type ExportedScript, type ExportInput, header, planOf, scriptNameOf, SETUP_ANIMALS, thresholdsOf } from './script.js';
import { judgeAnswerLines } from './k6-judge.js';

// p99.9: Artillery reports it as p999, but its ensure plugin swaps metric names for values by substring, so
// `….p999` is read as `….p99` followed by a 9, and the condition never holds.
const ARTILLERY_STAT: Record<string, string | undefined> = {
  p50: 'p50',
  p90: 'p90',
  p95: 'p95',
  p97_5: undefined,
  p99: 'p99',
  p99_9: undefined,
  max: 'max',
  mean: 'mean',
};

/**
 * A counter that may never have occurred, as 0 then: ensure reads a missing
 * metric as undefined (a name with `-` as a subtraction of undefineds, NaN),
 * and any arithmetic with it would fail the condition.
 */
const orZero = (metric: string): string => `(${metric} ? ${metric} : 0)`;

/** Counters the processor adds to on every answer (0 or 1, so each exists once anything was answered). */
const OK_ANSWERS = 'petstore.ok_answers';
const WRONG_ANSWERS = 'petstore.wrong_answers';

/**
 * A threshold as an Artillery `ensure` condition, or why Artillery cannot
 * hold it.
 */
export function artilleryCondition(t: Threshold): { expression: string } | { unsupported: string } {
  if (t.metric === 'drift')
    return { unsupported: `${t.expression}: Artillery has no drift metric (the suite compares the last tenth of the run with the first)` };
  if (t.metric === 'throughput') {
    if (t.operation !== 'all') return { unsupported: `${t.expression}: Artillery reports no request rate per endpoint` };
    return { expression: `http.request_rate ${t.comparator} ${t.limit}` };
  }
  if (t.metric === 'errorRate') {
    if (t.operation !== 'all') return { unsupported: `${t.expression}: Artillery counts no requests per endpoint to divide by` };
    // As in the suite, not an error: a 2xx to a request with the key, a 401 to one without (the processor counts those
    // as ok_answers). So a 401 to a request with the key, a 200 to a probe, a timeout or a network error (sent, never
    // answered) is one.
    return { expression: `(http.requests - ${OK_ANSWERS}) / http.requests * 100 ${t.comparator} ${t.limit}` };
  }
  const stat = ARTILLERY_STAT[t.metric];
  if (t.metric === 'p99_9')
    return { unsupported: `${t.expression}: Artillery's ensure plugin cannot name its p999 metric (it reads it as p99 followed by 9)` };
  if (!stat) return { unsupported: `${t.expression}: Artillery reports no ${t.metric.replace('_', '.')} percentile` };
  const metric = t.operation === 'all' ? `http.response_time.${stat}` : `plugins.metrics-by-endpoint.response_time.${t.operation}.${stat}`;
  return { expression: `${metric} ${t.comparator} ${t.limit}` };
}

/**
 * `answered >= 90%` as an `ensure` condition: responses of any status over
 * requests due. At a fixed rate each virtual user sends one request, so those
 * skipped at `maxVusers` are due requests never sent, as the suite counts them.
 */
export function artilleryAnswered(profile: LoadProfile, answered: Threshold): string {
  const due = profile.kind === 'rate' ? `(http.requests + ${orZero('vusers.skipped')})` : 'http.requests';
  return `${orZero('http.responses')} / ${due} * 100 ${answered.comparator} ${answered.limit}`;
}

/** A step of an Artillery flow: `{ get: {…} }` or `{ post: {…} }`. */
type Step = Record<string, Record<string, unknown>>;

/** The key's header, read from the environment when Artillery runs: never written into the script. */
const KEY_HEADER = { authorization: 'Bearer {{ $env.PETSTORE_API_KEY }}' };

/**
 * One request of the cycle, the `i`-th, as a flow step: the query and the
 * animal of the n-th request of its operation, as the load phase sends it; one
 * sent without a key is named `authProbe`.
 */
function artilleryRequest(slot: MixSlot, i: number): Step {
  const { operation, n, authProbe } = slot;
  const name = authProbe ? 'authProbe' : operation;
  const auth = authProbe ? {} : { headers: KEY_HEADER };
  if (operation === 'createPet') {
    const status = LIST_STATUSES[i % LIST_STATUSES.length];
    return {
      post: {
        url: '/pets',
        name,
        ...auth,
        json: { name: `pcload-{{ $randomString(4) }} ${i}`, categoryId: 1, ...(status ? { status } : {}) },
      },
    };
  }
  const url = operation === 'getPet' ? `/pets/{{ petId${n % SETUP_ANIMALS} }}` : `/pets${listQueryString(listQueryOf(n))}`;
  return { get: { url, name, ...auth } };
}

/** An Artillery script (YAML, `artillery run`); closed loops and ramps need the processor it names, `<script name>.processor.cjs`. */
export function renderArtillery(input: ExportInput): ExportedScript {
  const { profile } = input;
  const processorName = `${scriptNameOf(input, 'artillery').replace(/\.ya?ml$/, '')}.processor.cjs`;
  const cycle = planOf(profile);
  const conditions: string[] = [];
  const unsupported: string[] = [];
  for (const t of thresholdsOf(input)) {
    const mapped = t.metric === 'answered' ? { expression: artilleryAnswered(profile, t) } : artilleryCondition(t);
    if ('unsupported' in mapped) unsupported.push(mapped.unsupported);
    else conditions.push(mapped.expression);
  }
  // Every answer judged as the load phase judges its samples: any wrong one fails the run, as a failed rule fails the suite's.
  conditions.push(`${WRONG_ANSWERS} == 0`);
  const head = [
    ...header(
      '',
      input,
      'artillery',
      input.baseUrl
        ? '`artillery run --target https://…/v1` overrides the base URL.'
        : 'PETSTORE_BASE_URL gives the base URL (…/v1), or `artillery run --target https://…/v1`.',
    ),
  ];
  const notes: string[] = [];
  const extra: Record<string, string> = {};
  const phases: Record<string, unknown>[] = [];
  let scenarios: Record<string, unknown>[];
  let bound: string[] = [];
  if (profile.kind === 'rate') {
    notes.push(
      'Fixed rate: virtual users arrive at the rate, each sending one request (weighted scenarios), at most `maxVusers` in flight.',
    );
    notes.push('Artillery measures latency from when a request is sent; the suite measures it from when it was due.');
    phases.push({ name: profile.name, duration: profile.durationSec, arrivalRate: profile.rate, maxVusers: profile.connections });
    // One scenario per request of the mix cycle, of equal weight: the mix, the queries and the probes in their proportions.
    scenarios = cycle.map((slot, i) => ({
      name: `${slot.authProbe ? 'authProbe' : slot.operation} ${i + 1}`,
      weight: 1,
      afterResponse: 'checkAnswer',
      flow: [artilleryRequest(slot, i)],
    }));
  } else {
    const duration = durationSecOf(profile);
    const connections = peakConnectionsOf(profile);
    const cycles = Math.max(1, Math.ceil(profile.maxRequests / connections / cycle.length));
    if (profile.kind === 'closed') {
      notes.push(
        `Closed loop: ${profile.connections} virtual users arrive at once and each sends its next request when the previous one is answered, until ${duration} s have passed (the processor's withinProfile) or the request bound is reached.`,
      );
      notes.push(
        'A virtual user whose request gets no answer (a timeout, a network error) stops: Artillery ends a scenario at its first error, where the suite goes on.',
      );
      phases.push({ name: profile.name, duration: 1, arrivalCount: profile.connections });
    } else {
      notes.push(
        'Ramp: at each stage the virtual users that make up its connections arrive, and all loop until the last stage ends; Artillery cannot stop at the first breaking stage, so the thresholds are judged on the whole ramp.',
      );
      profile.stages.forEach((vus, i) => {
        const arriving = vus - (i === 0 ? 0 : profile.stages[i - 1]!);
        if (arriving > 0) phases.push({ name: `stage ${i + 1} (${vus} connections)`, duration: 1, arrivalCount: arriving });
        if (profile.stageSec > 1 || arriving <= 0) phases.push({ pause: arriving > 0 ? profile.stageSec - 1 : profile.stageSec });
      });
    }
    scenarios = [
      {
        name: 'mix',
        afterResponse: 'checkAnswer',
        flow: [{ loop: cycle.map((slot, i) => artilleryRequest(slot, i)), whileTrue: 'withinProfile' }],
      },
    ];
    bound = [
      `const DURATION_MS = ${duration * 1000};`,
      `/** Cycles of ${cycle.length} requests a virtual user sends at most: the profile's request bound (${profile.maxRequests}) shared by ${connections}. */`,
      `const MAX_CYCLES = ${cycles};`,
      'let endsAt;',
      '',
      '/** Artillery has no loop bounded by time: each virtual user asks after every cycle of the mix (whileTrue, after each pass) whether to send another. */',
      'function withinProfile(context, next) {',
      '  if (endsAt === undefined) endsAt = Date.now() + DURATION_MS;',
      '  context.vars.cycles = (context.vars.cycles || 0) + 1;',
      '  return next(Date.now() < endsAt && context.vars.cycles < MAX_CYCLES);',
      '}',
      '',
    ];
  }
  extra[processorName] = processorOf(profile, bound);
  notes.push(
    `Distributed (run-fargate, run-lambda --count N): each worker runs the whole script, so the load, the ${SETUP_ANIMALS} set-up animals and the request bound are multiplied by N;`,
    "Artillery merges the workers' figures before it judges the ensure conditions.",
    ...unsupported.map((u) => `Not reproduced: ${u}.`),
  );
  const doc = new Document(
    {
      config: {
        target: input.baseUrl ?? '{{ $env.PETSTORE_BASE_URL }}',
        processor: `./${processorName}`,
        phases,
        plugins: {
          'metrics-by-endpoint': { useOnlyRequestNames: true },
          ensure: conditions.length ? { conditions: conditions.map((expression) => ({ expression })) } : {},
        },
      },
      before: {
        flow: Array.from({ length: SETUP_ANIMALS }, (_, i) => ({
          post: {
            url: '/pets',
            name: 'setup',
            headers: KEY_HEADER,
            json: { name: `pcload-{{ $randomString(4) }} setup ${i}`, categoryId: 1 },
            capture: [{ regexp: '"id"\\s*:\\s*(-?\\d+)', group: 1, as: `petId${i}` }],
          },
        })),
      },
      scenarios,
    },
    // The key's header is one object in many steps: written out each time, never as a YAML alias.
    { aliasDuplicateObjects: false },
  );
  // The header and what the script cannot hold, as comments at its top; each line a comment line of its own.
  doc.commentBefore = [...head, ...notes.map((n) => ` ${n}`)].join('\n');
  const before = (doc.contents as YAMLMap<Scalar, unknown>).items.find((pair) => String(pair.key) === 'before')!;
  before.key.commentBefore = [
    ` ${SETUP_ANIMALS} animals for getPet, created once before the load; their ids captured as digits (never through a double).`,
    " Artillery leaves this flow's requests out of its report, as the suite leaves its set-up out of the figures.",
  ].join('\n');
  return { script: doc.toString({ lineWidth: 0 }), extra };
}

/**
 * The processor beside the script: every answer judged (k6-judge.ts, the same
 * judgement as the k6 export's) and counted by name for the ensure conditions;
 * for closed loops and ramps, the loop's bound in time and requests.
 */
function processorOf(profile: LoadProfile, bound: string[]): string {
  return [
    `// Generated by petstore-conformance ${TOOL_VERSION} for the load profile "${profile.name}": each answer judged as the load phase`,
    `// judges its samples and counted (${OK_ANSWERS}: a 2xx with the key, a 401 without; ${WRONG_ANSWERS}: a check failed),`,
    '// per worker in a distributed run (run-fargate, run-lambda): each worker runs the whole script.',
    "'use strict';",
    '',
    ...judgeAnswerLines(),
    '',
    ...bound,
    '/** After each response of the load (scenario-level afterResponse): its status and body judged, both counters added to. */',
    'function checkAnswer(request, response, context, events, next) {',
    '  const url = new URL(request.url, "http://target.invalid");',
    '  const probe = !(request.headers && (request.headers.authorization || request.headers.Authorization));',
    '  const status = response.statusCode;',
    '  const op = request.method === "POST" ? "createPet" : /\\/pets\\/[^/]+$/.test(url.pathname) ? "getPet" : "listPets";',
    '  const limit = url.searchParams.get("limit");',
    '  const asked = {',
    '    limit: limit === null ? null : Number(limit),',
    '    status: url.searchParams.get("status"),',
    '    id: decodeURIComponent(url.pathname.split("/").pop() || ""),',
    '    sent: request.json === undefined ? undefined : JSON.stringify(request.json),',
    '  };',
    '  const ok = probe ? status === 401 : status >= 200 && status < 300;',
    `  events.emit("counter", ${JSON.stringify(OK_ANSWERS)}, ok ? 1 : 0);`,
    '  const judged = judgeAnswer(op, probe, asked, status, String(response.body));',
    `  events.emit("counter", ${JSON.stringify(WRONG_ANSWERS)}, Object.values(judged).every(Boolean) ? 0 : 1);`,
    '  return next();',
    '}',
    '',
    `module.exports = { checkAnswer${bound.length ? ', withinProfile' : ''} };`,
    '',
  ].join('\n');
}
