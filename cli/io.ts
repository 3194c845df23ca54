/** What a command gets of the process: its streams, environment and signals (only bin/ touches the process itself). */

/** The signals that stop a run. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/** The process as a command sees it. */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Where the config file is looked for. Default: process.cwd(). */
  cwd?: string;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); used by `serve`. */
  untilStopped?: () => Promise<void>;
  /** Calls `handler` at each SIGINT/SIGTERM while a run watches them (cli/interrupt.ts); returns how to stop watching. */
  signals?: (handler: (signal: StopSignal) => void) => () => void;
  /** Ends the process at once as `signal`'s default action would (a second Ctrl-C). */
  raise?: (signal: StopSignal) => void;
}
