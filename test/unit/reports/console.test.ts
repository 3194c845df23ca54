/**
 * The console reporter's progress lines without a TTY (a CI log): one line as each phase starts, its count of checks
 * worded in the singular or the plural as the count asks.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { consoleReporter } from '../../../reports/console.js';

/** A stream that keeps what is written to it. */
function sink(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { text: () => chunks.join('') });
}

describe('console progress, not interactive', () => {
  it.each([
    [1, '· storeOrders (1 check)\n'],
    [3, '· storeOrders (3 checks)\n'],
    [0, '· storeOrders (0 checks)\n'],
  ])('a phase of %i check(s) starts with one line: %j', (checks, line) => {
    const progress = sink();
    const reporter = consoleReporter({ reportDir: '/nowhere', out: sink(), progress, color: false, interactive: false, env: {} });
    reporter.onEvent!({ type: 'phase-start', phase: 'storeOrders', checks });
    expect(progress.text()).toBe(line);
  });
});
