/**
 * What a run reads and checks before its first request, in one place, so that
 * `--dry-run` refuses exactly what the run would: the report directory (when a
 * reporter writes files) and what is at the names of the reports it writes,
 * the waivers file, the connection description
 * (certificates, proxy, headers), and the engine's settings as
 * `runConformance` will resolve them.
 */
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { refusalOf } from '../core/safe-write.js';
import { REPORT_MARKERS } from '../reports/markers.js';
import { type FileReporterName, REPORT_FILES } from '../reports/names.js';
import type { ConformanceOptions } from '../suites/options.js';
import { buildConnection } from './connection.js';
import { prepareOutputDir } from './files.js';
import type { Io } from './io.js';
import { engineSettingsOf } from './option-views.js';
import type { CliConfig } from './options.js';
import { settingSources } from './transport.js';
import { loadWaivers } from './waivers.js';

/** The run's settings for the engine, all but where the target is and its key (the embedded reference's are known only once it started). */
export type RunSettings = Omit<ConformanceOptions, 'baseUrl' | 'apiKey'>;

/**
 * Reads and checks what `config` names and returns the report directory
 * (absolute when a reporter writes files) and the engine's settings. A run
 * creates a missing report directory; a dry run (`createReportDir: false`)
 * only checks that it could. Throws one-line `UsageError`s.
 */
export async function setUpRun(
  config: CliConfig,
  io: Io,
  { createReportDir }: { createReportDir: boolean },
): Promise<{ reportDir: string; settings: RunSettings }> {
  const cwd = io.cwd ?? process.cwd();
  const writesFiles = config.reporter.some((name) => Object.hasOwn(REPORT_FILES, name));
  const reportDir = writesFiles
    ? await prepareOutputDir(config.reportDir, '--report-dir', cwd, { create: createReportDir })
    : config.reportDir;
  if (writesFiles) await checkReportNames(reportDir, config);
  const waivers = config.waivers ? await loadWaivers(config.waivers) : undefined;
  const connection = await buildConnection(config.connection, io.env, cwd, { embedded: config.embedded });
  const sources = settingSources(config.origins, { target: config.baseUrl, connection });
  return {
    reportDir,
    settings: {
      // Every engine option the flags, the variables or the file set, in the engine's unit; the rest is the engine's default.
      ...engineSettingsOf(config),
      connection,
      loadProfiles: config.profiles,
      ...(waivers ? { waivers } : {}),
      sources,
    },
  };
}

/**
 * Refuses, before the first request, a report folder where a report the run
 * writes would meet what it may not replace: a file the suite did not write
 * (a user's own junit.xml or report.html), a link, a folder, a FIFO. One line
 * names each. The write checks again (a file may appear while the run works).
 */
async function checkReportNames(reportDir: string, config: CliConfig): Promise<void> {
  const files = config.reporter
    .filter((reporter): reporter is FileReporterName => Object.hasOwn(REPORT_FILES, reporter))
    .map((reporter) => ({ path: join(reportDir, REPORT_FILES[reporter]), ours: REPORT_MARKERS[reporter], label: REPORT_FILES[reporter] }));
  const refused = await refusalOf(files, 'choose another --report-dir');
  if (refused) throw new UsageError(`--report-dir ${config.reportDir}: ${refused}`);
}
