/**
 * The files a matrix writes besides its table (reports/matrix.ts): their
 * names, one shields.io badge per report, and how each file is known as one
 * the matrix wrote (core/safe-write.ts replaces or removes only those).
 */
import { type Marker, textMarker } from '../core/safe-write.js';
import type { ConformanceResult } from '../result/model.js';
import { plural } from './components.js';
import { pageMarker } from './markers.js';
import { failureCount } from './matrix-rows.js';

/** The matrix's page. */
export const MATRIX_HTML_FILE = 'matrix.html';
/** The matrix's Markdown table. */
export const MATRIX_MARKDOWN_FILE = 'matrix.md';

/** A shields.io endpoint badge (https://shields.io/badges/endpoint-badge). */
export interface Badge {
  schemaVersion: 1;
  label: string;
  message: string;
  color: 'brightgreen' | 'red' | 'lightgrey';
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
      return (
        schemaVersion === 1 &&
        typeof label === 'string' &&
        label.startsWith('petstore-conformance ') &&
        typeof message === 'string' &&
        typeof color === 'string' &&
        Object.keys(rest).length === 0
      );
    } catch {
      // Not JSON, or longer than a badge.
      return false;
    }
  },
};

/** matrix.md's title and the start of its first paragraph, as renderMatrixMarkdown (reports/matrix.ts) writes them. */
const markdownMarker = textMarker(
  1024,
  /^# Compatibility matrix\n\nAnimal Store Service [^\n]*\. Outcomes: pass, fail, warning \(a SHOULD rule failed in a run that was not strict\)/,
);

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
