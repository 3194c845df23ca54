/**
 * SIGINT, SIGTERM and SIGHUP during a run. The first stops the run: the
 * engine sends nothing more and aborts what is in flight, the reports are
 * written for what ran (verdict `interrupted`, the rest "not run"), the
 * embedded reference is stopped, and the process exits 130 (SIGINT), 143
 * (SIGTERM) or 129 (SIGHUP: the terminal closed). A second signal exits at
 * once: the embedded reference is killed and the signal is raised again with
 * its default action (the shell sees 130, 143 or 129).
 */
import type { Io } from './io.js';

export type { StopSignal } from './io.js';

/** What a run holds while it watches for signals. */
export interface Interrupts {
  /** Aborted by the first signal; its `reason` is the signal's name. */
  readonly signal: AbortSignal;
  /** `fn` runs (synchronously, best effort) before the process ends at a second signal. */
  onHardExit(fn: () => void): void;
  /** Stops watching: the signals' default actions apply again. */
  dispose(): void;
}

/**
 * Starts watching for the stop signals through `io` (nothing is watched when
 * `io` cannot). `kept` says, at the first signal, what the command keeps of
 * what ran (default: a run's reports).
 */
export function watchInterrupts(
  io: Pick<Io, 'signals' | 'raise' | 'stderr'>,
  { kept = 'the reports are written for what ran' }: { kept?: string } = {},
): Interrupts {
  const controller = new AbortController();
  const hard: (() => void)[] = [];
  let stopWatching: (() => void) | undefined;
  const dispose = () => {
    stopWatching?.();
    stopWatching = undefined;
  };
  stopWatching = io.signals?.((name) => {
    if (!controller.signal.aborted) {
      // No one is there to read it after a hangup, and its terminal may be gone.
      if (name !== 'SIGHUP') io.stderr.write(`\npetstore-conformance: ${name}: stopping; ${kept} (${name} again to exit at once)\n`);
      controller.abort(name);
      return;
    }
    // A hangup comes twice (the shell passes it on, and the session's end sends it again): only a person's second
    // signal means "at once", and the reports of a run stopped by a hangup are still written.
    if (name === 'SIGHUP') return;
    for (const fn of hard.splice(0)) {
      try {
        fn();
      } catch {
        // Exiting anyway.
      }
    }
    dispose();
    io.raise?.(name);
  });
  return { signal: controller.signal, onHardExit: (fn) => void hard.push(fn), dispose };
}
