/**
 * The checks of a bundle that judge again (certification/verify.ts): every
 * rule's and check's outcome recomputed by running the suite against the
 * transcript, each load threshold judged again from report.json's own
 * figures, and the certificate decision those support.
 */
import { WITHHELD_DIGEST } from '../core/boundary.js';
import { asPcError } from '../core/errors.js';
import { KEY_PLACEHOLDER, LETTERLESS_STAND_IN, redactorFor } from '../core/redact.js';
import { headerOf, TranscriptReplayer } from '../core/transcript.js';
import { runClients } from '../core/clients.js';
import type { CheckResult, ConformanceResult, LoadResult, Outcome, ThresholdResult } from '../result/model.js';
import { CERTIFICATION, certificationDecision, thresholdMeasure, thresholdsOutcome, verdictWithLoadFailures } from '../result/policy.js';
import { type AnyManifest, MANIFEST_FORMAT } from '../spec/manifest-schema.js';
import { runConformance } from '../suites/engine.js';
import { builtinProfiles, type Threshold, validateProfile } from '../suites/load/profiles.js';
import { judgeThresholds } from '../suites/load/run.js';
import { combine } from '../suites/recorder.js';
import { parseTranscript } from './transcript.js';
import type { Steps } from './verify-steps.js';

/** Requests of a diverging replay listed one by one; the rest are counted. */
const MAX_UNMATCHED_LISTED = 5;

/** A request as shown in a problem: the path relative to the target. */
const shown = (method: string, url: string, target: string, authorization: string) => ({
  method,
  path: url.startsWith(target) ? url.slice(target.length) : url,
  authorization,
});

/**
 * Runs the suite again with the transcript as its target and compares every
 * rule's and check's outcome with report.json's. Checks `load.*` are taken
 * as recorded (load cannot be replayed).
 */
export async function recompute(
  report: ConformanceResult,
  manifest: AnyManifest,
  transcriptBytes: Buffer | undefined,
  found: Steps,
): Promise<void> {
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
  const swappedSent = entries.some((e) =>
    headerOf(e.request.headers, 'authorization').includes(`<${KEY_PLACEHOLDER} with its letter case swapped>`),
  );
  const standIn = swappedSent || entries.length === 0 ? KEY_PLACEHOLDER : LETTERLESS_STAND_IN;
  // Requests the run did not send because they would have carried the key: the recomputation stops where the run did.
  const withheld = new Set([...JSON.stringify(report.rules).matchAll(WITHHELD_DIGEST)].map((m) => m[1]!));
  // Clients and names as the run drew them, or as bundles certified before they were drawn sent them.
  const disguise = report.options.disguise ?? 'fixed';
  const replayer = new TranscriptReplayer(entries, {
    baseUrl: manifest.target,
    redactor: redactorFor(standIn),
    withheld,
    shapes: runClients(disguise, manifest.seed).shapes,
  });
  let replayed: ConformanceResult;
  try {
    replayed = await runConformance({
      baseUrl: manifest.target,
      apiKey: standIn,
      seed: manifest.seed,
      numRuns: manifest.numRuns,
      concurrency: CERTIFICATION.concurrency,
      // Natural names (certifications since seeds are drawn) are derived from the seed alone; earlier bundles name a prefix.
      ...(report.options.names === 'natural'
        ? { names: 'natural' as const }
        : manifest.namePrefix === undefined
          ? {}
          : { namePrefix: manifest.namePrefix }),
      // The shapes the run was sent under (a manifest of format 2: none, the tool's own).
      ...(manifest.format === MANIFEST_FORMAT && manifest.fingerprints.length > 0 ? { fingerprints: manifest.fingerprints } : {}),
      strict: report.options.strict,
      load: 'none',
      transport: replayer,
      // The prelude as the run sent it: drawn, or in the fixed order of bundles certified before it was drawn.
      prelude: report.options.prelude ?? 'fixed',
      disguise,
      // The preflight's page as the run asked for it: drawn under a drawn prelude; GET /pets?limit=1 (then the setup's
      // own list) in bundles certified before the preflight's page was also the setup's first list; else 100.
      ...preflightOf(entries),
    });
  } catch (error) {
    return found.problem({ code: 'RECOMPUTATION_FAILED', detail: asPcError(error).message });
  }

  const loadSeqs = new Set(entries.filter((e) => e._meta.check.startsWith('load.')).map((e) => e._seq));
  const before = found.problems.length;
  for (const u of replayer.unmatched.slice(0, MAX_UNMATCHED_LISTED))
    found.problem({ code: 'REQUEST_NOT_IN_TRANSCRIPT', request: { method: u.method, path: u.path, authorization: u.authorization } });
  if (replayer.unmatched.length > MAX_UNMATCHED_LISTED)
    found.problem({ code: 'MORE_REQUESTS_NOT_IN_TRANSCRIPT', count: replayer.unmatched.length - MAX_UNMATCHED_LISTED });
  const unused = replayer.unused().filter((e) => !loadSeqs.has(e._seq));
  if (unused.length > 0) {
    const first = unused[0]!;
    found.problem({
      code: 'EXCHANGES_NOT_REPLAYED',
      count: unused.length,
      first: {
        seq: first._seq,
        ...shown(first.request.method, first.request.url, manifest.target, headerOf(first.request.headers, 'authorization')),
      },
    });
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
        found.problem({
          code: 'CHECK_DIFFERS',
          rule: rule.id,
          check: check.id,
          recorded: check.outcome,
          recomputed: again.outcome,
          ...(message === undefined ? {} : { message }),
        });
      }
    }
    for (const missing of replayedChecks.values()) {
      outcomes.push(missing.outcome);
      found.problem({ code: 'CHECK_NOT_IN_REPORT', rule: rule.id, check: missing.id, recomputed: missing.outcome });
    }
    const expected = combine(outcomes);
    if (recorded.outcome !== expected)
      found.problem({ code: 'RULE_DIFFERS', rule: rule.id, severity: rule.severity, recorded: recorded.outcome, recomputed: expected });
  }
  for (const extra of recordedRules.keys()) found.problem({ code: 'RULE_UNKNOWN', rule: extra });

  // The verdict, from the recomputed rules plus the load checks as recorded.
  const failedLoad = report.rules.filter((r) => r.checks.some((c) => c.id.startsWith('load.') && c.outcome === 'fail'));
  const verdict = verdictWithLoadFailures(replayed.summary.verdict, failedLoad, report.options.strict);
  if (report.summary.verdict !== verdict) found.problem({ code: 'VERDICT_DIFFERS', recorded: report.summary.verdict, recomputed: verdict });

  if (found.problems.length === before)
    found.say({ code: 'VERDICTS_AGREE', rules: replayed.rules.length, exchanges: entries.length - loadSeqs.size });
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
export function checkDecision(report: ConformanceResult, manifest: AnyManifest, found: Steps): void {
  const load = report.load.map((recorded) => {
    const judged = judgedAgain(recorded);
    if (!judged) return recorded;
    const ids = [...new Set([...recorded.thresholds, ...judged].map((t) => t.id))];
    for (const id of ids) {
      const was = recorded.thresholds.find((t) => t.id === id);
      const is = judged.find((t) => t.id === id);
      if (was?.outcome !== is?.outcome)
        found.problem({
          code: 'THRESHOLD_DIFFERS',
          profile: recorded.profile,
          threshold: id,
          recorded: was?.outcome ?? 'absent',
          recomputed: is?.outcome ?? 'absent',
          ...(is ? { measure: thresholdMeasure(is) } : {}),
        });
    }
    return { ...recorded, thresholds: judged };
  });
  const supported = { ...report, load };
  const decision = certificationDecision(supported);
  const thresholds = thresholdsOutcome(load);
  if (report.summary.thresholds !== thresholds)
    found.problem({ code: 'THRESHOLDS_DIFFER', recorded: report.summary.thresholds, computed: thresholds });
  if (decision.certified !== manifest.certified)
    found.problem({ code: 'DECISION_DIFFERS', manifest: manifest.certified, supported: decision.certified, reasons: decision.reasons });
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
  const expressions: Threshold[] = builtin
    ? validateProfile(builtin)
    : load.thresholds
        .filter((t) => t.metric !== 'answered')
        .map(({ expression, operation, metric, comparator, limit, unit }) => ({ expression, operation, metric, comparator, limit, unit }));
  // A report without the count of requests due (an earlier version's) is judged on what its figures show was sent; one
  // without `boundBy` (also earlier) set no threshold aside for its generator's load, and is judged as it was.
  const { requests, errors } = load.overall;
  return judgeThresholds(
    load.profile,
    expressions,
    load,
    load.drift,
    load.answered ?? { answered: requests, due: requests + errors.timeouts + errors.socketErrors },
    load.generatorLoad.boundBy ? load.generatorLoad : undefined,
  );
}

/** The preflight's page size as the recorded run asked for it (its request's `limit`, or none), when the transcript holds it. */
function preflightOf(entries: readonly { _meta: { check: string }; request: { url: string } }[]): { preflightLimit?: number | 'none' } {
  const url = entries.find((e) => e._meta.check === 'preflight')?.request.url;
  const match = url === undefined ? null : /\/pets(?:\?limit=(\d{1,3}))?$/.exec(url);
  if (!match) return {};
  return { preflightLimit: match[1] === undefined ? 'none' : Number(match[1]) };
}
