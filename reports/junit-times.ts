/**
 * junit.xml's times. Checks run concurrently, so adding up their times
 * overstates a suite (a 9.4 s run read as 45 s in Jenkins and GitLab). A
 * testsuite's time is its wall time: the union of the intervals of the active
 * checks that judge its rules. Each instant of it is shared evenly by the rules
 * being judged then, so a suite's testcase times add up to its own time and
 * never past it. A rule judged only by response checks (which judge inside
 * other checks' exchanges) takes no time of its own.
 *
 * A result without intervals (written before they were recorded) keeps the
 * older split: each check's time shared evenly by the rules it judges, a suite
 * the sum of its testcases.
 */
import type { RuleResult } from '../result/model.js';

/** Times in ms: of each rule's testcase, and of the suite that holds them. */
export interface SuiteTimes {
  suite: number;
  rules: Map<string, number>;
}

/** The times of one testsuite's rules (`all`: every rule of the result, for the older split). */
export function suiteTimes(rules: readonly RuleResult[], all: readonly RuleResult[]): SuiteTimes {
  if (!all.some((rule) => rule.checks.some((c) => c.startedMs !== undefined))) return splitTimes(rules, all);
  const intervals = rules.flatMap((rule) =>
    rule.checks.flatMap((c) =>
      c.startedMs !== undefined && Number.isFinite(c.durationMs)
        ? [{ rule: rule.id, from: c.startedMs, to: c.startedMs + Math.max(0, c.durationMs!) }]
        : [],
    ),
  );
  const times = new Map<string, number>(rules.map((rule) => [rule.id, 0]));
  const edges = [...new Set(intervals.flatMap((i) => [i.from, i.to]))].sort((a, b) => a - b);
  let suite = 0;
  for (let k = 0; k + 1 < edges.length; k++) {
    const from = edges[k]!;
    const to = edges[k + 1]!;
    const active = new Set(intervals.filter((i) => i.from <= from && i.to >= to).map((i) => i.rule));
    if (active.size === 0) continue;
    suite += to - from;
    for (const rule of active) times.set(rule, times.get(rule)! + (to - from) / active.size);
  }
  return { suite, rules: times };
}

/** The older split, for a result without intervals. */
function splitTimes(rules: readonly RuleResult[], all: readonly RuleResult[]): SuiteTimes {
  const sharedBy = new Map<string, number>();
  for (const rule of all) for (const check of rule.checks) sharedBy.set(check.id, (sharedBy.get(check.id) ?? 0) + 1);
  const times = new Map(
    rules.map((rule) => [
      rule.id,
      rule.checks.reduce((sum, c) => sum + (Number.isFinite(c.durationMs) ? Math.max(0, c.durationMs!) : 0) / sharedBy.get(c.id)!, 0),
    ]),
  );
  return { suite: [...times.values()].reduce((a, b) => a + b, 0), rules: times };
}
