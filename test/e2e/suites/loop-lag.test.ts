import { describe, expect, it } from 'vitest';
import { BUSY_SHARE, LoopLag } from '../../../suites/session/in-flight.js';

/** Runs callbacks of 1 ms each, one after another, for `ms`: every one lets the timers run. */
function busyFor(ms: number): Promise<void> {
  const until = performance.now() + ms;
  return new Promise<void>((resolve) => {
    const spin = () => {
      const end = performance.now() + 1;
      while (performance.now() < end);
      if (performance.now() < until) setImmediate(spin);
      else resolve();
    };
    spin();
  });
}

describe("the suite's own loop, as widening reads it (suites/session/in-flight.ts LoopLag)", () => {
  it('a loop kept busy by many short callbacks reads busy, though it runs its timers on time; idle again, it does not', async () => {
    const lag = new LoopLag();
    try {
      await busyFor(300);
      expect(lag.busy).toBeGreaterThan(BUSY_SHARE);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(lag.busy).toBeLessThan(BUSY_SHARE);
    } finally {
      lag.stop();
    }
  });
});
