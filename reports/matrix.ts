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
 *
 * The rows and cells are reports/matrix-rows.ts's; the file names, badges and
 * markers reports/matrix-files.ts's.
 */
import escapeHtml from 'escape-html';
import { ruleAnchor as anchor } from '../spec/anchor.js';
import { undecidedList } from '../result/policy.js';
import { plural, severityTag } from './components.js';
import { badgeFor } from './matrix-files.js';
import {
  type CellOutcome,
  columnNames,
  cut,
  distinct,
  loadRows,
  type MatrixColumn,
  oneLine,
  type Row,
  ruleRows,
  time,
  warningCount,
} from './matrix-rows.js';
import { renderPage } from './page.js';
import { html, join, type SafeHtml } from './safe-html.js';

// Callers import the matrix's data and files from here.
export {
  BADGE_FILE,
  type Badge,
  badgeFileName,
  badgeFor,
  defaultLabel,
  MATRIX_HTML_FILE,
  MATRIX_MARKDOWN_FILE,
  matrixMarkerOf,
} from './matrix-files.js';
export { type CellOutcome, evidenceHref, failureCount, type MatrixColumn } from './matrix-rows.js';

/** The symbol of each cell outcome, beside its word. */
const SYMBOL: Record<CellOutcome, string> = {
  pass: '✓',
  fail: '✗',
  warning: '!',
  waived: 'W',
  inconclusive: '?',
  error: 'E',
  skip: '–',
  absent: '·',
};

/** What each cell outcome means, in the page's legend. */
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
        md(
          `${r.summary.verdict}${r.summary.strict ? ' (strict)' : ''}${warningCount(r) > 0 ? `, ${plural(warningCount(r), 'warning')}` : ''}${r.summary.undecided?.length ? `; ${undecidedList(r.summary.undecided)}` : ''}`,
        ),
        md(badgeFor(r).message),
        `[${c.evidenceKind === 'html' ? 'report.html' : 'report.json'}](${mdHref(c.evidence)})`,
      ]);
    }),
  ];
  const table = (heading: string, first: string, rows: Row[]) => {
    if (rows.length === 0) return;
    lines.push(
      '',
      `## ${heading}`,
      '',
      mdRow([first, 'Title', 'Severity', ...names.map(md)]),
      mdRow(Array(3 + columns.length).fill('---')),
    );
    for (const row of rows) {
      const cells = row.cells.map((cell) =>
        cell.outcome === 'absent' ? '—' : `[${md(cell.label)}${cell.detail ? ` ${md(cell.detail)}` : ''}](${mdHref(cell.href)})`,
      );
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
${join(
  legend.map((o) => html`<li>${chip(o)} ${LEGEND[o]}</li>`),
  '\n',
)}
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
${join(
  columns.map((c, i) => renderColumnHead(c, names[i]!, i)),
  '\n',
)}
</tr>
</thead>
${body('Rules', rows)}
${body('Load thresholds', load)}
</table>
<p id="no-match" class="no-match" hidden>No rule matches the filter.</p>`,
    footer: html`<p>Each cell links to the evidence in that implementation's report. Hover a cell for its first finding. This page is self-contained and makes no network requests.</p>`,
  });
}

const chip = (outcome: CellOutcome): SafeHtml =>
  html`<span class="chip o-${outcome}"><span aria-hidden="true">${SYMBOL[outcome]}</span> ${outcome}</span>`;

function renderColumnHead(column: MatrixColumn, name: string, index: number): SafeHtml {
  const r = column.result;
  const badge = badgeFor(r);
  const verdict =
    r.summary.verdict === 'conformant' || r.summary.verdict === 'non-conformant' || r.summary.verdict === 'inconclusive'
      ? r.summary.verdict
      : 'error';
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
    if (cell.outcome === 'absent')
      return html`<td class="cell o-absent" title="${oneLine(cell.note)}"><span aria-hidden="true">·</span> absent</td>`;
    return html`<td class="cell o-${cell.outcome}"><a href="${oneLine(cell.href)}"${cell.note && html` title="${oneLine(cell.note)}"`}><span aria-hidden="true">${SYMBOL[cell.outcome]}</span> ${cell.label}${cell.detail && html`<span class="detail">${oneLine(cell.detail)}</span>`}</a></td>`;
  });
  return html`<tr data-rule="${oneLine(`${row.id} ${row.title}`.toLowerCase())}">
<th scope="row" class="rid" id="${anchor(row.id)}">${oneLine(row.id)}</th>
<td class="title">${oneLine(row.title)}</td>
<td class="severity">${severityTag(oneLine(row.severity))}</td>
${join(cells, '\n')}
</tr>`;
}
