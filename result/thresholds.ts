/**
 * A load threshold's measure (result/load.ts `ThresholdResult`): whether it is
 * a figure at all, and in words. Asked through result/policy.ts: a threshold
 * that could not be measured is never shown as a figure, and is not met.
 */
import type { ThresholdResult } from './load.js';

/** How a threshold's reason begins when the threshold could not be computed (it then fails). */
export const NOT_MEASURED = 'not measured';

/** Whether a threshold's `measured` is a figure at all: not when it was inconclusive or could not be computed. */
export function thresholdMeasured(t: Pick<ThresholdResult, 'outcome' | 'reason'>): boolean {
  return t.outcome !== 'inconclusive' && !t.reason?.startsWith(NOT_MEASURED);
}

/**
 * What a threshold measured, in words: `measured 40 req/s`, `measured 0.5%
 * (reason)`, or, when it could not be computed or was inconclusive, `not
 * measured: why`, never a figure that was not measured (a 0% error rate of no
 * answer at all).
 */
export function thresholdMeasure(t: Pick<ThresholdResult, 'outcome' | 'measured' | 'unit' | 'reason'>): string {
  if (!thresholdMeasured(t)) return t.reason?.startsWith(NOT_MEASURED) ? t.reason : `${NOT_MEASURED}${t.reason ? `: ${t.reason}` : ''}`;
  const unit = t.unit === '%' || t.unit === 'x' ? t.unit : ` ${t.unit}`;
  return `measured ${t.measured}${unit}${t.reason ? ` (${t.reason})` : ''}`;
}
