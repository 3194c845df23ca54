/**
 * What report.html and matrix.html both show, as components over the
 * `html` template (reports/safe-html.ts): counts, marked text, the severity tag.
 */
import { codeOf, html, INVISIBLE, type SafeHtml } from './safe-html.js';

/** A count as the pages write it (`1,234`); anything not a finite number (a hand-edited report) as it is. */
export const count = (n: number): string => (Number.isFinite(n) ? n.toLocaleString('en-US') : String(n));

/** `1 check`, `3 checks`. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${count(n)} ${n === 1 ? one : many}`;

/**
 * Text content with each invisible or reordering character (safe-html.ts's
 * INVISIBLE) shown as a marked `\uXXXX` (`<span class="ctl">`), so a reader
 * sees it was there. Accepts anything: a hand-edited report may hold the wrong types.
 */
export function markedText(value: unknown): SafeHtml {
  const s = String(value);
  const parts: SafeHtml[] = [];
  let last = 0;
  for (const match of s.matchAll(INVISIBLE)) {
    parts.push(html`${s.slice(last, match.index)}<span class="ctl">${codeOf(match[0])}</span>`);
    last = match.index + match[0].length;
  }
  return html`${parts}${s.slice(last)}`;
}

/** A rule's severity (`MUST`, `SHOULD`, or the matrix's `load`), styled by shared.css. */
export const severityTag = (severity: string): SafeHtml => html`<span class="sev sev-${severity}">${severity}</span>`;
