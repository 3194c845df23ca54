/** Waivers: known, tracked deviations applied to the rule results after a run. */
import type { ConformanceResult, Waiver, WaiverResult } from '../result/model.js';

/**
 * Applies waivers to rule results: a failing rule whose every failure a waiver
 * covers (the same operation, when the waiver names one), on or before its
 * expiry day, becomes `waived`. Expired waivers leave the failure standing;
 * waivers that match no failure are stale.
 */
export function applyWaivers(
  rules: ConformanceResult['rules'],
  waivers: readonly Waiver[],
  now: Date,
): { rules: ConformanceResult['rules']; waivers: WaiverResult[] } {
  const today = now.toISOString().slice(0, 10);
  const results: WaiverResult[] = [];
  const waived = new Set<string>();
  for (const waiver of waivers) {
    const rule = rules.find((r) => r.id === waiver.rule);
    const failing = rule?.outcome === 'fail' ? rule.checks.flatMap((c) => c.findings).filter((f) => f.outcome === 'fail') : [];
    const onOperation = waiver.operation === undefined ? failing : failing.filter((f) => f.operation === waiver.operation);
    let status: WaiverResult['status'];
    let note: string;
    if (onOperation.length === 0)
      [status, note] = [
        'stale',
        `${waiver.rule}${waiver.operation ? ` on ${waiver.operation}` : ''} does not fail: the waiver matches nothing and can go`,
      ];
    else if (waiver.expires < today) [status, note] = ['expired', `expired on ${waiver.expires}: the failure counts again`];
    else if (onOperation.length < failing.length)
      [status, note] = [
        'partial',
        `${waiver.rule} also fails on ${[...new Set(failing.filter((f) => f.operation !== waiver.operation).map((f) => f.operation))].join(', ')}: not waived`,
      ];
    else {
      [status, note] = ['applied', `failure waived until ${waiver.expires}`];
      waived.add(waiver.rule);
    }
    results.push({ ...waiver, status, note });
  }
  return { rules: rules.map((r) => (waived.has(r.id) ? { ...r, outcome: 'waived' } : r)), waivers: results };
}
