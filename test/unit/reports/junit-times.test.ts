import { describe, expect, it } from 'vitest';
import type { CheckResult, RuleResult } from '../../../result/model.js';
import { suiteTimes } from '../../../reports/junit-times.js';

const check = (id: string, durationMs: number, startedMs?: number): CheckResult =>
  ({
    id,
    title: id,
    kind: 'example',
    outcome: 'pass',
    passed: 1,
    failed: 0,
    inconclusive: 0,
    findings: [],
    durationMs,
    ...(startedMs === undefined ? {} : { startedMs }),
  }) as unknown as CheckResult;
const rule = (id: string, checks: CheckResult[]): RuleResult => ({ id, group: 'auth', checks }) as unknown as RuleResult;

describe('junit.xml times', () => {
  it('a suite of concurrent checks takes their wall time, shared by its rules, never their sum', () => {
    // A: 0–100 ms, B: 50–150 ms, C: 300–400 ms: wall time 250 ms where the checks add up to 300.
    const rules = [rule('A', [check('a', 100, 0)]), rule('B', [check('b', 100, 50)]), rule('C', [check('c', 100, 300)])];
    const times = suiteTimes(rules, rules);
    expect(times.suite).toBe(250);
    expect(times.rules.get('A')).toBe(75);
    expect(times.rules.get('B')).toBe(75);
    expect(times.rules.get('C')).toBe(100);
    expect([...times.rules.values()].reduce((a, b) => a + b, 0)).toBe(times.suite);
  });

  it('one check judging two rules counts once; a rule judged only by response checks takes none', () => {
    const shared = check('s', 200, 10);
    const rules = [rule('A', [shared]), rule('B', [shared]), rule('R', [check('response', 40)])];
    const times = suiteTimes(rules, rules);
    expect(times.suite).toBe(200);
    expect(times.rules.get('A')).toBe(100);
    expect(times.rules.get('R')).toBe(0);
  });

  it('a result written before intervals were recorded keeps the older even split', () => {
    const shared = check('s', 200);
    const rules = [rule('A', [shared]), rule('B', [shared, check('t', 50)])];
    const times = suiteTimes(rules, rules);
    expect(times.rules.get('A')).toBe(100);
    expect(times.rules.get('B')).toBe(150);
    expect(times.suite).toBe(250);
  });
});
