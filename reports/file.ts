import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Marker, writeFileAtomic } from '../core/safe-write.js';
import type { ConformanceResult } from '../result/model.js';
import type { Reporter, ReporterContext } from './reporter.js';

/**
 * A reporter that writes one file, `render(result, written)`, into the report
 * directory and returns its path; `written` holds the paths the reporters
 * before it wrote (report.html names report.json in its replay commands).
 * The file is written whole or not at all, never through a link, and
 * replaces only a file that `ours` knows as the suite's (core/safe-write.ts,
 * reports/markers.ts); a failure throws its `WriteError`.
 */
export function fileReporter(
  file: string,
  ours: Marker,
  render: (result: ConformanceResult, written: readonly string[]) => string,
): (ctx: ReporterContext) => Reporter {
  return (ctx) => ({
    async onRunEnd(result, written) {
      await mkdir(ctx.reportDir, { recursive: true });
      const path = join(ctx.reportDir, file);
      await writeFileAtomic(path, render(result, written), { label: file, ours });
      return [path];
    },
  });
}
