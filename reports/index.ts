/**
 * Reporters, keyed by their `--reporter` value. A reporter is an object with
 * optional hooks; the engine's events reach it through the CLI. The pure
 * writers (result in, text out) live beside the adapters.
 */
import type { ConformanceResult, RunEvent } from '../suites/model.js';
import { consoleReporter } from './console.js';
import { githubReporter } from './github.js';
import { htmlReporter } from './html.js';
import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import type { ReporterName } from './names.js';

export { REPORTER_NAMES, type ReporterName } from './names.js';

/** Where and how reporters write. */
export interface ReporterContext {
  reportDir: string;
  /** The console report's stream (stderr when `--json` owns stdout). */
  out: NodeJS.WritableStream;
  /** Progress lines. */
  progress: NodeJS.WritableStream;
  color: boolean;
  /** Progress may redraw one line (a TTY, not under CI); otherwise it is plain lines. */
  interactive: boolean;
  env: NodeJS.ProcessEnv;
  /**
   * How much the console says: `quiet`, the verdict line only; `normal`
   * (default), progress and the summary; `verbose`, also each exchange.
   */
  verbosity?: 'quiet' | 'normal' | 'verbose';
}

export interface Reporter {
  onEvent?(event: Exclude<RunEvent, { type: 'run-end' }>): void;
  /** Writes what the reporter writes; returns the paths of files written. `written` holds those of reporters before it. */
  onRunEnd?(result: ConformanceResult, written: readonly string[]): Promise<string[]> | string[];
}

export const reporters = {
  json: jsonReporter,
  junit: junitReporter,
  html: htmlReporter,
  github: githubReporter,
  console: consoleReporter,
} satisfies Record<ReporterName, (ctx: ReporterContext) => Reporter>;
