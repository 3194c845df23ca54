/**
 * The load phase: after the functional checks, each selected profile runs
 * against the target, and a sample of the responses it receives is judged by
 * the same validators as the functional phase. A rule that passes at rest but
 * fails under load is reported under the profile's own checks, with evidence.
 */
import type { Names } from '../../generators/names.js';
import type { RedactedExchange } from '../../core/boundary.js';
import type { ConnectOptions } from '../../core/connection.js';
import type { RunClients } from '../../core/clients.js';
import type { FingerprintId } from '../../core/fingerprints.js';
import { decodeBody } from '../../core/decode.js';
import type { Exchange } from '../../core/http.js';
import { bearer } from '../../core/key.js';
import type { RuleId } from '../../spec/rules.js';
import type { CheckDefinition, LoadCheck, ResponseCheck, SendOptions, SentExchange, StoreState } from '../check.js';
import { CREATE_GAPS, createAndJudge, type Judge, judgeCreated, judgeFetched, judgeList } from '../judge.js';
import type { LoadResult, RunEvent } from '../../result/model.js';
import type { Recorder } from '../recorder.js';
import { NotJudged, RateLimited } from '../session.js';
import { buildMix, LOAD_SETUP_ANIMALS, type MixRequest } from './mix.js';
import { authProbeShareOf, type LoadProfile, type Threshold } from './profiles.js';
import type { Observed } from './sender.js';

export { LOAD_SETUP_ANIMALS } from './mix.js';
/** Responses of listPets and getPet judged per profile and operation, at most (createPet: all of them, for id uniqueness). */
export const MAX_SAMPLES = 400;
/**
 * One listPets or getPet response in this many is judged (at most
 * {@link MAX_SAMPLES}); every 4xx/5xx answer is judged besides, without a cap:
 * a shedder's HTML pages are few and must not be missed.
 */
export const SAMPLE_EVERY = 10;

/** Answers of rate limiting and load shedding under load: judged as Error bodies only. */
const SHED: ReadonlySet<number> = new Set([429, 503, 504]);

/** The response check that judges Error bodies (ERROR-SCHEMA, ERROR-STATUS-MATCHES), the one a shed answer meets. */
const ERROR_BODY_CHECK = 'responses.error-body';

/** Rules the conformance-under-load check asserts itself; response checks add theirs. */
const LOAD_RULES: readonly RuleId[] = [
  'LIST-RESPONSE',
  'LIST-LIMIT-DEFAULT',
  'LIST-LIMIT-HONOURED',
  'LIST-STATUS-FILTER',
  'CREATE-RESPONSE',
  'CREATE-ECHO',
  'CREATE-ID-UNIQUE',
  'GET-RESPONSE',
  'AUTH-REQUIRED',
];

/** The checks of a profile's conformance-under-load: its own, and a copy of each response check. */
export function loadChecks(profile: string, responseChecks: readonly ResponseCheck[]): LoadCheck[] {
  return [
    {
      kind: 'load',
      id: `load.${profile}.conformance`,
      title: `Responses sampled during load profile "${profile}"`,
      rules: LOAD_RULES,
      gaps: CREATE_GAPS,
    },
    ...responseChecks.map((c): LoadCheck => ({
      kind: 'load',
      id: `load.${profile}.${c.id}`,
      title: `${c.title} (during load profile "${profile}")`,
      rules: c.rules,
      gaps: c.gaps,
      inspect: c.inspect,
    })),
  ];
}

export interface LoadPhaseDeps {
  baseUrl: string;
  apiKey: string;
  /** How the run names its animals (generators/names.ts). */
  names: Names;
  seed: number;
  timeoutMs: number;
  /** The run's read bound: a sampled body is kept up to it (and decoded within it), as the functional client's. */
  maxBodyBytes: number;
  /** How to connect: the same description as the functional client's (TLS, client certificate, proxy, extra headers). */
  connection?: ConnectOptions;
  /** The clients the lanes speak as (core/fingerprints.ts), one per lane in turn; empty or absent: the tool's lanes. */
  fingerprints?: readonly FingerprintId[];
  /** Each client as the run has it (core/clients.ts). Default: core/fingerprints.ts, every call as the suite writes it. */
  clients?: RunClients;
  /** Stops the profile (an interrupted run). */
  signal?: AbortSignal;
  /** The run's door (core/boundary.ts): a sampled exchange crosses the same redaction boundary as the functional phases' before anything judges it. */
  admit: (exchange: Exchange) => RedactedExchange;
  store: StoreState;
  recorder: Recorder;
  checks: readonly CheckDefinition[];
  send: (check: string, request: SendOptions) => Promise<SentExchange>;
  emit: (event: RunEvent) => void;
}

/** Runs one profile and judges its sampled responses. */
export async function runLoadProfile(profile: LoadProfile, thresholds: readonly Threshold[], deps: LoadPhaseDeps): Promise<LoadResult> {
  // The load drivers (and their histograms) are loaded by the first profile that runs, not by every run of the engine.
  const { runProfile } = await import('./run.js');
  const own = deps.checks.filter((c): c is LoadCheck => c.kind === 'load' && c.id.startsWith(`load.${profile.name}.`));
  const main = own.find((c) => c.id === `load.${profile.name}.conformance`)!;
  const failed = new Set<RuleId>();
  const prefixed = (check: CheckDefinition): Judge => {
    const inner = deps.recorder.asserter(check, 'listPets');
    return {
      ...deps.recorder.observer(check),
      pass: (rule) => inner.pass(rule),
      fail: (rule, message, exchanges, key, judge) => {
        failed.add(rule);
        inner.fail(rule, { ...message, underLoad: profile.name }, exchanges, key, judge);
      },
      inconclusive: (rule, message, exchanges) => inner.inconclusive(rule, message, exchanges),
    };
  };
  const assert = prefixed(main);
  const inspectors = own.filter((c) => c.inspect).map((c) => ({ check: c, asserter: prefixed(c) }));
  const shedInspectors = inspectors.filter(({ check }) => check.id === `load.${profile.name}.${ERROR_BODY_CHECK}`);

  // Set-up: animals for getPet to fetch, created like every other (and judged as such), with an ordinary name and
  // categoryIds the target accepted in the functional phases, so that a load profile never depends on an edge case.
  const categories = deps.store.categories.length > 0 ? deps.store.categories.slice(0, 8) : [1n];
  const setupBodies = Array.from({ length: LOAD_SETUP_ANIMALS }, (_, i) => ({
    name: deps.names.name(`load ${i}`),
    categoryId: categories[i % categories.length]!,
    status: (['available', 'pending', 'sold'] as const)[i % 3],
  }));
  const created = await Promise.all(
    setupBodies.map((body) =>
      createAndJudge(assert, (request) => deps.send(main.id, request), body, deps.store, deps.names).catch((error: unknown) => {
        // A create left unread by the suite's own stalled loop, not carried by the proxy, or still rate-limited: that
        // animal is unknown, not failed.
        if (!(error instanceof NotJudged || error instanceof RateLimited)) throw error;
        assert.inconclusive('CREATE-RESPONSE', { code: 'CUT_SHORT', args: { reason: error.message } }, [error.exchange]);
        return undefined;
      }),
    ),
  );
  const petIds = created.flatMap((c) => (c?.pet ? [c.pet.id] : []));
  for (const c of created) if (c?.pet) deps.store.addCreated({ sent: c.sent, pet: c.pet, exchange: c.exchange });
  const requests = buildMix({
    mix: profile.mix,
    petIds,
    prefix: deps.names.stems,
    seed: deps.seed,
    authProbeShare: authProbeShareOf(profile),
    categoryIds: categories,
  });

  const counts: Record<string, number> = {};
  let sampled = 0;
  let seq = 1_000_000_000;
  const sample = (request: MixRequest): boolean => {
    if (request.operation === 'createPet' && !request.authProbe) return true;
    const n = (counts[request.operation] = (counts[request.operation] ?? 0) + 1);
    return n % SAMPLE_EVERY === 1 && n / SAMPLE_EVERY < MAX_SAMPLES;
  };
  // A sampled body with a content coding is decoded (asynchronously, within the same bound) before it is judged. Only
  // the decodings under way are held (every createPet answer is sampled: a soak against a compressing target would
  // otherwise keep a promise per create); one that failed stays, so that the profile ends with its error as before.
  const decoding = new Set<Promise<void>>();
  const authorization = bearer(deps.apiKey);
  const judge = (observed: Observed) => {
    if (observed.headers['content-encoding'] !== undefined) {
      const pending = decodeBody(observed.body, observed.headers['content-encoding'], deps.maxBodyBytes, observed.truncated).then(
        (decoded) =>
          judgeNow(decoded ? { ...observed, body: decoded.body, truncated: decoded.truncated, decoding: decoded.decoding } : observed),
      );
      decoding.add(pending);
      pending.then(
        () => decoding.delete(pending),
        () => undefined,
      );
      return;
    }
    judgeNow(observed);
  };
  const judgeNow = (observed: Observed) => {
    sampled++;
    const { exchange, meta } = exchangeOf(observed, deps.baseUrl, authorization, ++seq, main.id, deps.connection?.headers);
    const x: SentExchange = { ...deps.admit(exchange), meta };
    // Rate limiting and load shedding (429, 503, 504) are what thresholds measure: such an answer is judged only as the
    // Errors section asks of every error answer (an Error body whose status repeats the HTTP status), never as a
    // server error nor against what its request expected.
    const shed = SHED.has(observed.status);
    // This runs inside the load generator's event handlers: a crash here is recorded, never thrown.
    for (const { check, asserter } of shed ? shedInspectors : inspectors) {
      try {
        check.inspect!(x, asserter);
      } catch (error) {
        deps.recorder.checkError(check, `check crashed: ${(error as Error).message}`);
      }
    }
    // An answer kept only for its error status (not sampled) is judged by the response checks alone, as sampling would.
    if (shed || observed.errorOnly) return;
    try {
      judgeObserved(assert, observed, x, deps.store);
    } catch (error) {
      deps.recorder.checkError(main, `check crashed: ${(error as Error).message}`);
    }
  };

  const result = await runProfile(profile, thresholds, {
    baseUrl: deps.baseUrl,
    authorization,
    requests,
    timeoutMs: deps.timeoutMs,
    maxBodyBytes: deps.maxBodyBytes,
    ...(deps.connection ? { connection: deps.connection } : {}),
    ...(deps.fingerprints?.length ? { fingerprints: deps.fingerprints } : {}),
    ...(deps.clients ? { clients: deps.clients } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
    sample,
    judge,
    emit: deps.emit,
  });
  await Promise.all([...decoding]);
  return { ...result, conformance: { sampled, undecodable: 0, failedRules: [...failed].sort() } };
}

/** The functional judgements a sampled response can take. */
function judgeObserved(assert: Judge, observed: Observed, x: SentExchange, store: StoreState): void {
  const { request } = observed;
  if (request.authProbe) {
    if (observed.status === 401) assert.pass('AUTH-REQUIRED');
    else
      assert.fail(
        'AUTH-REQUIRED',
        { code: 'WRONG_STATUS', args: { status: '401', request: `${request.operation} without a key`, received: `${observed.status}` } },
        [x],
        `${request.operation} ${observed.status}`,
        { kind: 'status', rule: 'AUTH-REQUIRED', expected: [401], what: `${request.operation} without a key` },
      );
    return;
  }
  if (request.operation === 'listPets') {
    // Creates are in flight beside every listing: what it shows is not taken as known before them.
    judgeList(
      assert,
      x,
      { ...(request.limit ? { limit: request.limit } : {}), ...(request.status ? { status: request.status as never } : {}) },
      store,
      0,
      'now',
      true,
    );
  } else if (request.operation === 'createPet' && request.sent) {
    judgeCreated(assert, x, request.sent, store);
  } else if (request.operation === 'getPet' && request.petId !== undefined) {
    const created = store.createdWithId(request.petId);
    if (created) judgeFetched(assert, x, created.sent, request.petId, created.exchange, store);
  }
}

/** The exchange a sampled response was, rebuilt from what the load generator saw and sent (`authorization`, as the lanes sent it), before it crosses the boundary. */
function exchangeOf(
  observed: Observed,
  baseUrl: string,
  authorization: string,
  seq: number,
  check: string,
  extra: Readonly<Record<string, string>> = {},
): { exchange: Exchange; meta: SentExchange['meta'] } {
  const { request } = observed;
  const headers: Record<string, string> = {
    ...extra,
    ...(request.authProbe ? {} : { authorization }),
    ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  return {
    exchange: {
      seq,
      request: {
        method: request.method,
        url: `${baseUrl}${request.path}`,
        headers,
        ...(request.body === undefined ? {} : { body: Buffer.from(request.body) }),
      },
      response: {
        status: observed.status,
        headers: observed.headers,
        body: observed.body,
        truncated: observed.truncated,
        ...(observed.decoding ? { decoding: observed.decoding } : {}),
      },
      durationMs: observed.latencyUs / 1000,
    },
    meta: { operation: request.operation, auth: request.authProbe ? 'none' : 'valid', check },
  };
}
