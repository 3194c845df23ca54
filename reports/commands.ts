/**
 * Commands the reports print for a reader to copy: one wording for the console
 * and report.html.
 */

/** A word as a POSIX shell reads it: as it is when it needs no quoting, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that sends a recorded failure again and judges the answer: `npx petstore-conformance replay <report.json> <case id>`. */
export function replayCommand(reportJson: string, caseId: string): string {
  return `npx petstore-conformance replay ${shellWord(reportJson)} ${caseId}`;
}
