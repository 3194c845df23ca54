/**
 * What every part of report.html shares: the label and badge of each shown
 * outcome, the severities in the page's order, and how durations and times read.
 */
import type { RuleOutcome } from '../result/model.js';
import { type ShownOutcome, shownOutcome } from '../result/policy.js';
import type { Severity } from '../spec/rules.js';
import { markedText as text } from './components.js';
import { html, type SafeHtml } from './safe-html.js';

/** An outcome as the page shows it (result/policy.ts decides it). */
export type Shown = ShownOutcome;

/** The words of each shown outcome, on badges, filters and column heads. */
export const LABEL: Record<Shown, string> = {
  fail: 'Fail',
  error: 'Suite error',
  warning: 'Warning',
  waived: 'Waived',
  inconclusive: 'Inconclusive',
  pass: 'Pass',
  skip: 'Skipped',
};

/** The severities in the order the page lists them. */
export const SEVERITIES: readonly Severity[] = ['MUST', 'SHOULD'];

/** The outcome to show; anything outside the union (a hand-edited report) is shown as an error of the suite. */
export function shown(outcome: RuleOutcome, severity: Severity, strict: boolean): Shown {
  return shownOutcome({ outcome, severity }, strict);
}

// ---------------------------------------------------------------------------
// Formatting

/** A duration in seconds with one decimal (a value that is not finite, as it is). */
export const seconds = (ms: number): string => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : String(ms));
/** A duration in milliseconds: one decimal under 10 ms, whole above. */
export const millis = (ms: number): string => (Number.isFinite(ms) ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : String(ms));
/** An ISO time as `YYYY-MM-DD hh:mm:ss UTC` (anything else as it is). */
export const time = (iso: string): SafeHtml =>
  text(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : iso);

/** An outcome's coloured badge. */
export const badge = (outcome: Shown): SafeHtml => html`<span class="badge o-${outcome}">${LABEL[outcome]}</span>`;
