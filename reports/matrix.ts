/**
 * The compatibility matrix: several runs side by side, implementations as
 * columns and rules as rows, for certification. Pure writers (columns in, text
 * out); `cli/matrix.ts` reads and validates the reports and writes the files.
 *
 * - Rows: every rule any report holds, in catalog order (id, title, severity),
 *   then each load threshold any report holds (`LOAD-…`, from
 *   `result.load[].thresholds`), in the order first met.
 * - Cells: the outcome as a word (and, in the page, a symbol and a colour):
 *   `pass`, `fail`, `inconclusive`, `error`, `skip`, and `warning` for a failing
 *   SHOULD rule of a run that was not strict; `absent` when that report does
 *   not hold the row. A rule with cases the suite could not decide says so
 *   (`pass, 5 cases inconclusive`, the policy's {@link outcomeLabel}), never a
 *   bare pass. Each links to the evidence: the column's report page with
 *   the rule's anchor in report.html ({@link evidenceHref}).
 * - Columns: a heading per implementation with its label, target URL, tool
 *   version, seed, start date and verdict.
 *
 * Every string of a report may come from the target or from whoever wrote the
 * file: the page is written with the `html` template (reports/safe-html.ts),
 * which escapes every interpolation, each string on one line ({@link oneLine}).
 * The page shell (reports/page.ts) is the report's: inline CSS, one small
 * inline script (the filter box; the page reads fully without it), and a
 * Content-Security-Policy that admits only those two blocks and no network address.
 */
import { ruleAnchor as anchor } from '../spec/anchor.js';
import escapeHtml from 'escape-html';
import { type Marker, textMarker } from '../core/safe-write.js';
import { findingText } from '../spec/findings.js';
import { plural, severityTag } from './components.js';
import { pageMarker } from './markers.js';
import { renderPage } from './page.js';
import { html, join, type SafeHtml, visible } from './safe-html.js';
import { rules as catalog } from '../spec/rules.js';
import type { ConformanceResult, RuleOutcome, RuleResult, ThresholdResult } from '../result/model.js';
import { failsRun, NOT_MEASURED, outcomeLabel, ruleNotes, undecidedList, shownOutcome, thresholdMeasure, thresholdMeasured } from '../result/policy.js';

export const MATRIX_HTML_FILE = 'matrix.html';
export const MATRIX_MARKDOWN_FILE = 'matrix.md';

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

/** A shields.io endpoint badge (https://shields.io/badges/endpoint-badge). */
export interface Badge {
  schemaVersion: 1;
  label: string;
  message: string;
  color: 'brightgreen' | 'red' | 'lightgrey';
}

interface Cell {
  outcome: CellOutcome;
  /** The outcome in words: the outcome, or the policy's label of a rule (`pass, 5 cases inconclusive`). */
  label: string;
  href: string;
  /** Why: the first finding's message, a skip or error reason, a measured value. */
  note: string;
  /** Shown under the outcome word (load thresholds: the measured value). */
  detail?: string;
}

interface Row {
  id: string;
  title: string;
  /** `MUST`, `SHOULD`, or `load` for a threshold. */
  severity: string;
  cells: Cell[];
}

const SYMBOL: Record<CellOutcome, string> = { pass: '✓', fail: '✗', warning: '!', waived: 'W', inconclusive: '?', error: 'E', skip: '–', absent: '·' };

const LEGEND: Record<CellOutcome, string> = {
  pass: 'every assertion held',
  fail: 'the rule failed (a SHOULD rule only in a strict run)',
  warning: 'a SHOULD rule failed in a run that was not strict',
  waived: 'the rule failed, and a waiver (a known, tracked deviation) covers it',
  inconclusive: 'the suite could not decide (never a failure)',
  error: 'a check of the suite itself crashed',
  skip: 'not run (filtered out, or its phase could not run)',
  absent: 'the report does not hold this row',
};

const OUTCOMES: readonly RuleOutcome[] = ['pass', 'fail', 'inconclusive', 'error', 'skip', 'waived'];

/** Notes (tooltips) and labels are cut here: a report may hold anything. */
const MAX_NOTE_CHARS = 300;
const MAX_LABEL_CHARS = 120;

// ---------------------------------------------------------------------------
// Verdicts

/** A rule's outcome as the matrix shows it: a failing SHOULD rule of a run that was not strict is a warning. */
function cellOutcome(rule: Pick<RuleResult, 'outcome' | 'severity'>, strict: boolean): CellOutcome {
  return shownOutcome(rule, strict);
}

/** Failing rules that count against conformance: MUST ones, and SHOULD ones when the run was strict. */
export function failureCount(result: ConformanceResult): number {
  return result.rules.filter((r) => failsRun(r, result.summary.strict)).length;
}

/** Failing SHOULD rules of a run that was not strict: warnings, which do not change the verdict. */
function warningCount(result: ConformanceResult): number {
  return result.rules.filter((r) => cellOutcome(r, result.summary.strict) === 'warning').length;
}

/**
 * The badge of one report: `conformant` (brightgreen) or `N failures` (red),
 * N from {@link failureCount}. A run with no failing rule whose verdict is not
 * `conformant` (the target could not be tested, or a check crashed) is not
 * certified: its badge says the verdict, in lightgrey.
 */
export function badgeFor(result: ConformanceResult): Badge {
  const label = `${result.tool.name} ${result.tool.version}`;
  const failures = failureCount(result);
  if (failures > 0) return { schemaVersion: 1, label, message: plural(failures, 'failure'), color: 'red' };
  if (result.summary.verdict === 'conformant') return { schemaVersion: 1, label, message: 'conformant', color: 'brightgreen' };
  return { schemaVersion: 1, label, message: String(result.summary.verdict), color: 'lightgrey' };
}

/** A column's name when no `--label` gives one: the target's host and path (`127.0.0.1:8080/v1`). */
export function defaultLabel(result: ConformanceResult): string {
  try {
    const url = new URL(result.target);
    return `${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return result.target;
  }
}

/** What {@link badgeFileName} makes, and nothing else: a matrix removes the badges of its folder's earlier matrix by it. */
export const BADGE_FILE = /^badge-[1-9][0-9]*-[a-z0-9-]+\.json$/;

/** A shields.io badge the matrix wrote ({@link badgeFor}): small, exactly its members, its label the tool's name and version. */
const badgeMarker: Marker = {
  bytes: 4096,
  test: (head) => {
    try {
      const badge = JSON.parse(head.toString('utf8')) as unknown;
      if (typeof badge !== 'object' || badge === null || Array.isArray(badge)) return false;
      const { schemaVersion, label, message, color, ...rest } = badge as Record<string, unknown>;
      return schemaVersion === 1 && typeof label === 'string' && label.startsWith('petstore-conformance ') && typeof message === 'string' && typeof color === 'string' && Object.keys(rest).length === 0;
    } catch {
      // Not JSON, or longer than a badge.
      return false;
    }
  },
};

/** matrix.md's title and the start of its first paragraph, as {@link renderMatrixMarkdown} writes them. */
const markdownMarker = textMarker(1024, /^# Compatibility matrix\n\nAnimal Store Service [^\n]*\. Outcomes: pass, fail, warning \(a SHOULD rule failed in a run that was not strict\)/);

/**
 * How a file of a matrix's folder is known as one the matrix wrote
 * (core/safe-write.ts replaces or removes only those): matrix.html by the
 * page's generator meta, matrix.md by its opening, a badge (a name of
 * {@link BADGE_FILE}'s shape) by its members; undefined for any other name.
 */
export function matrixMarkerOf(name: string): Marker | undefined {
  if (name === MATRIX_HTML_FILE) return pageMarker;
  if (name === MATRIX_MARKDOWN_FILE) return markdownMarker;
  return BADGE_FILE.test(name) ? badgeMarker : undefined;
}

/** `badge-<n>-<slug>.json`: n counts columns from 1; the slug is the label in lower-case letters, digits and dashes. */
export function badgeFileName(index: number, label: string): string {
  const slug = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 48)
    .replace(/^-+|-+$/g, '');
  return `badge-${index + 1}-${slug || 'report'}.json`;
}

/** A cell's link: the evidence page at the row's element (`#RULE-ID`), or the report.json itself. */
export function evidenceHref(column: MatrixColumn, rowId: string): string {
  return column.evidenceKind === 'html' ? `${column.evidence}#${anchor(rowId)}` : column.evidence;
}

/** Column headings: labels, with `(n)` added where two are the same, so no two columns read alike. */
function columnNames(columns: readonly MatrixColumn[]): string[] {
  const labels = columns.map((c) => cut(c.label, MAX_LABEL_CHARS));
  return labels.map((label, i) => (labels.filter((l) => l === label).length > 1 ? `${label} (${i + 1})` : label));
}

// ---------------------------------------------------------------------------
// Rows

function ruleRows(columns: readonly MatrixColumn[]): Row[] {
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
        return { outcome: cellOutcome(rule, strict), label: outcomeLabel(rule, strict), href: evidenceHref(column, id), note: ruleNote(rule, column.result.summary) };
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

function loadRows(columns: readonly MatrixColumn[]): Row[] {
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
      return { outcome, label: outcome, href: evidenceHref(column, id), note: cut(`${t.expression}: ${measure}`, MAX_NOTE_CHARS), detail: thresholdMeasured(t) ? `${figure(t.measured)} ${t.unit}` : NOT_MEASURED };
    }),
  }));
}

// ---------------------------------------------------------------------------
// Escaping and formatting

/** A string of a report on one line: line breaks and every invisible character as `\\uXXXX` (safe-html.ts). */
const oneLine = (value: unknown): string => visible(value, 'show');

/** Cut to `max` characters (not splitting a surrogate pair), marked with an ellipsis. */
function cut(value: unknown, max: number): string {
  const s = String(value);
  if (s.length <= max) return s;
  const end = /[\ud800-\udbff]/.test(s[max - 2] ?? '') ? max - 2 : max - 1;
  return `${s.slice(0, end)}…`;
}

const figure = (n: number): string => (Number.isFinite(n) ? String(Math.round(n * 100) / 100) : String(n));

const time = (iso: string): string => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};

const distinct = (values: readonly string[]): string[] => [...new Set(values)];

// ---------------------------------------------------------------------------
// Markdown

/**
 * Markdown text for a table cell: what could start a link, emphasis, code,
 * math or a cell break backslash-escaped (line-start syntax cannot occur inside
 * a cell), then HTML-escaped (escape-html; a renderer shows the entities as
 * the characters, so no raw HTML gets through).
 */
const md = (value: unknown): string => escapeHtml(oneLine(value).replace(/[\\`*_[\]|~$]/g, '\\$&'));

/** A link destination: anything but URL characters percent-encoded, so nothing ends it or breaks the table. */
const mdHref = (href: string): string =>
  href.replace(/[^\w\-.~!$'*+,;=:@/?#%]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return '%EF%BF%BD'; // a lone surrogate: U+FFFD
    }
  });

const mdRow = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;

/** matrix.md: the implementations, then the rules table (one column per report), then the load thresholds. Pure. */
export function renderMatrixMarkdown(columns: readonly MatrixColumn[]): string {
  const names = columnNames(columns);
  const versions = distinct(columns.map((c) => c.result.interfaceVersion));
  const lines = [
    '# Compatibility matrix',
    '',
    `Animal Store Service ${md(versions.join(', '))} · ${plural(columns.length, 'implementation')}. ` +
      'Outcomes: pass, fail, warning (a SHOULD rule failed in a run that was not strict), inconclusive, error (the suite crashed), skip, and — where a report does not hold the row; each links to its evidence.',
    '',
    '## Implementations',
    '',
    mdRow(['#', 'Implementation', 'Target', 'Tool', 'Seed', 'Started', 'Verdict', 'Badge', 'Evidence']),
    mdRow(Array(9).fill('---')),
    ...columns.map((c, i) => {
      const r = c.result;
      return mdRow([
        String(i + 1),
        md(names[i]),
        md(cut(r.target, 200)),
        md(`${r.tool.name} ${r.tool.version}`),
        md(r.seed),
        md(time(r.startedAt)),
        md(`${r.summary.verdict}${r.summary.strict ? ' (strict)' : ''}${warningCount(r) > 0 ? `, ${plural(warningCount(r), 'warning')}` : ''}${r.summary.undecided?.length ? `; ${undecidedList(r.summary.undecided)}` : ''}`),
        md(badgeFor(r).message),
        `[${c.evidenceKind === 'html' ? 'report.html' : 'report.json'}](${mdHref(c.evidence)})`,
      ]);
    }),
  ];
  const table = (heading: string, first: string, rows: Row[]) => {
    if (rows.length === 0) return;
    lines.push('', `## ${heading}`, '', mdRow([first, 'Title', 'Severity', ...names.map(md)]), mdRow(Array(3 + columns.length).fill('---')));
    for (const row of rows) {
      const cells = row.cells.map((cell) => (cell.outcome === 'absent' ? '—' : `[${md(cell.label)}${cell.detail ? ` ${md(cell.detail)}` : ''}](${mdHref(cell.href)})`));
      lines.push(mdRow([md(row.id), md(row.title), md(row.severity), ...cells]));
    }
  };
  table('Rules', 'Rule', ruleRows(columns));
  table('Load thresholds', 'Threshold', loadRows(columns));
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------
// HTML

/** matrix.html: one self-contained page, the table with a sticky header row and a rule filter. Pure. */
export function renderMatrixHtml(columns: readonly MatrixColumn[]): string {
  const names = columnNames(columns);
  const versions = oneLine(distinct(columns.map((c) => c.result.interfaceVersion)).join(', '));
  const rows = ruleRows(columns);
  const load = loadRows(columns);
  const width = 3 + columns.length;
  const absent = [...rows, ...load].some((row) => row.cells.some((cell) => cell.outcome === 'absent'));
  const legend: CellOutcome[] = ['pass', 'fail', 'warning', 'inconclusive', 'error', 'skip', ...(absent ? (['absent'] as const) : [])];
  const body = (heading: string, group: Row[]) =>
    group.length > 0 &&
    html`<tbody>
<tr class="group"><th colspan="${width}" scope="colgroup">${heading}</th></tr>
${join(group.map(renderRow), '\n')}
</tbody>`;
  return renderPage({
    assets: 'matrix',
    title: `Compatibility matrix · Animal Store Service ${versions}`,
    header: html`<h1>Compatibility matrix <span class="sub">Animal Store Service ${versions} · ${plural(columns.length, 'implementation')} · ${plural(rows.length, 'rule')}${load.length > 0 && ` · ${plural(load.length, 'load threshold')}`}</span></h1>
<ul class="legend">
${join(legend.map((o) => html`<li>${chip(o)} ${LEGEND[o]}</li>`), '\n')}
</ul>
<form class="filter" id="filter-form" hidden>
<label>Filter rules <input type="search" id="filter" placeholder="rule id or title" autocomplete="off"></label>
<output id="shown" aria-live="polite"></output>
</form>`,
    main: html`<table class="matrix">
<thead>
<tr>
<th scope="col" class="rid">Rule</th>
<th scope="col" class="title">Title</th>
<th scope="col" class="severity">Severity</th>
${join(columns.map((c, i) => renderColumnHead(c, names[i]!, i)), '\n')}
</tr>
</thead>
${body('Rules', rows)}
${body('Load thresholds', load)}
</table>
<p id="no-match" class="no-match" hidden>No rule matches the filter.</p>`,
    footer: html`<p>Each cell links to the evidence in that implementation's report. Hover a cell for its first finding. This page is self-contained and makes no network requests.</p>`,
  });
}

const chip = (outcome: CellOutcome): SafeHtml => html`<span class="chip o-${outcome}"><span aria-hidden="true">${SYMBOL[outcome]}</span> ${outcome}</span>`;

function renderColumnHead(column: MatrixColumn, name: string, index: number): SafeHtml {
  const r = column.result;
  const badge = badgeFor(r);
  const verdict = r.summary.verdict === 'conformant' || r.summary.verdict === 'non-conformant' || r.summary.verdict === 'inconclusive' ? r.summary.verdict : 'error';
  const warnings = warningCount(r);
  return html`<th scope="col" class="impl">
<div class="name"><span class="n">${index + 1}</span> ${oneLine(name)}</div>
<div class="verdict v-${verdict}">${oneLine(r.summary.verdict)}${badge.message !== 'conformant' && badge.message !== r.summary.verdict && ` · ${oneLine(badge.message)}`}${warnings > 0 && ` · ${plural(warnings, 'warning')}`}</div>
<div class="meta"><span class="target">${oneLine(cut(r.target, 200))}</span>
<span>${oneLine(r.tool.name)} ${oneLine(r.tool.version)}</span>
<span>seed ${oneLine(r.seed)}${r.summary.strict && ' · strict'}</span>
<span>${oneLine(time(r.startedAt))}</span>
<a href="${oneLine(column.evidence)}">${column.evidenceKind === 'html' ? 'report' : 'report.json'}</a></div>
</th>`;
}

function renderRow(row: Row): SafeHtml {
  const cells = row.cells.map((cell) => {
    if (cell.outcome === 'absent') return html`<td class="cell o-absent" title="${oneLine(cell.note)}"><span aria-hidden="true">·</span> absent</td>`;
    return html`<td class="cell o-${cell.outcome}"><a href="${oneLine(cell.href)}"${cell.note && html` title="${oneLine(cell.note)}"`}><span aria-hidden="true">${SYMBOL[cell.outcome]}</span> ${cell.label}${cell.detail && html`<span class="detail">${oneLine(cell.detail)}</span>`}</a></td>`;
  });
  return html`<tr data-rule="${oneLine(`${row.id} ${row.title}`.toLowerCase())}">
<th scope="row" class="rid" id="${anchor(row.id)}">${oneLine(row.id)}</th>
<td class="title">${oneLine(row.title)}</td>
<td class="severity">${severityTag(oneLine(row.severity))}</td>
${join(cells, '\n')}
</tr>`;
}
