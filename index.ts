/**
 * petstore-conformance: conformance checks for any implementation of the
 * Animal Store Service interface.
 *
 * @example
 * import { runConformance, renderJunit, renderHtml } from 'petstore-conformance';
 * const result = await runConformance({ baseUrl: 'http://127.0.0.1:8080/v1', apiKey: process.env.PETSTORE_API_KEY! });
 * await writeFile('junit.xml', renderJunit(result));
 * await writeFile('report.html', renderHtml(result));
 * if (result.summary.verdict !== 'conformant') process.exitCode = 1;
 *
 * @example
 * // Certification: a bundle made, written, and checked offline.
 * import { certify, verifyBundle, renderVerification } from 'petstore-conformance';
 * const { bundle, manifest } = await certify({ baseUrl, apiKey, product: { name: 'Acme', version: '1.0', contact: 'qa@acme.example' } });
 * await writeFile('bundle.tar.gz', bundle);
 * const verification = await verifyBundle(bundle);
 * if (verification.problems.length > 0) console.log(renderVerification(verification, 'bundle.tar.gz'));
 */
export { runConformance, DEFAULTS, LOAD_PROFILES, PHASES, PLAN, type ConformanceOptions, type RunEvent } from './suites/engine.js';
export type { PhaseSpec } from './suites/plan.js';
export { skipText, stopText, type AnswerCount, type SkipReason, type StopReason } from './result/reasons.js';
export type {
  CheckResult,
  ConformanceResult,
  Counterexample,
  Evidence,
  Finding,
  FindingRecord,
  Observation,
  OperationId,
  Outcome,
  RuleResult,
  Summary,
  Verdict,
} from './result/model.js';
export { rules, untestableStatements, type Rule, type RuleId, type Severity } from './spec/rules.js';
export { gaps, type Gap, type GapId } from './spec/gaps.js';
export { findingText, FINDING_CODES, type FindingArguments, type FindingCode, type FindingMessage } from './spec/findings.js';
export { openapi, INTERFACE_VERSION, PET_STATUSES, type PetStatus } from './spec/openapi.js';
export { startReference, type RunningServer, type ServeOptions } from './reference/server.js';
export type { ApiRequest, ApiResponse, Handler, ReferenceOptions } from './reference/handler.js';
export { PcError, type ErrorCode } from './core/errors.js';
// A PcError's `wording` names the settings as data: render it with your own names for them, or read `message` (option names).
export { OPTION_NAMES, renderWording, type Setting, type SettingRef, type Wording } from './core/wording.js';
export type { ConnectOptions, ProxyChoice } from './core/connection.js';
export { TOOL_VERSION } from './core/version.js';
export type {
  LoadFigures,
  LoadResult,
  ReplayCase,
  RuleOutcome,
  ThresholdResult,
  Waiver,
  WaiverResult,
  UndecidedRule,
  Diagnosis,
} from './result/model.js';
export { exitCode, failsRun, outcomeLabel, shownOutcome, EXIT, type ShownOutcome } from './result/policy.js';

// Reporters: each pure writer takes a ConformanceResult and returns text; `reporters` are the CLI's file and console adapters.
export { renderJson, JSON_REPORT_FILE } from './reports/json.js';
export { renderJunit, JUNIT_REPORT_FILE, type JunitOptions } from './reports/junit.js';
export { renderHtml, HTML_REPORT_FILE, type HtmlOptions } from './reports/html.js';
export { renderSummary, renderVerdictLine } from './reports/console.js';
export { renderAnnotations, renderStepSummary } from './reports/github.js';
export { replayCommand, rerunCommand } from './reports/commands.js';
export { reporters, REPORTER_NAMES, type Reporter, type ReporterContext, type ReporterName } from './reports/index.js';

// Certification: a bundle made by `certify`, checked offline by `verifyBundle`; problems are data with stable codes, worded by `describeStep`.
export { certify, ProductRefused, type Certification, type CertifyOptions } from './certification/certify.js';
export { verifyBundle, type Verification, type VerifyOptions } from './certification/verify.js';
export type { ShownRequest, VerifyNote, VerifyPass, VerifyProblem, VerifyStep } from './certification/problems.js';
export { describeStep, renderVerification, type StepMark } from './certification/format.js';
export type { ManifestDefect } from './certification/manifest.js';
export type { TranscriptDefect } from './certification/transcript.js';
export type { HarPair, Transcript, TranscriptEntry } from './core/transcript.js';
export { CERTIFICATION, certificationDecision } from './result/policy.js';
export type { AnyManifest, Manifest, ManifestFormat2 } from './spec/manifest-schema.js';
export type { BoundProduct, Difference, UrlPart } from './certification/binding.js';
export type { Product } from './spec/product-schema.js';
export type { SchemaViolation } from './spec/validate.js';
