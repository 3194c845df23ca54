import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConformanceResult } from '../suites/model.js';
import type { Reporter, ReporterContext } from './index.js';

/** A reporter that writes one file, `render(result)`, into the report directory and returns its path. */
export function fileReporter(file: string, render: (result: ConformanceResult) => string): (ctx: ReporterContext) => Reporter {
  return (ctx) => ({
    async onRunEnd(result) {
      await mkdir(ctx.reportDir, { recursive: true });
      const path = join(ctx.reportDir, file);
      await writeFile(path, render(result));
      return [path];
    },
  });
}
