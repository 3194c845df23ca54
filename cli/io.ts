/**
 * What a command gets of the process: its streams, environment and signals
 * (only bin/ touches the process itself), and {@link defaultIo}, the real
 * process's, whose streams survive a reader that went away.
 */
import { INTERRUPT_SIGNALS, type InterruptSignal } from '../result/reasons.js';
import { STOP_WITH_PARENT_ENV } from './embedded.js';

/** The signals that stop a run: Ctrl-C, a stop asked for, the terminal gone (result/reasons.ts). */
export type StopSignal = InterruptSignal;

/** The process as a command sees it. */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Where the config file is looked for. Default: process.cwd(). */
  cwd?: string;
  /** Resolves when the process is asked to stop (SIGINT, SIGTERM, SIGHUP); used by `serve`. */
  untilStopped?: () => Promise<void>;
  /** Calls `handler` at each stop signal while a run watches them (cli/interrupt.ts); returns how to stop watching. */
  signals?: (handler: (signal: StopSignal) => void) => () => void;
  /** Ends the process at once as `signal`'s default action would (a second Ctrl-C). */
  raise?: (signal: StopSignal) => void;
  /** Why standard output lost what was written to it (`ENOSPC`, `EIO`), if it did; a reader that went away (`EPIPE`) is not a loss. */
  stdoutLost?: () => string | undefined;
}

/**
 * `stream` as commands write to it: a write error (EPIPE when the reader went away, `… 2>&1 | head -1`; EIO or
 * ENOSPC under a redirect), thrown or emitted, marks it broken and what is still to be printed is dropped. Output is
 * for a reader, and one that left reads nothing more: the run goes on, writes its reports and exits with its verdict's
 * code. Any other error is a loss (`lost`: a full disk under `export-load > script.js`), which the command's exit
 * says (cli/main.ts). The listener stays on the process's stream, so yargs' own printing (`--help | head -1`) is
 * covered too.
 */
function guardedStream(stream: NodeJS.WriteStream): Io['stdout'] & { lost(): string | undefined } {
  let broken = false;
  let lost: string | undefined;
  const fail = (error: unknown) => {
    broken = true;
    const code = (error as { code?: unknown } | undefined)?.code;
    if (code !== 'EPIPE') lost ??= typeof code === 'string' ? code : 'a write error';
  };
  stream.on('error', fail);
  return {
    lost: () => lost,
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    write(chunk: string | Uint8Array): boolean {
      if (broken) return true;
      try {
        return stream.write(chunk);
      } catch (error) {
        fail(error);
        return true;
      }
    },
  } as unknown as Io['stdout'] & { lost(): string | undefined };
}

/** The process's own streams ({@link guardedStream}), environment and signals: what bin/ runs a command with. */
export function defaultIo(): Io {
  const stdout = guardedStream(process.stdout);
  return {
    stdout,
    stderr: guardedStream(process.stderr),
    stdoutLost: () => stdout.lost(),
    env: process.env,
    untilStopped: () =>
      new Promise((resolve) => {
        // The embedded reference (cli/embedded.ts) stops with its parent: its stdin closes when the parent is gone.
        const watchParent = process.env[STOP_WITH_PARENT_ENV] === '1';
        const stop = () => {
          if (watchParent) process.stdin.destroy();
          resolve();
        };
        for (const signal of INTERRUPT_SIGNALS) process.once(signal, stop);
        if (watchParent) {
          process.stdin.once('end', stop);
          process.stdin.once('close', stop);
          process.stdin.resume();
        }
      }),
    signals: (handler) => {
      // SIGHUP too: a terminal closed or an ssh session dropped mid-run ended it without its reports.
      const listeners = INTERRUPT_SIGNALS.map((signal) => [signal, () => handler(signal)] as const);
      for (const [signal, listener] of listeners) process.on(signal, listener);
      return () => {
        for (const [signal, listener] of listeners) process.off(signal, listener);
      };
    },
    // With no listener left, the signal's default action ends the process, as the shell expects (128 + its number).
    raise: (signal) => void process.kill(process.pid, signal),
  };
}
