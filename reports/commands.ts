/**
 * Commands the reports print for a reader to copy: one wording for the console
 * and report.html.
 */
import type { ConformanceResult, Finding } from '../suites/model.js';

/** A word as a POSIX shell reads it: as it is when it needs no quoting, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Where {@link replayCommand} takes the key from, for the line above it. */
export const REPLAY_KEY_SOURCE = 'the key comes from --api-key or $PETSTORE_API_KEY';

/** The command that sends a recorded failure again and judges the answer: `npx petstore-conformance replay <report.json> <case id>`. */
export function replayCommand(reportJson: string, caseId: string): string {
  return `npx petstore-conformance replay ${shellWord(reportJson)} ${caseId}`;
}

/**
 * The command that runs the suite again with the run's seed and settings,
 * selecting the rules that reproduce a finding (`finding.rerun`); the key
 * comes from $PETSTORE_API_KEY.
 */
export function rerunCommand(run: Pick<ConformanceResult, 'target' | 'seed' | 'numRuns' | 'options'>, rerun: Finding['rerun']): string {
  const { load, strict, insecure } = run.options;
  const flags = [`--base-url ${shellWord(run.target)}`, '--api-key "$PETSTORE_API_KEY"', `--seed ${run.seed}`, `--num-runs ${run.numRuns}`, `--load ${shellWord(load)}`, ...(strict ? ['--strict'] : []), ...(insecure ? ['--insecure'] : [])];
  return `npx petstore-conformance ${flags.join(' ')} --only ${rerun.only.join(',')}`;
}
