import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConformanceResult } from '../suites/model.js';
import type { Reporter, ReporterContext } from './index.js';

export const JSON_REPORT_FILE = 'report.json';

/** report.json's text: the result as it is (the schema is spec/report.schema.json). */
export function renderJson(result: ConformanceResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/** Writes report.json into the report directory. */
export function jsonReporter(ctx: ReporterContext): Reporter {
  return {
    async onRunEnd(result) {
      await mkdir(ctx.reportDir, { recursive: true });
      const path = join(ctx.reportDir, JSON_REPORT_FILE);
      await writeFile(path, renderJson(result));
      return [path];
    },
  };
}
