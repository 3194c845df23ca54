/**
 * The result of a conformance run, as data. report.json is this, serialised;
 * `runConformance` returns it. Reporters read it and nothing else.
 */
import type { FingerprintId } from '../core/fingerprints.js';
import type { Redacted } from '../core/redact.js';
import type { FindingMessage } from '../spec/findings.js';
import type { GapId } from '../spec/gaps.js';
import type { SourcedSetting } from '../spec/report-schema.js';
import type { RuleGroup, RuleId, Severity } from '../spec/rules.js';
import type { AnswerCount, InterruptSignal, SkipReason } from './reasons.js';
import type { LoadResult } from './load.js';

export type { BoundSignal, LatencyFigures, LoadFigures, LoadOperation, LoadResult, ThresholdResult } from './load.js';

/** Operations of the interface, plus the store-orders listing. */
export type OperationId = 'listPets' | 'createPet' | 'getPet' | 'listStoreOrders';

/**
 * How a check or rule came out.
 * - `pass`: every applicable assertion held.
 * - `fail`: at least one did not.
 * - `inconclusive`: the suite could not decide (never a failure).
 * - `error`: the suite itself crashed; neither a pass nor a conformance failure.
 * - `skip`: not run (filtered out, or its phase could not run), with a reason.
 */
export type Outcome = 'pass' | 'fail' | 'inconclusive' | 'error' | 'skip';

/** A rule's outcome: a check's, or `waived`, a failure an active waiver covers (shown, not failing the run). */
export type RuleOutcome = Outcome | 'waived';

/** A known, tracked deviation: the failure of `rule` (on `operation`, when given) does not fail the run until `expires`. */
export interface Waiver {
  rule: RuleId;
  operation?: OperationId;
  reason: string;
  /** Link to the tracking issue. */
  issue: string;
  /** Last day the waiver holds, `YYYY-MM-DD` (UTC). */
  expires: string;
}

/**
 * What became of a waiver: `applied` (the rule's failure is waived), `expired`
 * (past its date: the failure counts again), `stale` (the rule does not fail:
 * the waiver matches nothing), `partial` (the rule fails on other operations too:
 * not waived).
 */
export interface WaiverResult extends Waiver {
  status: 'applied' | 'expired' | 'stale' | 'partial';
  note: string;
}

/**
 * One request and its response as shown in reports: the key redacted, then
 * bounded. Every text field is {@link Redacted}: only a `Redactor` makes one,
 * so raw text cannot get here (suites/evidence.ts builds it).
 */
export interface Evidence {
  seq: number;
  /** Header names are redacted as well as values. */
  request: { method: string; url: Redacted; headers: Record<string, Redacted>; body?: Redacted; bodyBytes: number };
  response?: { status: number; headers: Record<string, Redacted>; body: Redacted; bodyBytes: number; truncated: boolean };
  /** Why there was no response (timeout, reset…). */
  transportError?: Redacted;
  durationMs: number;
  /** A copy-pasteable command that sends the same request; the key comes from $PETSTORE_API_KEY. */
  curl: Redacted;
}

/** A property-based check's failing input, shrunk. */
export interface Counterexample {
  /** The shrunk input, as JSON text (int64 exact), redacted. */
  input: Redacted;
  seed: number;
  /** fast-check's replay path. */
  path: string;
  /** Runs before the failure was found, and shrinks after it. */
  numRuns: number;
  numShrinks: number;
}

/**
 * How a replayed request is judged again, alone: by a response check, by the
 * status it must (not) have, or by the judgement of its operation. `none`: the
 * judgement needed the run's state (e.g. which animals the store held), so a
 * replay only shows the new answer.
 */
export type Judgement =
  | { kind: 'response'; check: string }
  | { kind: 'status'; rule: RuleId; expected: number[]; what: string }
  | { kind: 'not-status'; rule: RuleId; refused: number[]; what: string }
  | { kind: 'list'; query: { limit?: number; status?: string }; proven: number }
  | { kind: 'create' }
  | { kind: 'fetch'; id: string; sent: string }
  | { kind: 'none'; why: string };

/** What `petstore-conformance replay` needs to send a failing request again and judge the answer. */
export interface ReplayCase {
  /** Unique within a report: `c-` and 8 hex digits. */
  id: string;
  request: {
    method: string;
    /** Relative to the base URL, query included. */
    path: Redacted;
    /** With the key redacted (`<API_KEY>`…); replay puts the key back from --api-key into Authorization only. */
    headers: Record<string, Redacted>;
    /** The exact body bytes (which never hold the key), base64. */
    body?: Redacted;
  };
  /** How the request authenticated (`valid`, `none`, `invalid-token`…), so the answer is judged as it was in the run. */
  auth?: string;
  judge: Judgement;
}

/**
 * A failed or inconclusive assertion, with what the suite saw: what it says as
 * data (`code`, its `args` redacted, `underLoad`, `repeat`: spec/findings.ts)
 * and in words.
 */
export type Finding = FindingMessage & FindingRecord;

/** A finding's fields besides its message's data. */
export interface FindingRecord {
  rule: RuleId;
  check: string;
  operation: OperationId;
  outcome: 'fail' | 'inconclusive';
  /** The message in words ("Expected … / Received …"), as spec/findings.ts `findingText` renders it. */
  message: Redacted;
  evidence: Evidence[];
  counterexample?: Counterexample;
  /** Findings with the same key are the same problem; only the first few are kept. */
  key: Redacted;
  /**
   * What a re-run with the run's seed and settings selects to reproduce this
   * finding: its rule and those of the checks that sent its requests (reports
   * word it as a command, reports/commands.ts).
   */
  rerun: { only: RuleId[] };
  /** For failures: the request to send again with `petstore-conformance replay`. */
  case?: ReplayCase;
}

/** What one check found for one rule. */
export interface CheckResult {
  id: string;
  kind: 'example' | 'property' | 'response' | 'load' | 'differential';
  title: string;
  outcome: Outcome;
  passed: number;
  failed: number;
  inconclusive: number;
  /** Kept findings (bounded); `failed + inconclusive` counts them all. */
  findings: Finding[];
  /** Why the check was skipped, errored or judged nothing, as data. */
  why?: SkipReason;
  /** The same, worded (result/reasons.ts). */
  reason?: Redacted;
  /**
   * Time the check took, ms: an active check's run (its requests included), a
   * response check's judging of every response. A check that judges several
   * rules took it for all of them (junit.xml splits it evenly).
   */
  durationMs?: number;
  /**
   * When an active check started, ms after the run started: with `durationMs`,
   * its interval in the run (junit.xml's testsuite times are the union of these).
   */
  startedMs?: number;
}

export interface RuleResult {
  id: RuleId;
  title: string;
  severity: Severity;
  group: RuleGroup;
  section: string;
  outcome: RuleOutcome;
  checks: CheckResult[];
  /** Patterns every failing finding shares (suites/diagnoses.ts), shown next to the rule; absent when none is certain. */
  diagnoses?: Diagnosis[];
}

/** What the target did where the document leaves behaviour open. */
export interface Observation {
  gap: GapId;
  operation: OperationId;
  /** One line: what was sent and what came back. */
  summary: Redacted;
  /** How many requests showed the same thing. */
  count: number;
  evidence?: Evidence;
}

/**
 * `interrupted`: stopped by SIGINT, SIGTERM or SIGHUP; what ran is reported, the rest is "not run" (exit 130, 143 or 129).
 * `inconclusive`: nothing failed, but a selected MUST rule (not waived) was decided on no case (exit 4).
 */
export type Verdict = 'conformant' | 'non-conformant' | 'inconclusive' | 'error' | 'interrupted';

/**
 * A rule decided on no case, and why (result/undecided.ts): `see` is the rule
 * to look at (the upstream rule that failed or was waived, else the rule
 * itself); `why` the cause as data, `cause` its words.
 */
export interface UndecidedRule {
  rule: RuleId;
  see: RuleId;
  why: { code: 'upstream'; upstream: RuleId; outcome: 'fail' | 'waived'; never: boolean } | { code: 'answers'; answers: AnswerCount[] };
  cause: string;
}

/** A pattern every failing finding of a rule shares, certain from the evidence: `code` stable, `text` its one wording. */
export interface Diagnosis {
  code: 'ids-as-doubles' | 'int32-clamp' | 'int32-wrap' | 'names-trimmed';
  text: string;
}

export interface Summary {
  verdict: Verdict;
  /** Why, in one line. */
  reason: string;
  strict: boolean;
  /** Rules by severity and outcome. */
  counts: Record<Severity, Record<RuleOutcome, number>>;
  requests: number;
  checks: number;
  /** Set when the target could not be tested at all (unreachable, key rejected): `code` is a `PC_ERR_…` code. */
  abort?: { code: string; message: string };
  /** Load thresholds: `none` when no profile ran. A breach alone exits 3. */
  thresholds: 'pass' | 'fail' | 'none';
  /** The signal that stopped the run, when one did (verdict `interrupted`). */
  interrupted?: InterruptSignal;
  /** Rules decided on no case, with their cause (result/undecided.ts); absent when none. */
  undecided?: UndecidedRule[];
}

/** How the target was reached, besides TLS verification (core/connection.ts `connectionRecord`): never a secret. */
export interface ConnectionRecord {
  /** `--proxy <url>`, or the environment's proxies, credentials removed; absent when none. */
  proxy?: string;
  /** A client certificate was presented (--cert). */
  clientCertificate: boolean;
  /** Names of the extra headers sent (-H, --secret-header); values are not recorded. */
  headers: string[];
  /** Names of those whose values are secret (--secret-header). */
  secretHeaders: string[];
}

/** A setting whose source report.json records: the target, or one that weakens or redirects the transport (spec/report-schema.ts). */
export type { SourcedSetting };

/**
 * Where the target and the transport settings in force came from, as the CLI
 * read them: its flags, the environment (PETSTORE_* variables, and
 * HTTP_PROXY/HTTPS_PROXY for a proxy), or a config file, named (`--config`,
 * `PETSTORE_CONFIG`) or found upward from the working folder. A file found
 * without being named never sets more than the target among these (cli/config.ts).
 */
export interface SettingSources {
  flags: SourcedSetting[];
  environment: SourcedSetting[];
  /** The config file read, when one was: its path relative to the working folder, whether it was named, what it set of these. */
  configFile?: { path: string; named: boolean; settings: SourcedSetting[] };
}

export interface ConformanceResult {
  tool: { name: 'petstore-conformance'; version: string };
  interfaceVersion: string;
  /** The base URL, without credentials. */
  target: string;
  seed: number;
  numRuns: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** `insecure`: TLS certificates were not verified (--insecure); `customCa`: a CA was given with --ca; `sources`: where the target and these settings came from, when the caller said (the CLI does). */
  options: {
    strict: boolean;
    timeoutMs: number;
    only: RuleId[];
    skip: RuleId[];
    load: string;
    insecure: boolean;
    customCa: boolean;
    /** The clients the requests were sent under (each under one); absent: the tool's own shape. */
    fingerprints?: FingerprintId[];
    /** User-Agent of the tool's own shape, when one was given. */
    userAgent?: string;
    /** Longest pause before each functional request, ms, when the run paced with jitter. */
    jitterMs?: number;
    /** The differential probe's prelude went in the order drawn from the seed (suites/probe/prelude.ts); absent: the fixed order of earlier versions, or no probe. */
    prelude?: 'drawn';
    connection?: ConnectionRecord;
    sources?: SettingSources;
    names?: 'natural';
    /** Each client's version and its application's habits, and natural names' coined part, were drawn from the seed (core/clients.ts); absent: no clients or natural names, or as earlier versions sent them. */
    disguise?: 'drawn';
    /** Requests in flight at most in the functional phases, and why; absent in reports of versions before it was recorded. */
    concurrency?: ConcurrencyRecord;
  };
  /** Name prefix of every animal the run created; absent when its names were natural (`options.names`), which have none. */
  namePrefix?: string;
  summary: Summary;
  rules: RuleResult[];
  observations: Observation[];
  /** Phases that did not run, with why (`reason`: `why` worded). */
  skippedPhases: { phase: Phase | 'load'; why: SkipReason; reason: string }[];
  /** Load profiles that ran, in order (empty with `--load none`). */
  load: LoadResult[];
  /** The waivers given, and what became of each. */
  waivers: WaiverResult[];
}

/** Phases of a run, in order. */
export type Phase = 'setup' | 'listPets' | 'createPet' | 'getPet' | 'storeOrders' | 'auth';

/** What the engine emits while it runs, in order. */
export type RunEvent =
  | { type: 'run-start'; target: string; seed: number; checks: number }
  | { type: 'phase-start'; phase: Phase; checks: number }
  | { type: 'check-end'; phase: Phase; check: string; title: string; error?: string; skipped?: string }
  /** A phase's checks have all ended: the rules they judged, by outcome so far (response checks, judging every phase, aside). */
  | { type: 'phase-end'; phase: Phase; rules: Partial<Record<Outcome, number>>; failed: RuleId[]; durationMs: number }
  /** A rule failed for the first time in the run, as it was decided (the finding's text comes with the result, redacted). */
  | { type: 'rule-failed'; rule: RuleId; check: string; severity: Severity }
  /** Every 10 s while the functional phases run: requests sent so far, seconds since the run started. */
  | { type: 'heartbeat'; requests: number; elapsedSec: number }
  /** With `exchangeEvents`: an exchange of the functional phases as it completes, one line (`#12 GET …/pets?limit=1 → 200 …`), the key already redacted. */
  | { type: 'exchange'; check: string; seq: number; line: string }
  | { type: 'load-start'; profile: string; durationSec: number }
  | { type: 'load-tick'; profile: string; elapsedSec: number; durationSec: number; requests: number; throughput: number; p99Ms: number }
  | { type: 'load-end'; profile: string; thresholdsFailed: number }
  | { type: 'run-end'; result: ConformanceResult };

/** What report.json records of the functional phases' in-flight limit (`options.concurrency`; suites/session/in-flight.ts decides it). */
export interface ConcurrencyRecord {
  /** The widest in-flight limit the run reached: the given limit, the default, or more (widened). */
  limit: number;
  /** `given`: by the caller, a hard limit; `default`: not given, and widening turned off, or the round trip too short or the target queueing; `widened`: widened. */
  source: 'given' | 'default' | 'widened';
  /** The round trip estimated (the shortest exchange seen), ms; present when the limit was widened. */
  rttMs?: number;
}
