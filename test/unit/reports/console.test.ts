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

describe('console progress tells a CI log as it goes', () => {
  const reporter = (interactive = false) => {
    const progress = sink();
    const r = consoleReporter({ reportDir: '/nowhere', out: sink(), progress, color: false, interactive, env: {} });
    return { r, progress };
  };

  it('a failing rule prints as it is decided; a SHOULD one as a warning mark', () => {
    const { r, progress } = reporter();
    r.onEvent!({ type: 'phase-start', phase: 'listPets', checks: 4 });
    r.onEvent!({ type: 'rule-failed', rule: 'LIST-LIMIT-DEFAULT', check: 'list-default-limit', severity: 'MUST' });
    r.onEvent!({ type: 'rule-failed', rule: 'GET-SUNSET-HEADER', check: 'get-sunset', severity: 'SHOULD' });
    expect(progress.text()).toBe(
      '· listPets (4 checks)\n  ✗ LIST-LIMIT-DEFAULT (MUST) failed, in check list-default-limit\n  ! GET-SUNSET-HEADER (SHOULD) failed, in check get-sunset\n',
    );
  });

  it("a phase's end prints its rules by outcome, the failing ones named", () => {
    const { r, progress } = reporter();
    r.onEvent!({
      type: 'phase-end',
      phase: 'listPets',
      rules: { pass: 6, fail: 1, inconclusive: 1 },
      failed: ['LIST-LIMIT-DEFAULT'],
      durationMs: 3240,
    });
    r.onEvent!({ type: 'phase-end', phase: 'auth', rules: { pass: 1 }, failed: [], durationMs: 80 });
    expect(progress.text()).toBe(
      '· listPets ended in 3.2 s: 8 rules, 6 passed, 1 failed, 1 inconclusive (LIST-LIMIT-DEFAULT)\n· auth ended in 0.1 s: 1 rule, 1 passed\n',
    );
  });

  it('a heartbeat prints in a CI log, not on a TTY (whose line is redrawn)', () => {
    const ci = reporter();
    ci.r.onEvent!({ type: 'heartbeat', requests: 340, elapsedSec: 20 });
    expect(ci.progress.text()).toBe('  … 340 requests sent, 20 s\n');
    const tty = reporter(true);
    tty.r.onEvent!({ type: 'heartbeat', requests: 340, elapsedSec: 20 });
    expect(tty.progress.text()).toBe('');
  });
});
