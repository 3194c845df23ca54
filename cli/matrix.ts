/**
 * `petstore-conformance matrix <report.json…>`: the compatibility matrix of
 * several runs (reports/matrix.ts) written as matrix.html, matrix.md and one
 * shields.io badge JSON per implementation.
 *
 * Reports are untrusted files: each is read (at most {@link MAX_REPORT_BYTES}),
 * parsed and validated against the report schema (spec/report-schema.ts, which
 * spec/report.schema.json is generated from) before anything is written; the
 * first that fails is refused with one line naming the file and its first
 * error.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { asPcError, PcError, UsageError } from '../core/errors.js';
import { oneLine } from '../core/one-line.js';
import { lockDirectory, refusalOf, removeStale, writeFileAtomic } from '../core/safe-write.js';
import { HTML_REPORT_FILE } from '../reports/html.js';
import {
  badgeFileName,
  badgeFor,
  defaultLabel,
  MATRIX_HTML_FILE,
  MATRIX_MARKDOWN_FILE,
  type MatrixColumn,
  matrixMarkerOf,
  renderMatrixHtml,
  renderMatrixMarkdown,
} from '../reports/matrix.js';
import { prepareOutputDir } from './files.js';
import type { Io } from './io.js';
import { inFlags } from './options.js';
import { readReport, reportFile } from './report-file.js';

/** Where the matrix goes without `--out-dir`. */
export const MATRIX_OUT_DIR = 'petstore-conformance-matrix';

/** Exit code when the matrix was written; every refusal is a `PcError` (exit 2). */
const EXIT_WRITTEN = 0;

/** Options of {@link matrixCommand}. */
export interface MatrixOptions {
  /** Directory for matrix.html, matrix.md and the badges; created if missing. Relative to `io.cwd`. */
  outDir: string;
  /** Column names: name → report path (as `--label name=path` gives them; a path as given among the reports, or the same file). */
  labels?: Record<string, string>;
}

/**
 * Reads and validates every report, then writes the matrix and prints where.
 * Returns 0 when written, 2 for a usage error or an invalid report (one line
 * on stderr: `petstore-conformance: error: …`). Never throws.
 */
export async function matrixCommand(paths: string[], options: MatrixOptions, io: Pick<Io, 'stdout' | 'stderr' | 'cwd'>): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  try {
    if (paths.length === 0) throw new UsageError('matrix needs at least one report.json');
    const outDir = resolve(cwd, options.outDir);
    const reports = [];
    for (const path of paths) reports.push(await readReport(path, cwd));
    const labels = await labelsByFile(
      options.labels ?? {},
      reports.map((r) => r.file),
      cwd,
    );
    const columns: MatrixColumn[] = [];
    for (const report of reports)
      columns.push({
        label: labels.get(report.file) ?? defaultLabel(report.result),
        result: report.result,
        ...(await evidenceOf(report.file, outDir)),
      });

    // Checked and created one level at a time (Node 20's recursive mkdir never returns below /proc).
    await prepareOutputDir(options.outDir, '--out-dir', cwd);
    // Held as a run holds its report folder: the folder ends up describing one matrix.
    const lock = await lockDirectory(outDir, `--out-dir ${options.outDir}`);
    const written: { path: string; note?: string }[] = [];
    try {
      const files: { name: string; content: string; note?: string }[] = [
        { name: MATRIX_HTML_FILE, content: renderMatrixHtml(columns) },
        { name: MATRIX_MARKDOWN_FILE, content: renderMatrixMarkdown(columns) },
        ...columns.map((column, i) => {
          const badge = badgeFor(column.result);
          return { name: badgeFileName(i, column.label), content: `${JSON.stringify(badge)}\n`, note: badge.message };
        }),
      ];
      // Every name is checked before the first is written: a user's matrix.md is refused before the page is replaced.
      const refused = await refusalOf(
        files.map(({ name }) => ({ path: join(outDir, name), ours: matrixMarkerOf(name)!, label: name })),
        'choose another --out-dir',
      );
      if (refused) throw new UsageError(`--out-dir ${options.outDir}: ${refused}`);
      for (const { name, content, note } of files) {
        const path = join(outDir, name);
        await writeFileAtomic(path, content, { label: path, ours: matrixMarkerOf(name)! });
        written.push({ path, ...(note ? { note } : {}) });
      }
      // The badges of an earlier matrix of more reports, or other labels: the tool's own badge names only, each only if the matrix wrote it.
      await removeStale(
        outDir,
        (name) => (name === MATRIX_HTML_FILE || name === MATRIX_MARKDOWN_FILE ? undefined : matrixMarkerOf(name)),
        written.map((w) => basename(w.path)),
      );
    } finally {
      await lock.release();
    }
    const shown = (path: string) => {
      const rel = relative(cwd, path);
      return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
    };
    io.stdout.write(
      `compatibility matrix of ${columns.length} ${columns.length === 1 ? 'report' : 'reports'} written:\n${written.map((w) => `  ${oneLine(shown(w.path))}${w.note ? `  (${oneLine(w.note)})` : ''}\n`).join('')}`,
    );
    return EXIT_WRITTEN;
  } catch (error) {
    const pcError = error instanceof PcError ? error : asPcError(error);
    io.stderr.write(`petstore-conformance: error: ${oneLine(inFlags(pcError))}\n`);
    return pcError.exitCode;
  }
}

/** `--label name=path` values (repeated or comma-free) as name → path. Throws `UsageError` on a malformed or repeated name. */
export function parseLabels(values: readonly unknown[] | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const value of values ?? []) {
    const s = String(value);
    const at = s.indexOf('=');
    const name = s.slice(0, at).trim();
    const path = s.slice(at + 1);
    if (at < 0 || name === '' || path === '') throw new UsageError(`--label takes name=path (a report.json), got "${s}"`);
    if (Object.hasOwn(labels, name)) throw new UsageError(`--label: the name "${name}" is given twice`);
    labels[name] = path;
  }
  return labels;
}

/** `--label` names by report file; a label whose path is not one of the reports is a usage error. */
async function labelsByFile(labels: Record<string, string>, files: readonly string[], cwd: string): Promise<Map<string, string>> {
  const byFile = new Map<string, string>();
  for (const [name, path] of Object.entries(labels)) {
    const file = await reportFile(path, cwd).catch(() => resolve(cwd, path));
    if (!files.includes(file)) throw new UsageError(`--label ${name}=${path}: ${path} is not one of the reports given`);
    byFile.set(file, name);
  }
  return byFile;
}

/** The evidence of a report: report.html beside it when there is one, else the report.json; as a URL relative to the matrix. */
async function evidenceOf(file: string, outDir: string): Promise<Pick<MatrixColumn, 'evidence' | 'evidenceKind'>> {
  const html = join(dirname(file), HTML_REPORT_FILE);
  const hasHtml = await stat(html).then(
    (info) => info.isFile(),
    () => false,
  );
  const target = hasHtml ? html : file;
  const rel = relative(outDir, target);
  const evidence = isAbsolute(rel) ? pathToFileURL(target).href : rel.split(sep).map(encodeURIComponent).join('/');
  return { evidence, evidenceKind: hasHtml ? 'html' : 'json' };
}
