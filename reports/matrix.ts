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
 *   not hold the row. Each links to the evidence: the column's report page with
 *   the rule's anchor in report.html ({@link evidenceHref}).
 * - Columns: a heading per implementation with its label, target URL, tool
 *   version, seed, start date and verdict.
 *
 * Every string of a report may come from the target or from whoever wrote the
 * file: each goes through {@link text} or {@link attr} (escape-html), with
 * characters that would be invisible or reorder the text shown as `\uXXXX`.
 * The page is self-contained: inline CSS, one small inline script (the filter
 * box; the page reads fully without it), and a Content-Security-Policy that
 * admits only those two blocks and no network address.
 */
import { pageHead } from './page.js';
import { ruleAnchor as anchor } from '../spec/anchor.js';
import escapeHtml from 'escape-html';
import { findingText } from '../spec/findings.js';
import { rules as catalog } from '../spec/rules.js';
import type { ConformanceResult, RuleOutcome, RuleResult, ThresholdResult } from '../suites/model.js';
import { failsRun, shownOutcome } from '../suites/policy.js';
import { sha256Base64 as sha256 } from '../core/hash.js';

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
export function cellOutcome(rule: Pick<RuleResult, 'outcome' | 'severity'>, strict: boolean): CellOutcome {
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
        if (!rule) return { outcome: 'absent', href: evidenceHref(column, id), note: 'not in this report' };
        const outcome = cellOutcome(rule, column.result.summary.strict);
        return { outcome, href: evidenceHref(column, id), note: ruleNote(rule) };
      }),
    };
  });
}

/** The first finding of a failing or inconclusive rule; the reason of a skipped or crashed one. */
function ruleNote(rule: RuleResult): string {
  if (rule.outcome === 'pass') return '';
  const check = rule.checks.find((c) => c.outcome === rule.outcome);
  if (!check) return '';
  const finding = check.findings.find((f) => f.outcome === rule.outcome) ?? check.findings[0];
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
      if (!t) return { outcome: 'absent', href: evidenceHref(column, id), note: 'no such threshold in this report' };
      const outcome: CellOutcome = OUTCOMES.includes(t.outcome) ? t.outcome : 'error';
      const measured = `${figure(t.measured)} ${t.unit}`;
      return { outcome, href: evidenceHref(column, id), note: cut(`${t.expression}: measured ${measured}${t.reason ? ` (${t.reason})` : ''}`, MAX_NOTE_CHARS), detail: measured };
    }),
  }));
}

// ---------------------------------------------------------------------------
// Escaping and formatting

/**
 * Characters shown as a visible `\uXXXX` instead of themselves: C0 and C1
 * controls (line breaks too: every string here is one line), U+2028/U+2029,
 * bidi marks, embeddings, overrides and isolates, the BOM, lone surrogates.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const visible = (value: unknown): string => String(value).replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** HTML text content: HTML-escaped, invisible characters as `\uXXXX`. */
const text = (value: unknown): string => escapeHtml(visible(value));

/** A double-quoted HTML attribute value. */
const attr = text;

/** Cut to `max` characters (not splitting a surrogate pair), marked with an ellipsis. */
function cut(value: unknown, max: number): string {
  const s = String(value);
  if (s.length <= max) return s;
  const end = /[\ud800-\udbff]/.test(s[max - 2] ?? '') ? max - 2 : max - 1;
  return `${s.slice(0, end)}…`;
}

const plural = (n: number, one: string): string => `${n} ${n === 1 ? one : `${one}s`}`;

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
const md = (value: unknown): string => escapeHtml(visible(value).replace(/[\\`*_[\]|~$]/g, '\\$&'));

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
        md(`${r.summary.verdict}${r.summary.strict ? ' (strict)' : ''}${warningCount(r) > 0 ? `, ${plural(warningCount(r), 'warning')}` : ''}`),
        md(badgeFor(r).message),
        `[${c.evidenceKind === 'html' ? 'report.html' : 'report.json'}](${mdHref(c.evidence)})`,
      ]);
    }),
  ];
  const table = (heading: string, first: string, rows: Row[]) => {
    if (rows.length === 0) return;
    lines.push('', `## ${heading}`, '', mdRow([first, 'Title', 'Severity', ...names.map(md)]), mdRow(Array(3 + columns.length).fill('---')));
    for (const row of rows) {
      const cells = row.cells.map((cell) => (cell.outcome === 'absent' ? '—' : `[${cell.outcome}${cell.detail ? ` ${md(cell.detail)}` : ''}](${mdHref(cell.href)})`));
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
  const versions = distinct(columns.map((c) => c.result.interfaceVersion));
  const rows = ruleRows(columns);
  const load = loadRows(columns);
  const width = 3 + columns.length;
  const absent = [...rows, ...load].some((row) => row.cells.some((cell) => cell.outcome === 'absent'));
  const legend: CellOutcome[] = ['pass', 'fail', 'warning', 'inconclusive', 'error', 'skip', ...(absent ? (['absent'] as const) : [])];
  const body = (heading: string, group: Row[]) =>
    group.length === 0
      ? ''
      : `<tbody>
<tr class="group"><th colspan="${width}" scope="colgroup">${text(heading)}</th></tr>
${group.map(renderRow).join('\n')}
</tbody>`;
  return `${pageHead(CSP, `Compatibility matrix · Animal Store Service ${text(versions.join(', '))}`)}
<style>${STYLE}</style>
</head>
<body>
<header class="top">
<h1>Compatibility matrix <span class="sub">Animal Store Service ${text(versions.join(', '))} · ${plural(columns.length, 'implementation')} · ${plural(rows.length, 'rule')}${load.length ? ` · ${plural(load.length, 'load threshold')}` : ''}</span></h1>
<ul class="legend">
${legend.map((o) => `<li>${chip(o)} ${text(LEGEND[o])}</li>`).join('\n')}
</ul>
<form class="filter" id="filter-form" hidden>
<label>Filter rules <input type="search" id="filter" placeholder="rule id or title" autocomplete="off"></label>
<output id="shown" aria-live="polite"></output>
</form>
</header>
<main>
<table class="matrix">
<thead>
<tr>
<th scope="col" class="rid">Rule</th>
<th scope="col" class="title">Title</th>
<th scope="col" class="sev">Severity</th>
${columns.map((c, i) => renderColumnHead(c, names[i]!, i)).join('\n')}
</tr>
</thead>
${body('Rules', rows)}
${body('Load thresholds', load)}
</table>
<p id="no-match" class="no-match" hidden>No rule matches the filter.</p>
</main>
<footer>
<p>Each cell links to the evidence in that implementation's report. Hover a cell for its first finding. This page is self-contained and makes no network requests.</p>
</footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

const chip = (outcome: CellOutcome): string => `<span class="chip o-${outcome}"><span aria-hidden="true">${SYMBOL[outcome]}</span> ${outcome}</span>`;

function renderColumnHead(column: MatrixColumn, name: string, index: number): string {
  const r = column.result;
  const badge = badgeFor(r);
  const verdict = r.summary.verdict === 'conformant' || r.summary.verdict === 'non-conformant' ? r.summary.verdict : 'error';
  const warnings = warningCount(r);
  return `<th scope="col" class="impl">
<div class="name"><span class="n">${index + 1}</span> ${text(name)}</div>
<div class="verdict v-${verdict}">${text(r.summary.verdict)}${badge.message === 'conformant' || badge.message === r.summary.verdict ? '' : ` · ${text(badge.message)}`}${warnings > 0 ? ` · ${plural(warnings, 'warning')}` : ''}</div>
<div class="meta"><span class="target">${text(cut(r.target, 200))}</span>
<span>${text(r.tool.name)} ${text(r.tool.version)}</span>
<span>seed ${text(r.seed)}${r.summary.strict ? ' · strict' : ''}</span>
<span>${text(time(r.startedAt))}</span>
<a href="${attr(column.evidence)}">${column.evidenceKind === 'html' ? 'report' : 'report.json'}</a></div>
</th>`;
}

function renderRow(row: Row): string {
  const cells = row.cells.map((cell) => {
    if (cell.outcome === 'absent') return `<td class="cell o-absent" title="${attr(cell.note)}"><span aria-hidden="true">·</span> absent</td>`;
    return `<td class="cell o-${cell.outcome}"><a href="${attr(cell.href)}"${cell.note ? ` title="${attr(cell.note)}"` : ''}><span aria-hidden="true">${SYMBOL[cell.outcome]}</span> ${cell.outcome}${cell.detail ? `<span class="detail">${text(cell.detail)}</span>` : ''}</a></td>`;
  });
  return `<tr data-rule="${attr(`${row.id} ${row.title}`.toLowerCase())}">
<th scope="row" class="rid" id="${attr(anchor(row.id))}">${text(row.id)}</th>
<td class="title">${text(row.title)}</td>
<td class="sev"><span class="sev-${attr(row.severity)}">${text(row.severity)}</span></td>
${cells.join('\n')}
</tr>`;
}

const STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #57606a; --line: #d0d7de; --head: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fff; }
header.top { padding: 16px 20px 8px; }
h1 { font-size: 20px; margin: 0 0 8px; }
h1 .sub { display: block; font-size: 13px; font-weight: normal; color: var(--muted); }
.legend { list-style: none; margin: 0 0 8px; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 16px; color: var(--muted); font-size: 12px; }
.filter { margin: 8px 0 0; display: flex; gap: 12px; align-items: center; }
.filter input { font: inherit; padding: 3px 6px; width: 18em; border: 1px solid var(--line); border-radius: 4px; }
.filter output { color: var(--muted); font-size: 12px; }
main { padding: 0 20px 16px; }
table.matrix { border-collapse: separate; border-spacing: 0; min-width: 100%; }
.matrix th, .matrix td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: baseline; }
.matrix thead th { position: sticky; top: 0; z-index: 2; background: var(--head); border-bottom: 2px solid #8c959f; vertical-align: bottom; }
.matrix th.rid { position: sticky; left: 0; z-index: 1; background: #fff; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: nowrap; }
.matrix thead th.rid { z-index: 3; background: var(--head); font: inherit; font-weight: bold; }
.matrix td.title { min-width: 16em; max-width: 28em; }
.matrix td.sev { font-size: 12px; white-space: nowrap; }
.sev-MUST { font-weight: bold; }
.sev-SHOULD { color: var(--muted); }
.sev-load { color: var(--muted); font-style: italic; }
tr.group th { background: #eaeef2; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); position: static; }
th.impl { min-width: 11em; max-width: 16em; font-weight: normal; }
th.impl .name { font-weight: bold; overflow-wrap: anywhere; }
th.impl .n { display: inline-block; min-width: 1.5em; padding: 0 4px; border-radius: 8px; background: var(--ink); color: #fff; font-size: 11px; text-align: center; }
th.impl .verdict { display: inline-block; margin: 2px 0; padding: 0 6px; border-radius: 4px; font-weight: bold; font-size: 12px; }
.v-conformant { background: #dafbe1; color: #116329; border: 1px solid #4ac26b; }
.v-non-conformant { background: #ffebe9; color: #a40e26; border: 1px solid #ff8182; }
.v-error { background: #fbefff; color: #6e3c9c; border: 1px solid #c297ff; }
th.impl .meta { font-size: 11px; color: var(--muted); line-height: 1.35; }
th.impl .meta span, th.impl .meta a { display: block; overflow-wrap: anywhere; }
td.cell { white-space: nowrap; font-weight: 600; font-size: 13px; border-left: 2px solid #fff; }
td.cell a { color: inherit; text-decoration: none; display: block; }
td.cell a:hover, td.cell a:focus { text-decoration: underline; }
td.cell .detail { display: block; font-weight: normal; font-size: 11px; }
.o-pass { background: #e6f4ea; color: #1a5e2e; }
.o-fail { background: #ffd7d5; color: #8a0b1f; }
.o-warning { background: #fff1c2; color: #6b4a00; }
.o-waived { background: #fff1c2; color: #6b4a00; font-style: italic; }
.o-inconclusive { background: #e3ebff; color: #1f3f8f; }
.o-error { background: #f0e0ff; color: #5b2a86; }
.o-skip { background: #f2f3f5; color: #57606a; font-weight: normal; }
.o-absent { background: #fff; color: #8c959f; font-weight: normal; }
.chip { display: inline-block; padding: 0 6px; border-radius: 4px; font-weight: 600; }
tr:hover td.title, tr:hover th.rid { background: #f6f8fa; }
.no-match { color: var(--muted); }
footer { padding: 0 20px 24px; color: var(--muted); font-size: 12px; }
`;

/** The filter box: hides rows whose id and title do not hold the text typed. The page reads fully without it. */
const SCRIPT = `(() => {
  const form = document.getElementById('filter-form');
  const input = document.getElementById('filter');
  const shown = document.getElementById('shown');
  const none = document.getElementById('no-match');
  const rows = [...document.querySelectorAll('tr[data-rule]')];
  form.hidden = false;
  form.addEventListener('submit', (e) => e.preventDefault());
  const apply = () => {
    const q = input.value.trim().toLowerCase();
    let n = 0;
    for (const row of rows) {
      const show = q === '' || row.dataset.rule.includes(q);
      row.hidden = !show;
      if (show) n++;
    }
    shown.textContent = q === '' ? '' : n + ' of ' + rows.length + ' rows';
    none.hidden = n > 0;
  };
  input.addEventListener('input', apply);
})();`;


const CSP = `default-src 'none'; style-src 'sha256-${sha256(STYLE)}'; script-src 'sha256-${sha256(SCRIPT)}'; base-uri 'none'; form-action 'none'`;
