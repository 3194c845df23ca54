/** What a reporter is and where it writes: hooks keyed by `--reporter`, as vitest's reporters are. */
import type { ConformanceResult, RunEvent } from '../result/model.js';

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
