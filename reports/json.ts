import type { ConformanceResult } from '../suites/model.js';
import { fileReporter } from './file.js';
import { REPORT_FILES } from './names.js';

export const JSON_REPORT_FILE = REPORT_FILES.json;

/** report.json's text: the result as it is (the schema is spec/report.schema.json). */
export function renderJson(result: ConformanceResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/** Writes report.json into the report directory. */
export const jsonReporter = fileReporter(JSON_REPORT_FILE, renderJson);
