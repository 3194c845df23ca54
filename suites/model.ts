/**
 * The result of a conformance run, as data. report.json is this, serialised;
 * `runConformance` returns it. Reporters read it and nothing else.
 */
import type { GapId } from '../spec/gaps.js';
import type { RuleGroup, RuleId, Severity } from '../spec/rules.js';

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

/** One request and its response as shown in reports: bounded, the key redacted. */
export interface Evidence {
  seq: number;
  request: { method: string; url: string; headers: Record<string, string>; body?: string; bodyBytes: number };
  response?: { status: number; headers: Record<string, string>; body: string; bodyBytes: number; truncated: boolean };
  /** Why there was no response (timeout, reset…). */
  transportError?: string;
  durationMs: number;
  /** A copy-pasteable command that sends the same request; the key comes from $PETSTORE_API_KEY. */
  curl: string;
}

/** A property-based check's failing input, shrunk. */
export interface Counterexample {
  /** The shrunk input, as JSON text (int64 exact). */
  input: string;
  seed: number;
  /** fast-check's replay path. */
  path: string;
  /** Runs before the failure was found, and shrinks after it. */
  numRuns: number;
  numShrinks: number;
}

/** A failed or inconclusive assertion, with what the suite saw. */
export interface Finding {
  rule: RuleId;
  check: string;
  operation: OperationId;
  outcome: 'fail' | 'inconclusive';
  /** "Expected … / Received …". */
  message: string;
  evidence: Evidence[];
  counterexample?: Counterexample;
  /** Findings with the same key are the same problem; only the first few are kept. */
  key: string;
  /** Command that re-runs this rule with the same seed. */
  replay: string;
}

/** What one check found for one rule. */
export interface CheckResult {
  id: string;
  kind: 'example' | 'property' | 'response';
  title: string;
  outcome: Outcome;
  passed: number;
  failed: number;
  inconclusive: number;
  /** Kept findings (bounded); `failed + inconclusive` counts them all. */
  findings: Finding[];
  /** Why the check was skipped or errored. */
  reason?: string;
}

export interface RuleResult {
  id: RuleId;
  title: string;
  severity: Severity;
  group: RuleGroup;
  section: string;
  outcome: Outcome;
  checks: CheckResult[];
}

/** What the target did where the document leaves behaviour open. */
export interface Observation {
  gap: GapId;
  operation: OperationId;
  /** One line: what was sent and what came back. */
  summary: string;
  /** How many requests showed the same thing. */
  count: number;
  evidence?: Evidence;
}

export type Verdict = 'conformant' | 'non-conformant' | 'error';

export interface Summary {
  verdict: Verdict;
  /** Why, in one line. */
  reason: string;
  strict: boolean;
  /** Rules by severity and outcome. */
  counts: Record<Severity, Record<Outcome, number>>;
  requests: number;
  checks: number;
  /** Set when the target could not be tested at all (unreachable, key rejected): `code` is a `PC_ERR_…` code. */
  abort?: { code: string; message: string };
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
  /** `insecure`: TLS certificates were not verified (--insecure); `customCa`: a CA was given with --ca. */
  options: { strict: boolean; timeoutMs: number; only: RuleId[]; skip: RuleId[]; load: string; insecure: boolean; customCa: boolean };
  /** Name prefix of every animal the run created. */
  namePrefix: string;
  summary: Summary;
  rules: RuleResult[];
  observations: Observation[];
  /** Phases that did not run, with why. */
  skippedPhases: { phase: string; reason: string }[];
}

/** Phases of a run, in order. */
export type Phase = 'setup' | 'listPets' | 'createPet' | 'getPet' | 'storeOrders' | 'auth';

/** What the engine emits while it runs, in order. */
export type RunEvent =
  | { type: 'run-start'; target: string; seed: number; checks: number }
  | { type: 'phase-start'; phase: Phase; checks: number }
  | { type: 'check-end'; phase: Phase; check: string; title: string; error?: string; skipped?: string }
  | { type: 'run-end'; result: ConformanceResult };
