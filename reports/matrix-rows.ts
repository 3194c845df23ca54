/**
 * The compatibility matrix as data (reports/matrix.ts writes it as text): its
 * columns, one per report, and its rows, the rules any report holds in catalog
 * order then the load thresholds, each with a cell per column (the outcome as
 * the policy shows it, a link to the evidence, a note of why).
 */
import { ruleAnchor as anchor } from '../spec/anchor.js';
import { findingText } from '../spec/findings.js';
import { rules as catalog } from '../spec/rules.js';
import type { ConformanceResult, RuleOutcome, RuleResult, ThresholdResult } from '../result/model.js';
import { failsRun, NOT_MEASURED, outcomeLabel, ruleNotes, shownOutcome, thresholdMeasure, thresholdMeasured } from '../result/policy.js';
import { visible } from './safe-html.js';

/** One implementation: a validated report and where its evidence is. */
export interface MatrixColumn {
  /** Column name: a `--label`, or {@link defaultLabel}. */
  label: string;
  result: ConformanceResult;
  /**
   * The evidence, as a URL relative to the matrix's directory (percent-encoded
   * already): the report.html beside the report.json, or the report.json itself
   * when there is no report.html.
   */
  evidence: string;
  /** `html`: the evidence page has an element per rule id, so cells link to `#RULE-ID`. */
  evidenceKind: 'html' | 'json';
}

/** What a cell shows: a rule's outcome, `warning` for a non-strict SHOULD failure, `absent` when the report lacks the row. */
export type CellOutcome = RuleOutcome | 'warning' | 'absent';

/** One cell: a report's outcome of a row, with its link and note. */
export interface Cell {
  outcome: CellOutcome;
  /** The outcome in words: the outcome, or the policy's label of a rule (`pass, 5 cases inconclusive`). */
  label: string;
  href: string;
  /** Why: the first finding's message, a skip or error reason, a measured value. */
  note: string;
  /** Shown under the outcome word (load thresholds: the measured value). */
  detail?: string;
}

/** One row: a rule or a load threshold, and its cell in each column. */
export interface Row {
  id: string;
  title: string;
  /** `MUST`, `SHOULD`, or `load` for a threshold. */
  severity: string;
  cells: Cell[];
}

const OUTCOMES: readonly RuleOutcome[] = ['pass', 'fail', 'inconclusive', 'error', 'skip', 'waived'];

/** Notes (tooltips) and labels are cut here: a report may hold anything. */
const MAX_NOTE_CHARS = 300;
const MAX_LABEL_CHARS = 120;

// ---------------------------------------------------------------------------
// Outcomes, links and headings

/** A rule's outcome as the matrix shows it: a failing SHOULD rule of a run that was not strict is a warning. */
function cellOutcome(rule: Pick<RuleResult, 'outcome' | 'severity'>, strict: boolean): CellOutcome {
  return shownOutcome(rule, strict);
}

/** Failing rules that count against conformance: MUST ones, and SHOULD ones when the run was strict. */
export function failureCount(result: ConformanceResult): number {
  return result.rules.filter((r) => failsRun(r, result.summary.strict)).length;
}

/** Failing SHOULD rules of a run that was not strict: warnings, which do not change the verdict. */
export function warningCount(result: ConformanceResult): number {
  return result.rules.filter((r) => cellOutcome(r, result.summary.strict) === 'warning').length;
}

/** A cell's link: the evidence page at the row's element (`#RULE-ID`), or the report.json itself. */
export function evidenceHref(column: MatrixColumn, rowId: string): string {
  return column.evidenceKind === 'html' ? `${column.evidence}#${anchor(rowId)}` : column.evidence;
}

/** Column headings: labels, with `(n)` added where two are the same, so no two columns read alike. */
export function columnNames(columns: readonly MatrixColumn[]): string[] {
  const labels = columns.map((c) => cut(c.label, MAX_LABEL_CHARS));
  return labels.map((label, i) => (labels.filter((l) => l === label).length > 1 ? `${label} (${i + 1})` : label));
}

// ---------------------------------------------------------------------------
// Rows

/** The rows of the rules any report holds: catalog order, then rules only another version of the tool knows. */
export function ruleRows(columns: readonly MatrixColumn[]): Row[] {
  const byId = columns.map((c) => {
    const map = new Map<string, RuleResult>();
    for (const rule of c.result.rules) if (!map.has(rule.id)) map.set(rule.id, rule);
    return map;
  });
  const held = new Set(byId.flatMap((m) => [...m.keys()]));
  const known = catalog.map((r) => r.id as string);
  // Catalog order; a rule only another version of the tool knows comes after.
  const ids = [...known.filter((id) => held.has(id)), ...[...held].filter((id) => !known.includes(id))];
  return ids.map((id) => {
    const fromCatalog = catalog.find((r) => r.id === id);
    const fromReport = byId.map((m) => m.get(id)).find((r) => r !== undefined);
    return {
      id,
      title: fromCatalog?.title ?? fromReport?.title ?? '',
      severity: fromCatalog?.severity ?? fromReport?.severity ?? '',
      cells: columns.map((column, i) => {
        const rule = byId[i]!.get(id);
        if (!rule) return { outcome: 'absent', label: 'absent', href: evidenceHref(column, id), note: 'not in this report' };
        const { strict } = column.result.summary;
        return {
          outcome: cellOutcome(rule, strict),
          label: outcomeLabel(rule, strict),
          href: evidenceHref(column, id),
          note: ruleNote(rule, column.result.summary),
        };
      }),
    };
  });
}

/** The first finding of a failing or inconclusive rule, or of a passing rule's inconclusive cases; the reason of a skipped or crashed one. */
function ruleNote(rule: RuleResult, summary: ConformanceResult['summary']): string {
  // Why it was decided on no case, and its diagnoses, come first: they point at what to look at.
  const notes = ruleNotes(rule, summary);
  if (notes.length > 0) return cut(notes.join('; '), MAX_NOTE_CHARS);
  const looked = rule.outcome === 'pass' ? 'inconclusive' : rule.outcome;
  const check = rule.outcome === 'pass' ? rule.checks.find((c) => c.inconclusive > 0) : rule.checks.find((c) => c.outcome === rule.outcome);
  if (!check) return '';
  const finding = check.findings.find((f) => f.outcome === looked) ?? (rule.outcome === 'pass' ? undefined : check.findings[0]);
  const message = finding ? findingText(finding) : check.reason;
  return message ? cut(`${check.id}: ${message}`, MAX_NOTE_CHARS) : '';
}

/** The rows of the load thresholds any report holds, in the order first met. */
export function loadRows(columns: readonly MatrixColumn[]): Row[] {
  const order: { id: string; profile: string; threshold: ThresholdResult }[] = [];
  const byId = columns.map((c) => {
    const map = new Map<string, ThresholdResult>();
    for (const load of c.result.load) {
      for (const threshold of load.thresholds) {
        if (map.has(threshold.id)) continue;
        map.set(threshold.id, threshold);
        if (!order.some((o) => o.id === threshold.id)) order.push({ id: threshold.id, profile: load.profile, threshold });
      }
    }
    return map;
  });
  return order.map(({ id, profile, threshold }) => ({
    id,
    title: `${profile}: ${threshold.expression}`,
    severity: 'load',
    cells: columns.map((column, i) => {
      const t = byId[i]!.get(id);
      if (!t) return { outcome: 'absent', label: 'absent', href: evidenceHref(column, id), note: 'no such threshold in this report' };
      const outcome: CellOutcome = OUTCOMES.includes(t.outcome) ? t.outcome : 'error';
      const measure = thresholdMeasure({ ...t, measured: Math.round(t.measured * 100) / 100 });
      return {
        outcome,
        label: outcome,
        href: evidenceHref(column, id),
        note: cut(`${t.expression}: ${measure}`, MAX_NOTE_CHARS),
        detail: thresholdMeasured(t) ? `${figure(t.measured)} ${t.unit}` : NOT_MEASURED,
      };
    }),
  }));
}

// ---------------------------------------------------------------------------
// Escaping and formatting

/** A string of a report on one line: line breaks and every invisible character as `\\uXXXX` (safe-html.ts). */
export const oneLine = (value: unknown): string => visible(value, 'show');

/** Cut to `max` characters (not splitting a surrogate pair), marked with an ellipsis. */
export function cut(value: unknown, max: number): string {
  const s = String(value);
  if (s.length <= max) return s;
  const end = /[\ud800-\udbff]/.test(s[max - 2] ?? '') ? max - 2 : max - 1;
  return `${s.slice(0, end)}…`;
}

/** A number with at most two decimals. */
const figure = (n: number): string => (Number.isFinite(n) ? String(Math.round(n * 100) / 100) : String(n));

/** An ISO time as `YYYY-MM-DD hh:mm UTC` (anything else as it is). */
export const time = (iso: string): string => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};

/** The values, each once, in the order first met. */
export const distinct = (values: readonly string[]): string[] => [...new Set(values)];
