/** The verdict policy and the pacing gate, as pure functions: no server, milliseconds. */
import { describe, expect, it } from 'vitest';
import type { CheckResult, LoadResult, RuleResult } from '../../../result/model.js';
import { PacingGate, retryAfterMs } from '../../../suites/pacing.js';
import { renderSummary } from '../../../reports/console.js';
import { rules as catalog } from '../../../spec/rules.js';
import {
  certificationDecision,
  certifyExitCode,
  decideVerdict,
  EXIT,
  exitCode,
  failsRun,
  outcomeLabel,
  shownCounts,
  shownOutcome,
  shownOutcomesOf,
  thresholdMeasure,
  thresholdMeasured,
  thresholdsOutcome,
  verdictWithLoadFailures,
  verifyExitCode,
} from '../../../result/policy.js';
import { resultFixture } from '../../fixtures/result.js';

const check = (outcome: CheckResult['outcome'], inconclusive = 0): CheckResult => ({
  id: 'c',
  kind: 'example',
  title: 't',
  outcome,
  passed: 1,
  failed: outcome === 'fail' ? 1 : 0,
  inconclusive,
  findings: [],
});
const rule = (id: string, severity: 'MUST' | 'SHOULD', outcome: RuleResult['outcome'], inconclusive = 0): RuleResult => ({
  id: id as RuleResult['id'],
  title: id,
  severity,
  group: 'listPets',
  section: '',
  outcome,
  checks: [check(outcome === 'waived' ? 'fail' : outcome, inconclusive)],
});
const threshold = (outcome: 'pass' | 'fail' | 'inconclusive') =>
  ({ thresholds: [{ outcome, expression: 'p99 < 1ms', measured: 2, unit: 'ms' }] }) as unknown as LoadResult;

describe('shown outcomes', () => {
  it('a failing SHOULD rule is a warning unless strict; an unknown outcome is an error, never a pass', () => {
    expect(shownOutcome(rule('A', 'SHOULD', 'fail'), false)).toBe('warning');
    expect(shownOutcome(rule('A', 'SHOULD', 'fail'), true)).toBe('fail');
    expect(shownOutcome(rule('A', 'MUST', 'fail'), false)).toBe('fail');
    expect(shownOutcome({ severity: 'MUST', outcome: 'passed' as never }, false)).toBe('error');
    expect(failsRun(rule('A', 'SHOULD', 'fail'), false)).toBe(false);
    expect(failsRun(rule('A', 'SHOULD', 'fail'), true)).toBe(true);
  });

  it('a pass with inconclusive cases says so', () => {
    expect(outcomeLabel(rule('A', 'MUST', 'pass', 3), false)).toBe('pass, 3 cases inconclusive');
    expect(outcomeLabel(rule('A', 'MUST', 'pass', 1), false)).toBe('pass, 1 case inconclusive');
    expect(outcomeLabel(rule('A', 'MUST', 'pass'), false)).toBe('pass');
  });

  it('a threshold that could not be computed is "not measured", never a figure', () => {
    const unmeasured = {
      outcome: 'fail',
      measured: 0,
      unit: '%',
      reason: 'not measured: no request was answered (12 sent: 12 timeouts, 0 socket errors)',
    } as const;
    expect(thresholdMeasure(unmeasured)).toBe('not measured: no request was answered (12 sent: 12 timeouts, 0 socket errors)');
    expect(thresholdMeasured(unmeasured)).toBe(false);
    expect(thresholdMeasure({ outcome: 'inconclusive', measured: 0, unit: 'ms', reason: 'no getPet request was sent' })).toBe(
      'not measured: no getPet request was sent',
    );
    expect(thresholdMeasure({ outcome: 'fail', measured: 0, unit: '%', reason: 'only 0 of 12 requests answered' })).toBe(
      'measured 0% (only 0 of 12 requests answered)',
    );
    expect(thresholdMeasure({ outcome: 'pass', measured: 40, unit: 'req/s' })).toBe('measured 40 req/s');
    expect(thresholdMeasure({ outcome: 'pass', measured: 6.25, unit: 'ms' })).toBe('measured 6.25 ms');
  });
});

describe('shown counts', () => {
  const counts = {
    MUST: { pass: 3, fail: 1, error: 0, inconclusive: 0, skip: 0, waived: 0 },
    SHOULD: { pass: 7, fail: 1, error: 0, inconclusive: 0, skip: 0, waived: 0 },
  };
  it('counts failing SHOULD rules as warnings unless strict', () => {
    expect(shownCounts(counts, false)).toEqual({
      MUST: { pass: 3, fail: 1, error: 0, inconclusive: 0, skip: 0, waived: 0 },
      SHOULD: { pass: 7, warning: 1, error: 0, inconclusive: 0, skip: 0, waived: 0 },
    });
    expect(shownCounts(counts, true).SHOULD).toEqual(counts.SHOULD);
    expect(shownOutcomesOf('SHOULD', false)).toContain('warning');
    expect(shownOutcomesOf('SHOULD', false)).not.toContain('fail');
    expect(shownOutcomesOf('SHOULD', true)).not.toContain('warning');
    expect(shownOutcomesOf('MUST', false)).not.toContain('warning');
  });

  it('the console counts what the verdict says: a conformant run with a failing SHOULD rule shows a warning, not a fail', () => {
    const should = catalog.find((r) => r.severity === 'SHOULD')!.id;
    const result = resultFixture({ [should]: 'fail' });
    expect(result.summary.reason).toMatch(/1 SHOULD warning/);
    const line = renderSummary(result, [], false)
      .split('\n')
      .find((l) => l.startsWith('rules: '));
    expect(line).toMatch(/SHOULD \d+ pass, 1 warning/);
    expect(line).not.toMatch(/fail/);
  });
});

describe('verdicts and exit codes', () => {
  it('verify: a failing load check of a rule that counts makes a conformant verdict non-conformant; a SHOULD one only under strict', () => {
    expect(verdictWithLoadFailures('conformant', [{ severity: 'MUST' }], false)).toBe('non-conformant');
    expect(verdictWithLoadFailures('conformant', [{ severity: 'SHOULD' }], false)).toBe('conformant');
    expect(verdictWithLoadFailures('conformant', [{ severity: 'SHOULD' }], true)).toBe('non-conformant');
    expect(verdictWithLoadFailures('error', [{ severity: 'MUST' }], false)).toBe('error');
    expect(verdictWithLoadFailures('conformant', [], false)).toBe('conformant');
  });

  it('certify and verify exit 0 when certified or matching, 1 otherwise', () => {
    expect([certifyExitCode(true), certifyExitCode(false)]).toEqual([EXIT.conformant, EXIT.nonConformant]);
    expect([verifyExitCode(0), verifyExitCode(3)]).toEqual([0, 1]);
  });

  const must = (outcome: RuleResult['outcome']) => rule('M', 'MUST', outcome);
  it('a failing MUST rule is non-conformant; a SHOULD one only under strict', () => {
    expect(decideVerdict({ rules: [must('fail')], strict: false, loads: [] }).verdict).toBe('non-conformant');
    expect(decideVerdict({ rules: [must('pass'), rule('S', 'SHOULD', 'fail')], strict: false, loads: [] }).verdict).toBe('conformant');
    expect(decideVerdict({ rules: [must('pass'), rule('S', 'SHOULD', 'fail')], strict: true, loads: [] }).verdict).toBe('non-conformant');
  });

  it('a run that decided no MUST rule is an error, never conformant', () => {
    const { verdict, reason } = decideVerdict({ rules: [must('inconclusive'), rule('N', 'MUST', 'skip')], strict: false, loads: [] });
    expect(verdict).toBe('error');
    expect(reason).toMatch(/no MUST rule could be decided/);
  });

  it('a stop (target lost, time bound, rate limit) is an error unless something failed before it', () => {
    expect(
      decideVerdict({ rules: [must('pass')], strict: false, stopped: 'the run reached its time bound (2 s)', loads: [] }).verdict,
    ).toBe('error');
    expect(decideVerdict({ rules: [must('fail')], strict: false, stopped: 'x', loads: [] }).verdict).toBe('non-conformant');
  });

  it('thresholds: a breached or unmeasured one exits 3 on a conformant run', () => {
    expect(thresholdsOutcome([])).toBe('none');
    expect(thresholdsOutcome([threshold('pass'), threshold('inconclusive')])).toBe('pass');
    expect(thresholdsOutcome([threshold('fail')])).toBe('fail');
    expect(exitCode({ verdict: 'conformant', thresholds: 'fail' })).toBe(EXIT.thresholdBreached);
    expect(exitCode({ verdict: 'non-conformant', thresholds: 'fail' })).toBe(EXIT.nonConformant);
    expect(exitCode({ verdict: 'error', thresholds: 'none' })).toBe(EXIT.error);
    expect(exitCode({ verdict: 'conformant', thresholds: 'pass', interrupted: 'SIGTERM' })).toBe(143);
  });
});

describe('a rule the run did not ask (CLIENT-INDEPENDENT with one client)', () => {
  const notAskedCheck: CheckResult = {
    id: 'clients.differential',
    kind: 'differential',
    title: 't',
    outcome: 'skip',
    passed: 0,
    failed: 0,
    inconclusive: 0,
    findings: [],
    why: { code: 'not-asked', needs: 'two clients' },
  };
  const notAsked = (rules: RuleResult[]) =>
    rules.map((r) => (r.id === 'CLIENT-INDEPENDENT' ? { ...r, outcome: 'skip' as const, checks: [notAskedCheck] } : r));

  it('is not counted among the MUST rules of the verdict line, never undecided; a rule skipped otherwise still is', () => {
    const all = resultFixture().rules;
    const must = all.filter((r) => r.severity === 'MUST').length;
    const plain = decideVerdict({ rules: notAsked(all), strict: false, loads: [] });
    expect(plain).toMatchObject({ verdict: 'conformant', reason: `${must - 1} of ${must - 1} MUST rules passed`, undecided: [] });
    const skipped = decideVerdict({
      rules: all.map((r) => (r.id === 'CLIENT-INDEPENDENT' ? { ...r, outcome: 'skip' as const } : r)),
      strict: false,
      loads: [],
    });
    expect(skipped.reason).toBe(`${must - 1} of ${must} MUST rules passed, 1 skipped`);
  });

  it('withholds a certificate: a certification always asks it', () => {
    const result = resultFixture();
    expect(
      certificationDecision({
        ...result,
        seed: 20_301_205,
        numRuns: 40,
        options: { ...result.options, load: 'smoke' },
        rules: notAsked(result.rules),
      }).reasons,
    ).toContain('1 MUST rule(s) were skipped: CLIENT-INDEPENDENT');
  });
});

describe('Retry-After and the wait budget', () => {
  it('reads delta-seconds and HTTP-dates; without either, backs off from 1 s', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(retryAfterMs('6', 0, now)).toBe(6000);
    expect(retryAfterMs('Sun, 22 Nov 2026 10:00:30 GMT', 0, now)).toBe(30_000);
    expect(retryAfterMs('Sun, 22 Nov 2026 09:00:00 GMT', 0, now)).toBe(0);
    expect(retryAfterMs(undefined, 0, now)).toBe(1000);
    expect(retryAfterMs('soon', 2, now)).toBe(4000);
  });

  it('pauses every sender, and refuses a pause past the budget', async () => {
    let clock = 0;
    const slept: number[] = [];
    const gate = new PacingGate({ maxWaitMs: 10_000, now: () => clock, sleep: async (ms) => void (slept.push(ms), (clock += ms)) });
    expect(gate.pause(6_000)).toBe(true);
    await gate.beforeSend();
    expect(slept).toEqual([6_000]);
    expect(gate.pause(3_000)).toBe(true);
    expect(gate.pause(5_000)).toBe(false);
    expect(gate.waitedMs).toBe(9_000);
  });

  it('spaces requests to the rate limit', async () => {
    let clock = 0;
    const gate = new PacingGate({ maxWaitMs: 0, ratePerSecond: 4, now: () => clock, sleep: async (ms) => void (clock += ms) });
    const sent: number[] = [];
    for (let i = 0; i < 4; i++) {
      await gate.beforeSend();
      sent.push(clock);
    }
    expect(sent).toEqual([0, 250, 500, 750]);
  });
});
