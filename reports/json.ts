import type { ConformanceResult } from '../result/model.js';
import { fileReporter } from './file.js';
import { REPORT_MARKERS } from './markers.js';
import { REPORT_FILES } from './names.js';

export const JSON_REPORT_FILE = REPORT_FILES.json;

/**
 * report.json's text: the result as it is (the schema is spec/report.schema.json),
 * `tool` first whatever the object's order: it tells a report.json of the
 * suite's from a user's file of that name (reports/markers.ts).
 */
export function renderJson(result: ConformanceResult): string {
  const { tool, ...rest } = result;
  return `${JSON.stringify({ tool, ...rest }, null, 2)}\n`;
}

/** Writes report.json into the report directory. */
export const jsonReporter = fileReporter(JSON_REPORT_FILE, REPORT_MARKERS.json, renderJson);
