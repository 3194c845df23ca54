/**
 * Commands the reports print for a reader to copy: one wording for the console
 * and report.html.
 */
import type { ConformanceResult, Finding } from '../result/model.js';

/** A word as a POSIX shell reads it: as it is when it needs no quoting, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Where {@link replayCommand} takes the key from, for the line above it. */
export const REPLAY_KEY_SOURCE = 'the key comes from $PETSTORE_API_KEY';

// No command printed here carries the key, or `--api-key` with a variable: a command line is readable by every user of
// the machine (ps, /proc/<pid>/cmdline), so the CLI reads PETSTORE_API_KEY itself.

/**
 * The command that sends a recorded failure again to `target` (the run's base
 * URL: replay sends only to an origin named on its command line) and judges
 * the answer: `npx petstore-conformance replay <report.json> <case id> --base-url <target>`.
 */
export function replayCommand(reportJson: string, caseId: string, target: string): string {
  return `npx petstore-conformance replay ${shellWord(reportJson)} ${caseId} --base-url ${shellWord(target)}`;
}

/**
 * The command that runs the suite again with the run's seed and settings,
 * selecting the rules that reproduce a finding (`finding.rerun`); the CLI
 * reads the key from $PETSTORE_API_KEY itself.
 */
export function rerunCommand(run: Pick<ConformanceResult, 'target' | 'seed' | 'numRuns' | 'options'>, rerun: Finding['rerun']): string {
  const { load, strict, insecure } = run.options;
  const flags = [
    `--base-url ${shellWord(run.target)}`,
    `--seed ${run.seed}`,
    `--num-runs ${run.numRuns}`,
    `--load ${shellWord(load)}`,
    ...(strict ? ['--strict'] : []),
    ...(insecure ? ['--insecure'] : []),
  ];
  return `npx petstore-conformance ${flags.join(' ')} --only ${rerun.only.join(',')}`;
}
