/**
 * `petstore-conformance verify bundle.tar.gz [--public-key key.pem]`: checks a
 * certification bundle offline (it opens no connection at all) and says, one
 * line each, everything that does not match:
 *
 * - each file against its hash in manifest.json (missing, extra, changed);
 * - the Ed25519 signature of manifest.json, when a public key is given;
 * - the tool version and the suite's content hash against this installation;
 * - every rule's outcome, recomputed by running the suite again against the
 *   transcript (same seed, runs and name prefix; the key a placeholder) with
 *   the current validators, against report.json's;
 * - the certificate decision against what report.json supports.
 *
 * Load results cannot be replayed (checks `load.*`, thresholds, figures): the
 * hashes, and the signature when checked, are all that vouch for them.
 *
 * Exit codes: 0 everything matches, 1 something does not, 2 usage error (no
 * such file, not a .tar.gz, an unreadable key).
 */
import { verify as verifySignature, type KeyObject } from 'node:crypto';
import { resolve } from 'node:path';
import type { Options } from 'yargs';
import { asPcError, PcError } from '../core/errors.js';
import { WITHHELD_DIGEST } from '../core/boundary.js';
import { KEY_PLACEHOLDER, LETTERLESS_STAND_IN, redactorFor } from '../core/redact.js';
import { parseTranscript, TranscriptReplayer, type TranscriptEntry } from '../core/transcript.js';
import { TOOL_VERSION } from '../core/version.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import { runConformance } from '../suites/engine.js';
import type { CheckResult, ConformanceResult, Outcome } from '../suites/model.js';
import { reportValidator } from './report-file.js';
import { combine } from '../suites/recorder.js';
import { readBundle } from './bundle.js';
import { BUNDLE, CERTIFICATION, certificationDecision, checkProduct, HASHED_FILES, type Manifest, MANIFEST_FORMAT, readEd25519Key, sha256, suiteHash } from './certification.js';
import type { Io } from './io.js';

export const verifyOptions: Record<string, Options> = {
  'public-key': { type: 'string', describe: 'PEM file of the Ed25519 public key the manifest must be signed with' },
};

/** Requests of a diverging replay listed one per line; the rest are counted. */
const MAX_UNMATCHED_LISTED = 5;

/** What verify found: problems fail it; notes and passes are said. */
class Findings {
  readonly lines: string[] = [];
  problems = 0;
  ok(text: string): void {
    this.lines.push(`✓ ${text}`);
  }
  note(text: string): void {
    this.lines.push(`- ${text}`);
  }
  problem(text: string): void {
    this.problems++;
    this.lines.push(`✗ ${text}`);
  }
}

/** Runs `verify`; returns the exit code. Never throws. */
export async function verifyCommand(bundlePath: string | undefined, options: { publicKey?: string }, io: Pick<Io, 'stdout' | 'stderr' | 'env' | 'cwd'>): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  try {
    if (!bundlePath) throw new PcError('PC_ERR_USAGE', 'verify needs the bundle: petstore-conformance verify bundle.tar.gz');
    const publicKey = options.publicKey ? await readEd25519Key(resolve(cwd, options.publicKey), options.publicKey, '--public-key') : undefined;
    const { files, hashes, oddities } = await readBundle(resolve(cwd, bundlePath), bundlePath);
    const found = new Findings();
    const header: string[] = [`verifying ${oneLine(bundlePath)}`];
    for (const oddity of oddities) found.problem(oneLine(oddity));
    let certified = false;
    try {
      certified = await check(files, hashes, publicKey, found, header);
    } catch (error) {
      // Whatever a bundle holds, it is a problem of the bundle, said as one: never an internal error.
      found.problem(`the bundle could not be checked to the end: ${oneLine((error as Error).message.split('\n')[0] ?? String(error))}`);
    }
    const verdict = found.problems === 0 ? `VERIFIED: every file matches the manifest and every recomputed verdict matches report.json; the bundle's decision: ${certified ? 'CERTIFIED' : 'NOT CERTIFIED'}` : `NOT VERIFIED: ${found.problems} problem(s) above`;
    io.stdout.write(`${[...header, '', ...found.lines, '', verdict].join('\n')}\n`);
    return found.problems === 0 ? 0 : 1;
  } catch (error) {
    const pcError = error instanceof PcError ? error : asPcError(error);
    io.stderr.write(`petstore-conformance: error: ${oneLine(pcError.message.split('\n')[0]!)}${pcError.code === 'PC_ERR_USAGE' ? ' (see verify --help)' : ''}\n`);
    if (io.env.PETSTORE_CONFORMANCE_DEBUG && error instanceof Error) io.stderr.write(`${error.stack}\n`);
    return pcError.exitCode;
  }
}

/** Runs every check into `found`; returns the manifest's decision (false when there is no readable manifest). */
async function check(files: Map<string, Buffer>, hashes: Map<string, string>, publicKey: KeyObject | undefined, found: Findings, header: string[]): Promise<boolean> {
  const manifestBytes = files.get(BUNDLE.manifest);
  if (!manifestBytes) {
    found.problem(`${BUNDLE.manifest} is missing: nothing in the bundle can be checked`);
    return false;
  }
  // The signature covers the manifest's bytes: it is checked before they are read.
  checkSignature(files, manifestBytes, publicKey, found);
  const manifest = parseManifest(manifestBytes);
  if (typeof manifest === 'string') {
    found.problem(`${BUNDLE.manifest}: ${manifest}; nothing else in the bundle can be checked`);
    return false;
  }
  checkHashes(files, hashes, manifest, found);
  checkSuite(manifest, found);

  const product = files.get(BUNDLE.product);
  if (product) {
    const checked = checkProduct(product.toString('utf8'));
    if ('error' in checked) found.problem(`${BUNDLE.product}: ${checked.error}`);
    else header.push(`product: ${oneLine(checked.product.name)} ${oneLine(checked.product.version)} (contact: ${oneLine(checked.product.contact)})`);
  }
  header.push(
    `target:  ${oneLine(manifest.target)}, tested from ${manifest.startedAt} to ${manifest.finishedAt}`,
    `         with petstore-conformance ${oneLine(manifest.tool.version)} on Node ${oneLine(manifest.environment.node)}, ${oneLine(`${manifest.environment.platform} ${manifest.environment.release} ${manifest.environment.arch}`)}`,
    `manifest: ${manifest.certified ? 'CERTIFIED' : `NOT CERTIFIED (${oneLine(manifest.reasons.join('; ') || 'no reason given')})`}`,
  );

  const report = parseReport(files.get(BUNDLE.report), found);
  if (!report) {
    found.problem('the verdicts cannot be recomputed without a readable report.json');
    return manifest.certified;
  }
  header.push(`         ${connectionLine(report)}`);
  checkReportAgainstManifest(report, manifest, found);
  await recompute(report, manifest, files.get(BUNDLE.transcript), found);
  checkDecision(report, manifest, found);
  return manifest.certified;
}

function parseManifest(bytes: Buffer): Manifest | string {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  const m = value as Manifest;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return 'not a JSON object';
  if (m.format !== MANIFEST_FORMAT) return `not a certification manifest this version reads (format ${JSON.stringify(m.format)}, expected "${MANIFEST_FORMAT}")`;
  const strings = ['suiteHash', 'interfaceVersion', 'load', 'namePrefix', 'startedAt', 'finishedAt', 'target'] as const;
  for (const key of strings) if (typeof m[key] !== 'string') return `"${key}" is missing or not a string`;
  for (const key of ['seed', 'numRuns'] as const) if (!Number.isInteger(m[key])) return `"${key}" is missing or not an integer`;
  if (typeof m.tool !== 'object' || m.tool === null || typeof m.tool.version !== 'string') return '"tool" has no version';
  if (typeof m.environment !== 'object' || m.environment === null || !['node', 'platform', 'release', 'arch'].every((k) => typeof (m.environment as Record<string, unknown>)[k] === 'string')) return '"environment" needs node, platform, release and arch';
  if (typeof m.certified !== 'boolean') return '"certified" is missing or not true/false';
  if (!Array.isArray(m.reasons) || !m.reasons.every((r) => typeof r === 'string')) return '"reasons" is not a list of strings';
  if (typeof m.files !== 'object' || m.files === null || Array.isArray(m.files) || !Object.values(m.files).every((h) => typeof h === 'string')) return '"files" is not a map of file names to hashes';
  return m;
}

function checkHashes(files: Map<string, Buffer>, hashes: Map<string, string>, manifest: Manifest, found: Findings): void {
  let matching = 0;
  for (const [name, expected] of Object.entries(manifest.files)) {
    // Every file was hashed as it was read, the ones too large to keep included.
    const actual = hashes.get(name) ?? (files.has(name) ? sha256(files.get(name)!) : undefined);
    if (actual === undefined) found.problem(`${oneLine(name)}: missing from the bundle (the manifest lists it)`);
    else if (actual !== expected) found.problem(`${oneLine(name)}: changed since the manifest was made (its sha256 is ${actual.slice(0, 16)}…, the manifest says ${oneLine(expected.slice(0, 16))}…)`);
    else matching++;
  }
  for (const name of HASHED_FILES) if (!Object.hasOwn(manifest.files, name)) found.problem(`${name}: the manifest has no hash for it`);
  for (const name of new Set([...files.keys(), ...hashes.keys()])) {
    if (name !== BUNDLE.manifest && name !== BUNDLE.signature && !Object.hasOwn(manifest.files, name)) found.problem(`${oneLine(name)}: extra file, not in the manifest`);
  }
  if (matching === Object.keys(manifest.files).length && matching > 0) found.ok(`files: all ${matching} match their sha256 in ${BUNDLE.manifest}`);
}

function checkSignature(files: Map<string, Buffer>, manifestBytes: Buffer, publicKey: KeyObject | undefined, found: Findings): void {
  const signature = files.get(BUNDLE.signature);
  if (!publicKey) {
    found.note(`signature: not checked (no --public-key given)${signature ? `; the bundle has one (${BUNDLE.signature})` : '; the bundle is unsigned'}`);
    return;
  }
  if (!signature) {
    found.problem(`signature: ${BUNDLE.signature} is missing, but a public key was given: the bundle is unsigned`);
    return;
  }
  const text = signature.toString('utf8').trim();
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  let valid = false;
  try {
    valid = bytes !== undefined && bytes.length === 64 && verifySignature(null, manifestBytes, publicKey, bytes);
  } catch {
    valid = false;
  }
  if (valid) found.ok(`signature: ${BUNDLE.manifest} is signed by the given Ed25519 key`);
  else found.problem(`signature: ${BUNDLE.signature} is not a valid signature of ${BUNDLE.manifest} by the given key (signed by another key, or the manifest changed after signing)`);
}

function checkSuite(manifest: Manifest, found: Findings): void {
  const here = suiteHash();
  let same = true;
  if (manifest.tool.version !== TOOL_VERSION) {
    same = false;
    found.problem(`suite: the bundle was made with petstore-conformance ${oneLine(manifest.tool.version)}; this is ${TOOL_VERSION}`);
  }
  if (manifest.suiteHash !== here) {
    same = false;
    found.problem(`suite: the bundle was made with other code (suite hash ${oneLine(manifest.suiteHash)}; this installation's is ${here})`);
  }
  if (manifest.interfaceVersion !== INTERFACE_VERSION) {
    same = false;
    found.problem(`suite: the bundle tests interface version ${oneLine(manifest.interfaceVersion)}; this suite tests ${INTERFACE_VERSION}`);
  }
  if (same) found.ok(`suite: made with petstore-conformance ${TOOL_VERSION} and the same suite code as this installation (${here})`);
}


function parseReport(bytes: Buffer | undefined, found: Findings): ConformanceResult | undefined {
  if (!bytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    found.problem(`${BUNDLE.report}: not JSON`);
    return undefined;
  }
  const validate = reportValidator();
  if (!validate(value)) {
    const error = validate.errors?.[0];
    found.problem(`${BUNDLE.report}: not a report of this suite (${oneLine(`${error?.instancePath || '/'} ${error?.message ?? 'invalid'}`)})`);
    return undefined;
  }
  return value as ConformanceResult;
}

function checkReportAgainstManifest(report: ConformanceResult, manifest: Manifest, found: Findings): void {
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
  for (const [name, inReport, inManifest] of pairs) {
    if (inReport !== inManifest) found.problem(`${BUNDLE.report} and ${BUNDLE.manifest} disagree on ${name}: ${oneLine(JSON.stringify(inReport))} against ${oneLine(JSON.stringify(inManifest))}`);
  }
}

/**
 * Runs the suite again with the transcript as its target and compares every
 * rule's and check's outcome with report.json's. Checks `load.*` are taken
 * as recorded (load cannot be replayed).
 */
async function recompute(report: ConformanceResult, manifest: Manifest, transcriptBytes: Buffer | undefined, found: Findings): Promise<void> {
  if (!transcriptBytes) {
    found.problem(`verdicts: not recomputed: ${BUNDLE.transcript} is missing`);
    return;
  }
  let entries: TranscriptEntry[];
  try {
    entries = parseTranscript(transcriptBytes.toString('utf8'));
  } catch (error) {
    found.problem(`verdicts: not recomputed: ${BUNDLE.transcript} ${oneLine((error as Error).message)}`);
    return;
  }
  // The recomputation's key: the placeholder, or one without letters when the recorded key had none (its
  // letter-case-swapped variant was never sent), so that it sends exactly the requests the run sent.
  const swappedSent = entries.some((e) => Object.entries(e.request.headers).some(([name, value]) => name.toLowerCase() === 'authorization' && value.includes(`<${KEY_PLACEHOLDER} with its letter case swapped>`)));
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
      namePrefix: manifest.namePrefix,
      strict: report.options.strict,
      load: 'none',
      transport: replayer,
    });
  } catch (error) {
    found.problem(`verdicts: not recomputed: ${oneLine((error instanceof PcError ? error : asPcError(error)).message)}`);
    return;
  }

  const loadSeqs = new Set(entries.filter((e) => e.meta.check.startsWith('load.')).map((e) => e.seq));
  const before = found.problems;
  const describeRequest = (method: string, path: string, authorization: string) => `${method} ${oneLine(path)} (${authorization ? `authorization: ${oneLine(authorization)}` : 'no Authorization header'})`;
  if (replayer.unmatched.length > 0) {
    for (const u of replayer.unmatched.slice(0, MAX_UNMATCHED_LISTED)) found.problem(`transcript: the recomputation sent ${describeRequest(u.method, u.path, u.authorization)}, which the transcript does not hold: the run diverges from the recorded one`);
    if (replayer.unmatched.length > MAX_UNMATCHED_LISTED) found.problem(`transcript: ${replayer.unmatched.length - MAX_UNMATCHED_LISTED} more request(s) of the recomputation are not in the transcript`);
  }
  const unused = replayer.unused().filter((e) => !loadSeqs.has(e.seq));
  if (unused.length > 0) {
    const first = unused[0]!;
    found.problem(`transcript: ${unused.length} recorded exchange(s) were never asked for by the recomputation (first: seq ${first.seq}, ${describeRequest(first.request.method, first.request.url.startsWith(manifest.target) ? first.request.url.slice(manifest.target.length) : first.request.url, first.request.headers.authorization ?? '')})`);
  }

  const recordedRules = new Map(report.rules.map((r) => [r.id, r]));
  for (const rule of replayed.rules) {
    const recorded = recordedRules.get(rule.id);
    if (!recorded) {
      found.problem(`${rule.id}: not in ${BUNDLE.report}; recomputed from the transcript: ${rule.outcome}`);
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
        found.problem(`${rule.id}: ${BUNDLE.report} has a check ${oneLine(check.id)} this suite does not run for it`);
        continue;
      }
      if (again.outcome === check.outcome || explainedByLoad(check, again, loadSeqs)) outcomes.push(check.outcome);
      else {
        outcomes.push(again.outcome);
        found.problem(`${rule.id}: check ${check.id} is ${check.outcome} in ${BUNDLE.report}, but ${again.outcome} when recomputed from the transcript${again.outcome === 'fail' ? `: ${oneLine(again.findings.find((f) => f.outcome === 'fail')?.message ?? '')}` : ''}`);
      }
    }
    for (const missing of replayedChecks.values()) {
      outcomes.push(missing.outcome);
      found.problem(`${rule.id}: check ${missing.id} (${missing.outcome} when recomputed) is missing from ${BUNDLE.report}`);
    }
    const expected = combine(outcomes);
    if (recorded.outcome !== expected) found.problem(`${rule.id} (${rule.severity}): ${BUNDLE.report} says ${recorded.outcome}; recomputed from the transcript: ${expected}`);
  }
  for (const extra of recordedRules.keys()) found.problem(`${oneLine(extra)}: in ${BUNDLE.report}, but not a rule of this suite`);

  // The verdict, from the recomputed rules plus the load checks as recorded.
  const loadFailure = report.rules.some((r) => (r.severity === 'MUST' || report.options.strict) && r.checks.some((c) => c.id.startsWith('load.') && c.outcome === 'fail'));
  const verdict = replayed.summary.verdict === 'conformant' && loadFailure ? 'non-conformant' : replayed.summary.verdict;
  if (report.summary.verdict !== verdict) found.problem(`verdict: ${BUNDLE.report} says ${report.summary.verdict}; recomputed from the transcript: ${verdict}`);

  if (found.problems === before) found.ok(`verdicts: all ${replayed.rules.length} rules and their checks, recomputed from ${entries.length - loadSeqs.size} recorded exchanges with this installation's validators, agree with ${BUNDLE.report}`);
  found.note('load: not recomputed (the load.* checks, thresholds and figures cannot be replayed): only the hashes, and the signature when checked, vouch for them');
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

function checkDecision(report: ConformanceResult, manifest: Manifest, found: Findings): void {
  const decision = certificationDecision(report);
  const thresholdsFailed = report.load.some((l) => l.thresholds.some((t) => t.outcome === 'fail'));
  const thresholds = report.load.length === 0 ? 'none' : thresholdsFailed ? 'fail' : 'pass';
  if (report.summary.thresholds !== thresholds) found.problem(`load: ${BUNDLE.report} says thresholds ${report.summary.thresholds}, but its load results say ${thresholds}`);
  if (decision.certified !== manifest.certified) {
    found.problem(`certificate: ${BUNDLE.manifest} says ${manifest.certified ? 'certified' : 'not certified'}, but ${BUNDLE.report} ${decision.certified ? 'supports a certificate' : `does not support one (${oneLine(decision.reasons.join('; '))})`}`);
  } else {
    found.ok(`certificate: "${manifest.certified ? 'certified' : 'not certified'}" in ${BUNDLE.manifest} follows from ${BUNDLE.report}`);
  }
}

/** How the run reached its target, as report.json records it (TLS verification first: it is what a reader needs to know). */
function connectionLine(report: ConformanceResult): string {
  const { options } = report;
  const parts = [options.insecure ? 'TLS NOT verified (--insecure)' : report.target.startsWith('https:') ? `TLS verified${options.customCa ? ' with a private CA (--ca)' : ''}` : 'plain http'];
  const c = options.connection;
  if (c?.clientCertificate) parts.push('client certificate presented');
  if (c?.proxy) parts.push(`proxy ${c.proxy}`);
  if (c && c.headers.length > 0) parts.push(`extra headers ${c.headers.join(', ')}${c.secretHeaders.length > 0 ? ` (secret: ${c.secretHeaders.join(', ')})` : ''}`);
  return `connection: ${oneLine(parts.join('; '))}`;
}

/** One line, whatever the bundle holds: controls as `\uXXXX`. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
