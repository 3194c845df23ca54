/**
 * The one wording of a verification: each step of certification/problems.ts
 * in English, one line whatever the bundle holds, and `verify`'s whole output.
 */
import { oneLine } from '../core/one-line.js';
import { FINGERPRINTS } from '../core/fingerprints.js';
import { type AnyManifest, MANIFEST_FORMAT, MANIFEST_FORMAT_2 } from '../spec/manifest-schema.js';
import { describeViolations } from '../spec/validate.js';
import type { ConformanceResult } from '../result/model.js';
import type { Difference } from './binding.js';
import { BUNDLE } from './manifest.js';
import type { ShownRequest, VerifyStep } from './problems.js';
import type { Verification } from './verify.js';

/** How a step is marked: a problem, a check that held, or a note. */
export type StepMark = '✗' | '✓' | '-';

/** A step in words: its mark and one line (controls in what the bundle holds shown as `\uXXXX`). */
export function describeStep(step: VerifyStep): { mark: StepMark; text: string } {
  const [mark, text] = words(step);
  return { mark, text: oneLine(text) };
}

function words(step: VerifyStep): [StepMark, string] {
  switch (step.code) {
    case 'NOT_A_BUNDLE':
      return ['✗', step.layer === 'gzip' ? `not a .tar.gz (${step.detail})` : `not a tar archive inside the gzip (${step.detail})`];
    case 'ENTRY_NOT_A_FILE':
      return ['✗', `${JSON.stringify(step.name)}: a ${step.type} entry, not a file (a bundle holds only files)`];
    case 'ENTRY_NOT_FLAT':
      return ['✗', `${JSON.stringify(step.name)}: a path, not a file name (a bundle holds flat files only)`];
    case 'ENTRY_REPEATED':
      return ['✗', `${step.name}: appears twice in the archive`];
    case 'ENTRY_TOO_LARGE':
      return [
        '✗',
        `${step.name}: ${step.size} bytes, more than a bundle's ${step.known ? step.name : 'file'} may hold (${step.limit}); not read`,
      ];
    case 'ARCHIVE_DAMAGED':
      return ['✗', `the archive is damaged after its first ${step.entries} entries (${step.detail}); the rest was not read`];
    case 'ARCHIVE_TOO_LARGE':
      return ['✗', `the archive holds more than ${step.limit} bytes uncompressed; the rest of the archive was not read`];
    case 'TOO_MANY_ENTRIES':
      return ['✗', `${step.entries} entries in the archive, more than a bundle holds (${step.limit}); the first ${step.limit} were read`];
    case 'CHECK_ABORTED':
      return ['✗', `the bundle could not be checked to the end: ${step.detail}`];
    case 'MANIFEST_MISSING':
      return ['✗', `${BUNDLE.manifest} is missing: nothing in the bundle can be checked`];
    case 'MANIFEST_INVALID': {
      const { defect } = step;
      const why =
        defect.kind === 'not-json'
          ? 'not JSON'
          : defect.kind === 'format'
            ? `not a certification manifest this version reads (format ${JSON.stringify(defect.format)}, expected "${MANIFEST_FORMAT}" or "${MANIFEST_FORMAT_2}")`
            : `not a certification manifest (${describeViolations(defect.violations, 1)})`;
      return ['✗', `${BUNDLE.manifest}: ${why}; nothing else in the bundle can be checked`];
    }
    case 'SIGNATURE_NOT_CHECKED':
      return [
        '-',
        `signature: not checked (no public key given)${step.signed ? `; the bundle has one (${BUNDLE.signature})` : '; the bundle is unsigned'}`,
      ];
    case 'SIGNATURE_MISSING':
      return ['✗', `signature: ${BUNDLE.signature} is missing, but a public key was given: the bundle is unsigned`];
    case 'SIGNATURE_INVALID':
      return [
        '✗',
        `signature: ${BUNDLE.signature} is not a valid signature of ${BUNDLE.manifest} by the given key (signed by another key, or the manifest changed after signing)`,
      ];
    case 'SIGNATURE_VALID':
      return ['✓', `signature: ${BUNDLE.manifest} is signed by the given Ed25519 key`];
    case 'FILE_MISSING':
      return ['✗', `${step.file}: missing from the bundle (the manifest lists it)`];
    case 'HASH_MISMATCH':
      return [
        '✗',
        `${step.file}: changed since the manifest was made (its sha256 is ${step.actual.slice(0, 16)}…, the manifest says ${step.expected.slice(0, 16)}…)`,
      ];
    case 'HASH_NOT_LISTED':
      return ['✗', `${step.file}: the manifest has no hash for it`];
    case 'FILE_EXTRA':
      return ['✗', `${step.file}: extra file, not in the manifest`];
    case 'FILES_MATCH':
      return ['✓', `files: all ${step.count} match their sha256 in ${BUNDLE.manifest}`];
    case 'TOOL_VERSION_DIFFERS':
      return ['✗', `suite: the bundle was made with petstore-conformance ${step.bundle}; this is ${step.installed}`];
    case 'SUITE_CODE_DIFFERS':
      return [
        '-',
        `suite: made with petstore-conformance ${step.version} from other code (suite hash ${step.bundle}; this installation's is ${step.installed}): every verdict is judged again with this installation's code`,
      ];
    case 'INTERFACE_VERSION_DIFFERS':
      return ['✗', `suite: the bundle tests interface version ${step.bundle}; this suite tests ${step.installed}`];
    case 'SUITE_MATCHES':
      return [
        '✓',
        `suite: made with petstore-conformance ${step.version} and the same suite code as this installation (${step.suiteHash})`,
      ];
    case 'PRODUCT_INVALID':
      return ['✗', `${BUNDLE.product}: ${step.detail}`];
    case 'REPORT_INVALID':
      return [
        '✗',
        `${BUNDLE.report}: ${step.defect.kind === 'not-json' ? 'not JSON' : `not a report of this suite (${describeViolations(step.defect.violations, 1)})`}`,
      ];
    case 'REPORT_UNREADABLE':
      return ['✗', `the verdicts cannot be recomputed without a readable ${BUNDLE.report}`];
    case 'PRODUCT_MANIFEST_DISAGREE':
      return [
        '✗',
        `${BUNDLE.product} and ${BUNDLE.manifest} name different products: ${step.field} ${JSON.stringify(step.product)} against ${JSON.stringify(step.manifest)}`,
      ];
    case 'PRODUCT_DIFFERS':
      return [
        '✗',
        `product: the bundle was certified for ${step.bundle.name} ${step.bundle.version}, not for the product given: ${differences(step.differences)}`,
      ];
    case 'PRODUCT_NOT_NAMED':
      return ['✗', `product: the bundle names no product to compare with the one given (${BUNDLE.product} missing or invalid)`];
    case 'PRODUCT_MATCHES':
      return [
        '✓',
        `product: certified for the product given, ${step.product.name} ${step.product.version} (contact: ${step.product.contact})`,
      ];
    case 'BASE_URL_DIFFERS':
      return [
        '✗',
        `base URL: the bundle was certified at ${step.bundle}, not at the base URL given (${step.given}): ${differences(step.differences)}`,
      ];
    case 'BASE_URL_MATCHES':
      return ['✓', `base URL: certified at the base URL given, ${step.target}`];
    case 'REPORT_MANIFEST_DISAGREE':
      return [
        '✗',
        `${BUNDLE.report} and ${BUNDLE.manifest} disagree on ${step.field}: ${JSON.stringify(step.report)} against ${JSON.stringify(step.manifest)}`,
      ];
    case 'TRANSCRIPT_MISSING':
      return ['✗', `verdicts: not recomputed: ${BUNDLE.transcript} is missing`];
    case 'TRANSCRIPT_INVALID': {
      const { defect } = step;
      const why =
        defect.kind === 'not-json'
          ? 'not JSON'
          : defect.kind === 'seq-repeated'
            ? `/log/entries/${defect.entry} repeats _seq ${defect.seq}`
            : describeViolations(defect.violations);
      return ['✗', `verdicts: not recomputed: ${BUNDLE.transcript}: ${why}`];
    }
    case 'RECOMPUTATION_FAILED':
      return ['✗', `verdicts: not recomputed: ${step.detail}`];
    case 'REQUEST_NOT_IN_TRANSCRIPT':
      return [
        '✗',
        `transcript: the recomputation sent ${request(step.request)}, which the transcript does not hold: the run diverges from the recorded one`,
      ];
    case 'MORE_REQUESTS_NOT_IN_TRANSCRIPT':
      return ['✗', `transcript: ${step.count} more request(s) of the recomputation are not in the transcript`];
    case 'EXCHANGES_NOT_REPLAYED':
      return [
        '✗',
        `transcript: ${step.count} recorded exchange(s) were never asked for by the recomputation (first: seq ${step.first.seq}, ${request(step.first)})`,
      ];
    case 'RULE_NOT_IN_REPORT':
      return ['✗', `${step.rule}: not in ${BUNDLE.report}; recomputed from the transcript: ${step.recomputed}`];
    case 'RULE_UNKNOWN':
      return ['✗', `${step.rule}: in ${BUNDLE.report}, but not a rule of this suite`];
    case 'RULE_DIFFERS':
      return [
        '✗',
        `${step.rule} (${step.severity}): ${BUNDLE.report} says ${step.recorded}; recomputed from the transcript: ${step.recomputed}`,
      ];
    case 'CHECK_UNKNOWN':
      return ['✗', `${step.rule}: ${BUNDLE.report} has a check ${step.check} this suite does not run for it`];
    case 'CHECK_NOT_IN_REPORT':
      return ['✗', `${step.rule}: check ${step.check} (${step.recomputed} when recomputed) is missing from ${BUNDLE.report}`];
    case 'CHECK_DIFFERS':
      return [
        '✗',
        `${step.rule}: check ${step.check} is ${step.recorded} in ${BUNDLE.report}, but ${step.recomputed} when recomputed from the transcript${step.message === undefined ? '' : `: ${step.message}`}`,
      ];
    case 'VERDICT_DIFFERS':
      return ['✗', `verdict: ${BUNDLE.report} says ${step.recorded}; recomputed from the transcript: ${step.recomputed}`];
    case 'VERDICTS_AGREE':
      return [
        '✓',
        `verdicts: all ${step.rules} rules and their checks, recomputed from ${step.exchanges} recorded exchanges with this installation's validators, agree with ${BUNDLE.report}`,
      ];
    case 'INTERRUPTED_NOT_RECOMPUTED':
      return [
        '-',
        `verdicts: not recomputed: ${step.signal} stopped the run before it finished, and no recomputation can stop where it did; ${BUNDLE.transcript} records what ran, and the bundle can never be a certificate`,
      ];
    case 'LOAD_NOT_RECOMPUTED':
      return [
        '-',
        'load: not recomputed (the load.* checks and figures cannot be replayed): only the hashes, and the signature when checked, vouch for them; the thresholds are judged again from those figures',
      ];
    case 'THRESHOLD_DIFFERS':
      return [
        '✗',
        `load: ${step.threshold} (profile ${step.profile}) is ${step.recorded} in ${BUNDLE.report}, but ${step.recomputed} when judged again from its own figures${step.measure === undefined ? '' : ` (${step.measure})`}`,
      ];
    case 'THRESHOLDS_DIFFER':
      return ['✗', `load: ${BUNDLE.report} says thresholds ${step.recorded}, but its load results say ${step.computed}`];
    case 'DECISION_DIFFERS':
      return [
        '✗',
        `certificate: ${BUNDLE.manifest} says ${step.manifest ? 'certified' : 'not certified'}, but ${BUNDLE.report} ${step.supported ? 'supports a certificate' : `does not support one (${step.reasons.join('; ')})`}`,
      ];
    case 'DECISION_FOLLOWS':
      return ['✓', `certificate: "${step.certified ? 'certified' : 'not certified'}" in ${BUNDLE.manifest} follows from ${BUNDLE.report}`];
  }
}

/** What differs, field by field: `the port differs (bundle "8080", given "8081")`. */
const differences = (list: readonly Difference[]) =>
  list.map((d) => `the ${d.field} differs (bundle ${JSON.stringify(d.bundle)}, given ${JSON.stringify(d.given)})`).join('; ');

const request = (r: ShownRequest) =>
  `${r.method} ${r.path} (${r.authorization ? `authorization: ${r.authorization}` : 'no Authorization header'})`;

/**
 * `verify`'s output: what the bundle is about (`name`: the bundle as the user
 * named it), every step with its mark, and the verdict on the bundle.
 */
export function renderVerification(verification: Verification, name: string): string {
  const { manifest, report, problems } = verification;
  const header = [`verifying ${oneLine(name)}`];
  // The manifest's product when it names one (the signature covers it), else product.json's.
  const product = manifest?.format === MANIFEST_FORMAT ? manifest.product : verification.product;
  if (product) header.push(`product:  ${oneLine(product.name)} ${oneLine(product.version)} (contact: ${oneLine(product.contact)})`);
  if (manifest) {
    const { environment: env } = manifest;
    header.push(
      `base URL: ${oneLine(manifest.target)}`,
      `tested:   from ${oneLine(manifest.startedAt)} to ${oneLine(manifest.finishedAt)}, seed ${manifest.seed}`,
      `clients:  ${clientsOf(manifest)}`,
      `tool:     petstore-conformance ${oneLine(manifest.tool.version)} on Node ${oneLine(env.node)}, ${oneLine(`${env.platform} ${env.release} ${env.arch}`)}`,
    );
  }
  if (report) header.push(connectionLine(report));
  if (manifest)
    header.push(
      `manifest: ${manifest.certified ? 'CERTIFIED' : `NOT CERTIFIED (${oneLine(manifest.reasons.join('; ') || 'no reason given')})`}`,
    );
  const lines = verification.steps.map((step) => {
    const { mark, text } = describeStep(step);
    return `${mark} ${text}`;
  });
  const verdict =
    problems.length === 0
      ? verification.steps.some((step) => step.code === 'INTERRUPTED_NOT_RECOMPUTED')
        ? `VERIFIED: every file matches the manifest; the run was interrupted, so no verdict was recomputed; the bundle's decision: ${manifest?.certified ? 'CERTIFIED' : 'NOT CERTIFIED'}`
        : `VERIFIED: every file matches the manifest and every recomputed verdict matches ${BUNDLE.report}; the bundle's decision: ${manifest?.certified ? 'CERTIFIED' : 'NOT CERTIFIED'}`
      : `NOT VERIFIED: ${problems.length} problem(s) above`;
  return `${[...header, '', ...lines, '', verdict].join('\n')}\n`;
}

/** The client shapes the run was sent under; a manifest of format 2 predates them (the tool's own shape). */
function clientsOf(manifest: AnyManifest): string {
  if (manifest.format === MANIFEST_FORMAT_2)
    return "the tool's own (petstore-conformance); a manifest of format 2 records no client fingerprints";
  if (manifest.fingerprints.length === 0) return "the tool's own (petstore-conformance)";
  return manifest.fingerprints.map((id) => `${id} (${FINGERPRINTS[id].label})`).join(', ');
}

/** How the run reached its target, as report.json records it (TLS verification first: it is what a reader needs to know). */
function connectionLine(report: ConformanceResult): string {
  const { options } = report;
  const parts = [
    options.insecure
      ? 'TLS NOT verified (any certificate accepted)'
      : report.target.startsWith('https:')
        ? `TLS verified${options.customCa ? ' with a private CA' : ''}`
        : 'plain http',
  ];
  const c = options.connection;
  if (c?.clientCertificate) parts.push('client certificate presented');
  if (c?.proxy) parts.push(`proxy ${c.proxy}`);
  if (c && c.headers.length > 0)
    parts.push(`extra headers ${c.headers.join(', ')}${c.secretHeaders.length > 0 ? ` (secret: ${c.secretHeaders.join(', ')})` : ''}`);
  return `connection: ${oneLine(parts.join('; '))}`;
}
