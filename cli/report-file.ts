/**
 * Reading a report.json given on the command line (matrix, replay): a file or a
 * report directory, bounded in size, parsed, and validated against the report
 * schema; anything else is refused with one line naming the file.
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { JSON_REPORT_FILE } from '../reports/json.js';
import { MAX_REPORT_BYTES, reportSchema } from '../spec/report-schema.js';
import { schemaErrorText, validatorFor } from '../spec/validate.js';
import type { ConformanceResult } from '../result/model.js';
import { readBoundedFile } from './files.js';

/** A path to a report: a file, or a directory holding report.json (a `--report-dir`). */
export async function reportFile(path: string, cwd: string): Promise<string> {
  const absolute = resolve(cwd, path);
  const info = await stat(absolute).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      `${path}: ${error.code === 'ENOENT' ? 'no such file or directory' : `cannot read it (${error.code ?? error.message})`}`,
    );
  });
  return info.isDirectory() ? join(absolute, JSON_REPORT_FILE) : absolute;
}

export async function readReport(path: string, cwd: string): Promise<{ file: string; result: ConformanceResult }> {
  const file = await reportFile(path, cwd);
  const refuse = (why: string): never => {
    throw new UsageError(`${path}: ${why}`);
  };
  const content = (await readBoundedFile(file, MAX_REPORT_BYTES, file === resolve(cwd, path) ? path : `${path}: ${file}`)).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(content.replace(/^\ufeff/, ''));
  } catch (error) {
    refuse(`not JSON (${(error as Error).message.split('\n')[0]})`);
  }
  const validate = validatorFor(reportSchema);
  if (!validate(value)) refuse(`not a petstore-conformance report: ${schemaErrorText(validate.errors)}`);
  return { file, result: value as ConformanceResult };
}
