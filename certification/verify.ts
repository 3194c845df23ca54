/**
 * `verifyBundle`: checks a certification bundle offline (it opens no
 * connection at all) and says, as data, everything that does not match:
 *
 * - each file against its hash in manifest.json (missing, extra, changed);
 * - the Ed25519 signature of manifest.json, when a public key is given;
 * - the tool version and the suite's content hash against this installation;
 * - when asked, the product and base URL the bundle was certified for against
 *   the ones given (`product`, `baseUrl`): a bundle presented for another
 *   product or origin does not verify;
 * - every rule's outcome, recomputed by running the suite again against the
 *   transcript (same seed, runs, names and fingerprints; the key a placeholder) with
 *   the current validators, against report.json's;
 * - each load threshold's outcome against the one report.json's own load
 *   figures give, judged as the load phase judges them;
 * - the certificate decision against what report.json supports.
 *
 * Load results cannot be replayed (checks `load.*`, figures): the hashes, and
 * the signature when checked, are all that vouch for them.
 */
import { verify as verifySignature, type KeyObject } from 'node:crypto';
import { WITHHELD_DIGEST } from '../core/boundary.js';
import { asPcError } from '../core/errors.js';
import { sha256 } from '../core/hash.js';
import { KEY_PLACEHOLDER, LETTERLESS_STAND_IN, redactorFor } from '../core/redact.js';
import { parseBaseUrl, targetOf } from '../core/http.js';
import { headerOf, TranscriptReplayer } from '../core/transcript.js';
import { TOOL_VERSION } from '../core/version.js';
import { type AnyManifest, MANIFEST_FORMAT } from '../spec/manifest-schema.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import type { Product } from '../spec/product-schema.js';
import { reportSchema } from '../spec/report-schema.js';
import { validatorFor, violationsOf } from '../spec/validate.js';
import { runConformance } from '../suites/engine.js';
import { builtinProfiles, type Threshold, validateProfile } from '../suites/load/profiles.js';
import { judgeThresholds } from '../suites/load/run.js';
import type { CheckResult, ConformanceResult, LoadResult, Outcome, ThresholdResult } from '../result/model.js';
import { CERTIFICATION, certificationDecision, thresholdMeasure, thresholdsOutcome, verdictWithLoadFailures } from '../result/policy.js';
import { combine } from '../suites/recorder.js';
import { baseUrlDifferences, productDifferences } from './binding.js';
import { type BundleContents, unpackBundle } from './bundle.js';
import { BUNDLE, HASHED_FILES, readManifest, suiteHash } from './manifest.js';
import type { VerifyNote, VerifyPass, VerifyProblem, VerifyStep } from './problems.js';
import { checkProduct } from './product.js';
import { parseTranscript } from './transcript.js';

/** Options of {@link verifyBundle}. */
export interface VerifyOptions {
  /** The Ed25519 public key manifest.json must be signed with; without it the signature is not checked (a note says so). */
  publicKey?: KeyObject;
  /** The product the bundle must have been certified for (its name, version and contact are compared). Default: not compared. */
  product?: Product;
  /**
   * The base URL the bundle must have been certified at: scheme, host, port
   * and path are compared once both are normalised (letter case of scheme
   * and host, a default port, trailing slashes). Default: not compared.
   */
  baseUrl?: string;
}

/** What the bundle is checked against besides itself: {@link VerifyOptions} once read. */
interface Expected {
  publicKey: KeyObject | undefined;
  product: Product | undefined;
  /** The base URL given, as the suite names it (core/http.ts `targetOf`). */
  target: string | undefined;
}

/** What {@link verifyBundle} found. The bundle verifies when `problems` is empty. */
export interface Verification {
  /** Every step, in the order made: problems, passes and notes (certification/format.ts words them). */
  steps: VerifyStep[];
  /** The problems among the steps. */
  problems: VerifyProblem[];
  /** What the bundle says, as far as it could be read (a manifest of an earlier format has no product or fingerprints). */
  manifest?: AnyManifest;
  product?: Product;
  report?: ConformanceResult;
}

/** Requests of a diverging replay listed one by one; the rest are counted. */
const MAX_UNMATCHED_LISTED = 5;

/** The steps of one verification as they are made. */
class Steps implements Verification {
  readonly steps: VerifyStep[] = [];
  readonly problems: VerifyProblem[] = [];
  manifest?: AnyManifest;
  product?: Product;
  report?: ConformanceResult;
  problem(problem: VerifyProblem): void {
    this.problems.push(problem);
    this.steps.push(problem);
  }
  say(step: VerifyPass | VerifyNote): void {
    this.steps.push(step);
  }
}

/**
 * Checks a bundle (the bytes of its .tar.gz) and returns every problem, pass
 * and note. Whatever the bytes hold is a problem of the bundle (bytes that
 * are no .tar.gz at all, a single `NOT_A_BUNDLE`), never an exception; only
 * `options.baseUrl` that is no base URL throws (`InvalidBaseUrlError`, a
 * `UsageError`), before the bundle is read.
 */
export async function verifyBundle(bytes: Uint8Array, options: VerifyOptions = {}): Promise<Verification> {
  const expected: Expected = { publicKey: options.publicKey, product: options.product, target: options.baseUrl === undefined ? undefined : targetOf(parseBaseUrl(options.baseUrl)) };
  const found = new Steps();
  try {
    const contents = await unpackBundle(bytes);
    for (const problem of contents.problems) found.problem(problem);
    if (!contents.problems.some((p) => p.code === 'NOT_A_BUNDLE')) await check(contents, expected, found);
  } catch (error) {
    // Whatever a bundle holds, it is a problem of the bundle, said as one: never an internal error.
    found.problem({ code: 'CHECK_ABORTED', detail: (error instanceof Error ? error.message : String(error)).split('\n')[0]! });
  }
  const { steps, problems, manifest, product, report } = found;
  return { steps, problems, manifest, product, report };
}

async function check({ files, hashes }: BundleContents, expected: Expected, found: Steps): Promise<void> {
  const manifestBytes = files.get(BUNDLE.manifest);
  if (!manifestBytes) return found.problem({ code: 'MANIFEST_MISSING' });
  // The signature covers the manifest's bytes: it is checked before they are read.
  checkSignature(files, manifestBytes, expected.publicKey, found);
  const read = readManifest(manifestBytes);
  if ('defect' in read) return found.problem({ code: 'MANIFEST_INVALID', defect: read.defect });
  const { manifest } = read;
  found.manifest = manifest;
  checkHashes(files, hashes, manifest, found);
  checkSuite(manifest, found);

  const product = files.get(BUNDLE.product);
  if (product) {
    const checked = checkProduct(product.toString('utf8'));
    if ('error' in checked) found.problem({ code: 'PRODUCT_INVALID', detail: checked.error });
    else found.product = checked.product;
  }
  checkBinding(manifest, found.product, expected, found);
  const report = parseReport(files.get(BUNDLE.report), found);
  if (!report) return found.problem({ code: 'REPORT_UNREADABLE' });
  found.report = report;
  checkReportAgainstManifest(report, manifest, found);
  await recompute(report, manifest, files.get(BUNDLE.transcript), found);
  checkDecision(report, manifest, found);
}

/**
 * The product and base URL the bundle binds: the manifest's product against
 * product.json's, then both against what the reader expects, when given. A
 * manifest of format 2 names no product: product.json, bound by its hash, does.
 */
function checkBinding(manifest: AnyManifest, productFile: Product | undefined, expected: Expected, found: Steps): void {
  const named = manifest.format === MANIFEST_FORMAT ? manifest.product : productFile;
  if (manifest.format === MANIFEST_FORMAT && productFile) {
    const [first] = productDifferences(manifest.product, productFile);
    if (first) found.problem({ code: 'PRODUCT_MANIFEST_DISAGREE', field: first.field, product: first.given, manifest: first.bundle });
  }
  if (expected.product) {
    const differences = named ? productDifferences(named, expected.product) : [];
    if (!named) found.problem({ code: 'PRODUCT_NOT_NAMED' });
    else if (differences.length > 0) found.problem({ code: 'PRODUCT_DIFFERS', bundle: { name: named.name, version: named.version, contact: named.contact }, differences });
    else found.say({ code: 'PRODUCT_MATCHES', product: { name: named.name, version: named.version, contact: named.contact } });
  }
  if (expected.target !== undefined) {
    const differences = baseUrlDifferences(manifest.target, expected.target);
    if (differences.length > 0) found.problem({ code: 'BASE_URL_DIFFERS', bundle: manifest.target, given: expected.target, differences });
    else found.say({ code: 'BASE_URL_MATCHES', target: manifest.target });
  }
}

function checkHashes(files: Map<string, Buffer>, hashes: Map<string, string>, manifest: AnyManifest, found: Steps): void {
  let matching = 0;
  for (const [file, expected] of Object.entries(manifest.files)) {
    // Every file was hashed as it was read, the ones too large to keep included.
    const actual = hashes.get(file) ?? (files.has(file) ? sha256(files.get(file)!) : undefined);
    if (actual === undefined) found.problem({ code: 'FILE_MISSING', file });
    else if (actual !== expected) found.problem({ code: 'HASH_MISMATCH', file, expected, actual });
    else matching++;
  }
  for (const file of HASHED_FILES) if (!Object.hasOwn(manifest.files, file)) found.problem({ code: 'HASH_NOT_LISTED', file });
  for (const file of new Set([...files.keys(), ...hashes.keys()])) {
    if (file !== BUNDLE.manifest && file !== BUNDLE.signature && !Object.hasOwn(manifest.files, file)) found.problem({ code: 'FILE_EXTRA', file });
  }
  if (matching === Object.keys(manifest.files).length && matching > 0) found.say({ code: 'FILES_MATCH', count: matching });
}

function checkSignature(files: Map<string, Buffer>, manifestBytes: Buffer, publicKey: KeyObject | undefined, found: Steps): void {
  const signature = files.get(BUNDLE.signature);
  if (!publicKey) return found.say({ code: 'SIGNATURE_NOT_CHECKED', signed: signature !== undefined });
  if (!signature) return found.problem({ code: 'SIGNATURE_MISSING' });
  const text = signature.toString('utf8').trim();
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  let valid = false;
  try {
    valid = bytes !== undefined && bytes.length === 64 && verifySignature(null, manifestBytes, publicKey, bytes);
  } catch {
    valid = false;
  }
  if (valid) found.say({ code: 'SIGNATURE_VALID' });
  else found.problem({ code: 'SIGNATURE_INVALID' });
}

function checkSuite(manifest: AnyManifest, found: Steps): void {
  const installed = suiteHash();
  const before = found.problems.length;
  if (manifest.tool.version !== TOOL_VERSION) found.problem({ code: 'TOOL_VERSION_DIFFERS', bundle: manifest.tool.version, installed: TOOL_VERSION });
  if (manifest.suiteHash !== installed) found.problem({ code: 'SUITE_HASH_DIFFERS', bundle: manifest.suiteHash, installed });
  if (manifest.interfaceVersion !== INTERFACE_VERSION) found.problem({ code: 'INTERFACE_VERSION_DIFFERS', bundle: manifest.interfaceVersion, installed: INTERFACE_VERSION });
  if (found.problems.length === before) found.say({ code: 'SUITE_MATCHES', version: TOOL_VERSION, suiteHash: installed });
}

function parseReport(bytes: Buffer | undefined, found: Steps): ConformanceResult | undefined {
  if (!bytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    found.problem({ code: 'REPORT_INVALID', defect: { kind: 'not-json' } });
    return undefined;
  }
  const validate = validatorFor<ConformanceResult>(reportSchema);
  if (validate(value)) return value;
  found.problem({ code: 'REPORT_INVALID', defect: { kind: 'schema', violations: violationsOf(validate.errors) } });
  return undefined;
}

function checkReportAgainstManifest(report: ConformanceResult, manifest: AnyManifest, found: Steps): void {
  const pairs: [string, unknown, unknown][] = [
    ['seed', report.seed, manifest.seed],
    ['numRuns', report.numRuns, manifest.numRuns],
    ['namePrefix', report.namePrefix, manifest.namePrefix],
    ['target', report.target, manifest.target],
    ['load', report.options.load, manifest.load],
    ['tool version', report.tool.version, manifest.tool.version],
    ['interfaceVersion', report.interfaceVersion, manifest.interfaceVersion],
    ['startedAt', report.startedAt, manifest.startedAt],
    ['finishedAt', report.finishedAt, manifest.finishedAt],
  ];
  for (const [field, inReport, inManifest] of pairs) if (inReport !== inManifest) found.problem({ code: 'REPORT_MANIFEST_DISAGREE', field, report: inReport, manifest: inManifest });
}

/** A request as shown in a problem: the path relative to the target. */
const shown = (method: string, url: string, target: string, authorization: string) => ({ method, path: url.startsWith(target) ? url.slice(target.length) : url, authorization });

/**
 * Runs the suite again with the transcript as its target and compares every
 * rule's and check's outcome with report.json's. Checks `load.*` are taken
 * as recorded (load cannot be replayed).
 */
async function recompute(report: ConformanceResult, manifest: AnyManifest, transcriptBytes: Buffer | undefined, found: Steps): Promise<void> {
  if (!transcriptBytes) return found.problem({ code: 'TRANSCRIPT_MISSING' });
  const parsed = parseTranscript(transcriptBytes.toString('utf8'));
  if ('defect' in parsed) return found.problem({ code: 'TRANSCRIPT_INVALID', defect: parsed.defect });
  const { entries } = parsed;
  // A signal stopped the run between two requests of concurrent checks: no recomputation can stop at the same place,
  // so it would only list the requests the run never sent. What ran is evidence; the decision is still checked (an
  // interrupted run never supports a certificate).
  if (report.summary.interrupted) return found.say({ code: 'INTERRUPTED_NOT_RECOMPUTED', signal: report.summary.interrupted });
  // The recomputation's key: the placeholder, or one without letters when the recorded key had none (its
  // letter-case-swapped variant was never sent), so that it sends exactly the requests the run sent.
  const swappedSent = entries.some((e) => headerOf(e.request.headers, 'authorization').includes(`<${KEY_PLACEHOLDER} with its letter case swapped>`));
  const standIn = swappedSent || entries.length === 0 ? KEY_PLACEHOLDER : LETTERLESS_STAND_IN;
  // Requests the run did not send because they would have carried the key: the recomputation stops where the run did.
  const withheld = new Set([...JSON.stringify(report.rules).matchAll(WITHHELD_DIGEST)].map((m) => m[1]!));
  const replayer = new TranscriptReplayer(entries, { baseUrl: manifest.target, redactor: redactorFor(standIn), withheld });
  let replayed: ConformanceResult;
  try {
    replayed = await runConformance({
      baseUrl: manifest.target,
      apiKey: standIn,
      seed: manifest.seed,
      numRuns: manifest.numRuns,
      concurrency: CERTIFICATION.concurrency,
      // Natural names (certifications since seeds are drawn) are derived from the seed alone; earlier bundles name a prefix.
      ...(report.options.names === 'natural' ? { names: 'natural' as const } : manifest.namePrefix === undefined ? {} : { namePrefix: manifest.namePrefix }),
      // The shapes the run was sent under (a manifest of format 2: none, the tool's own).
      ...(manifest.format === MANIFEST_FORMAT && manifest.fingerprints.length > 0 ? { fingerprints: manifest.fingerprints } : {}),
      strict: report.options.strict,
      load: 'none',
      transport: replayer,
    });
  } catch (error) {
    return found.problem({ code: 'RECOMPUTATION_FAILED', detail: asPcError(error).message });
  }

  const loadSeqs = new Set(entries.filter((e) => e._meta.check.startsWith('load.')).map((e) => e._seq));
  const before = found.problems.length;
  for (const u of replayer.unmatched.slice(0, MAX_UNMATCHED_LISTED)) found.problem({ code: 'REQUEST_NOT_IN_TRANSCRIPT', request: { method: u.method, path: u.path, authorization: u.authorization } });
  if (replayer.unmatched.length > MAX_UNMATCHED_LISTED) found.problem({ code: 'MORE_REQUESTS_NOT_IN_TRANSCRIPT', count: replayer.unmatched.length - MAX_UNMATCHED_LISTED });
  const unused = replayer.unused().filter((e) => !loadSeqs.has(e._seq));
  if (unused.length > 0) {
    const first = unused[0]!;
    found.problem({ code: 'EXCHANGES_NOT_REPLAYED', count: unused.length, first: { seq: first._seq, ...shown(first.request.method, first.request.url, manifest.target, headerOf(first.request.headers, 'authorization')) } });
  }

  const recordedRules = new Map(report.rules.map((r) => [r.id, r]));
  for (const rule of replayed.rules) {
    const recorded = recordedRules.get(rule.id);
    if (!recorded) {
      found.problem({ code: 'RULE_NOT_IN_REPORT', rule: rule.id, recomputed: rule.outcome });
      continue;
    }
    recordedRules.delete(rule.id);
    const replayedChecks = new Map(rule.checks.map((c) => [c.id, c]));
    const outcomes: Outcome[] = [];
    for (const check of recorded.checks) {
      if (check.id.startsWith('load.')) {
        outcomes.push(check.outcome);
        continue;
      }
      const again = replayedChecks.get(check.id);
      replayedChecks.delete(check.id);
      if (!again) {
        found.problem({ code: 'CHECK_UNKNOWN', rule: rule.id, check: check.id });
        continue;
      }
      if (again.outcome === check.outcome || explainedByLoad(check, again, loadSeqs)) outcomes.push(check.outcome);
      else {
        outcomes.push(again.outcome);
        const message = again.outcome === 'fail' ? (again.findings.find((f) => f.outcome === 'fail')?.message ?? '') : undefined;
        found.problem({ code: 'CHECK_DIFFERS', rule: rule.id, check: check.id, recorded: check.outcome, recomputed: again.outcome, ...(message === undefined ? {} : { message }) });
      }
    }
    for (const missing of replayedChecks.values()) {
      outcomes.push(missing.outcome);
      found.problem({ code: 'CHECK_NOT_IN_REPORT', rule: rule.id, check: missing.id, recomputed: missing.outcome });
    }
    const expected = combine(outcomes);
    if (recorded.outcome !== expected) found.problem({ code: 'RULE_DIFFERS', rule: rule.id, severity: rule.severity, recorded: recorded.outcome, recomputed: expected });
  }
  for (const extra of recordedRules.keys()) found.problem({ code: 'RULE_UNKNOWN', rule: extra });

  // The verdict, from the recomputed rules plus the load checks as recorded.
  const failedLoad = report.rules.filter((r) => r.checks.some((c) => c.id.startsWith('load.') && c.outcome === 'fail'));
  const verdict = verdictWithLoadFailures(replayed.summary.verdict, failedLoad, report.options.strict);
  if (report.summary.verdict !== verdict) found.problem({ code: 'VERDICT_DIFFERS', recorded: report.summary.verdict, recomputed: verdict });

  if (found.problems.length === before) found.say({ code: 'VERDICTS_AGREE', rules: replayed.rules.length, exchanges: entries.length - loadSeqs.size });
  found.say({ code: 'LOAD_NOT_RECOMPUTED' });
}

/**
 * A check the original run failed (or found inconclusive) only on exchanges of
 * the load phase's set-up, which the recomputation does not send: every kept
 * finding's evidence is such an exchange. Only ever explains a recorded
 * failure, never a recorded pass.
 */
function explainedByLoad(recorded: CheckResult, again: CheckResult, loadSeqs: ReadonlySet<number>): boolean {
  const worse: Record<Outcome, number> = { skip: 0, inconclusive: 1, pass: 2, error: 3, fail: 4 };
  if (recorded.findings.length === 0 || worse[recorded.outcome] <= worse[again.outcome]) return false;
  if (recorded.outcome !== 'fail' && recorded.outcome !== 'inconclusive') return false;
  return recorded.findings.every((f) => f.evidence.length > 0 && f.evidence.every((e) => loadSeqs.has(e.seq)));
}

/**
 * The decision report.json supports. Its load figures cannot be replayed, but
 * its threshold outcomes must follow from them: each profile's thresholds are
 * judged again from its recorded figures as the load phase judges them, and
 * the decision is made on those (a profile that answered nothing never reads
 * as within its thresholds, whatever the file says).
 */
function checkDecision(report: ConformanceResult, manifest: AnyManifest, found: Steps): void {
  const load = report.load.map((recorded) => {
    const judged = judgedAgain(recorded);
    if (!judged) return recorded;
    const ids = [...new Set([...recorded.thresholds, ...judged].map((t) => t.id))];
    for (const id of ids) {
      const was = recorded.thresholds.find((t) => t.id === id);
      const is = judged.find((t) => t.id === id);
      if (was?.outcome !== is?.outcome) found.problem({ code: 'THRESHOLD_DIFFERS', profile: recorded.profile, threshold: id, recorded: was?.outcome ?? 'absent', recomputed: is?.outcome ?? 'absent', ...(is ? { measure: thresholdMeasure(is) } : {}) });
    }
    return { ...recorded, thresholds: judged };
  });
  const supported = { ...report, load };
  const decision = certificationDecision(supported);
  const thresholds = thresholdsOutcome(load);
  if (report.summary.thresholds !== thresholds) found.problem({ code: 'THRESHOLDS_DIFFER', recorded: report.summary.thresholds, computed: thresholds });
  if (decision.certified !== manifest.certified) found.problem({ code: 'DECISION_DIFFERS', manifest: manifest.certified, supported: decision.certified, reasons: decision.reasons });
  else found.say({ code: 'DECISION_FOLLOWS', certified: manifest.certified });
}

/**
 * A profile's thresholds judged again from its recorded figures: those of the
 * built-in profile of that name (certification runs `smoke`), else the
 * recorded expressions. Undefined for a stress profile that broke: it is
 * judged on the last stage that held, whose figures a report does not keep.
 */
function judgedAgain(load: LoadResult): ThresholdResult[] | undefined {
  const builtin = builtinProfiles[load.profile];
  if ((builtin?.kind ?? load.kind) === 'ramp' && load.brokeAt) return undefined;
  const expressions: Threshold[] = builtin ? validateProfile(builtin) : load.thresholds.filter((t) => t.metric !== 'answered').map(({ expression, operation, metric, comparator, limit, unit }) => ({ expression, operation, metric, comparator, limit, unit }));
  // A report without the count of requests due (an earlier version's) is judged on what its figures show was sent.
  const { requests, errors } = load.overall;
  return judgeThresholds(load.profile, expressions, load, load.drift, load.answered ?? { answered: requests, due: requests + errors.timeouts + errors.socketErrors });
}
