/**
 * The default command: a run of the suite with its configuration
 * (cli/run-config.ts), its reporters and, under `--embedded`, the reference
 * implementation in a child process. Returns the exit code; the reports are
 * written even when the run was interrupted.
 */
import { randomBytes } from 'node:crypto';
import { basename, dirname, resolve } from 'node:path';
import { type ErrorCode, PcError, UsageError } from '../core/errors.js';
import { type DirectoryLock, lockDirectory, noteOf, removePartialFilesSync, removeStale, WriteError } from '../core/safe-write.js';
import type { Reporter, ReporterContext } from '../reports/index.js';
import { reportMarkerOf } from '../reports/markers.js';
import { REPORT_FILES, type ReporterName } from '../reports/names.js';
import { exitCode as exitCodeOf } from '../result/policy.js';
import { useColor } from './conventions.js';
import { startReferenceProcess } from './embedded.js';
import { watchInterrupts } from './interrupt.js';
import type { Io } from './io.js';
import type { CliConfig } from './options.js';

/** Runs the suite as `config` says and returns the exit code; throws a `PcError` for what stops it before a verdict. */
export async function run(config: CliConfig, io: Io): Promise<number> {
  if (config.quiet && config.verbose) throw new UsageError('--quiet and --verbose exclude each other');
  if (config.dryRun) return (await import('./dry-run.js')).dryRun(config, io);
  // toConfig guarantees a key and a base URL unless the run is embedded.
  const apiKey = config.apiKey ?? `embedded-${randomBytes(12).toString('hex')}`;
  // The embedded reference starts in its own process while this one loads the engine and checks the options below;
  // the catch only keeps a failed start from being an unhandled rejection before it is awaited.
  const starting = config.embedded ? startReferenceProcess(apiKey) : undefined;
  starting?.catch(() => {});
  let embedded: Awaited<ReturnType<typeof startReferenceProcess>> | undefined;
  let lock: DirectoryLock | undefined;
  try {
    const [{ runConformance }, { reporters, renderVerdictLine }, { renderJson }, { setUpRun }, { headerLines }] = await Promise.all([
      import('../suites/engine.js'),
      import('../reports/index.js'),
      import('../reports/json.js'),
      import('./run-setup.js'),
      import('./transport.js'),
    ]);
    const out = config.json ? io.stderr : io.stdout;
    // Everything is checked before the first request: a report directory that cannot hold the reports, a file that
    // cannot be read, a header that cannot be sent cost nothing.
    const { reportDir, settings } = await setUpRun(config, io, { createReportDir: true });
    // A run that writes files holds its folder's lock until they are written: a second run into it is refused now.
    if (config.reporter.some((name) => Object.hasOwn(REPORT_FILES, name)))
      lock = await lockDirectory(reportDir, `--report-dir ${config.reportDir}`);
    const ctx: ReporterContext = {
      reportDir,
      out,
      progress: io.stderr,
      color: config.color ?? useColor(out, io.env),
      interactive: io.stderr.isTTY === true && !io.env.CI,
      env: io.env,
      verbosity: config.quiet ? 'quiet' : config.verbose ? 'verbose' : 'normal',
    };
    const active: { name: ReporterName; reporter: Reporter }[] = config.reporter.map((name) => ({ name, reporter: reporters[name](ctx) }));
    // How the run reaches its target, under the console's "testing …" line; what weakens or redirects the connection
    // is said even under --quiet or without the console reporter.
    const header = headerLines(
      {
        target: config.baseUrl,
        connection: settings.connection ?? {},
        files: config.connection,
        sources: settings.sources ?? { flags: [], environment: [] },
      },
      config.quiet || !config.reporter.includes('console'),
    );
    const interrupts = watchInterrupts(io);
    try {
      embedded = await starting;
      if (embedded) interrupts.onHardExit(embedded.kill);
      interrupts.onHardExit(() => {
        removePartialFilesSync();
        lock?.releaseSync();
      });
      const result = await runConformance({
        baseUrl: embedded?.url ?? config.baseUrl ?? '',
        apiKey,
        ...settings,
        exchangeEvents: config.verbose,
        signal: interrupts.signal,
        onEvent: (event) => {
          if (event.type !== 'run-end') for (const { reporter } of active) reporter.onEvent?.(event);
          if (event.type === 'run-start' && header.length > 0) io.stderr.write(`${header.map((line) => `  ${line}`).join('\n')}\n`);
        },
      });
      // Each report is written even when another cannot be; the console (last) still says the verdict.
      const written: string[] = [];
      const unwritten: WriteFailure[] = [];
      for (const { name, reporter } of active) {
        try {
          written.push(...((await reporter.onRunEnd?.(result, written)) ?? []));
        } catch (error) {
          unwritten.push({ name, error });
        }
      }
      // The folder describes this run alone: the reports of the tool's names it did not write (an earlier run's, or
      // one this run could not write) are removed, each only if the suite wrote it.
      if (lock)
        await removeStale(
          reportDir,
          reportMarkerOf,
          written.map((path) => basename(path)),
        );
      if (config.json) io.stdout.write(renderJson(result));
      // Without the console reporter the verdict still shows, one line: `--reporter junit` alone used to print nothing.
      if (!config.reporter.includes('console') && !result.summary.abort && !result.summary.interrupted)
        out.write(`${renderVerdictLine(result, ctx.color)}\n`);
      const notWritten = unwritten.length > 0 ? notWrittenLine(unwritten, written, config.reportDir) : undefined;
      if (result.summary.interrupted) {
        if (notWritten) io.stderr.write(`petstore-conformance: error: ${notWritten}\n`);
        return exitCodeOf(result.summary);
      }
      // The target could not be tested: the reports say so, and so does one line.
      if (result.summary.abort)
        throw new PcError(result.summary.abort.code as ErrorCode, `${result.summary.abort.message}${notWritten ? `; ${notWritten}` : ''}`);
      if (notWritten) throw new PcError('PC_ERR_WRITE', `${notWritten}; the verdict was ${result.summary.verdict}`);
      return exitCodeOf(result.summary);
    } finally {
      interrupts.dispose();
    }
  } finally {
    await lock?.release();
    // Stopped whether the run happened or a check above refused the options while it started.
    await (embedded ?? (await starting?.catch(() => undefined)))?.close();
  }
}

/** A report a reporter could not write, and why. */
interface WriteFailure {
  name: ReporterName;
  error: unknown;
}

/**
 * One line for the reports not written: each with why (`report.json (ENOSPC: no space left on device)`), and
 * those that were. A report not written leaves no file of an earlier run under its name (removed as stale),
 * except a link or another non-regular file, or a file the suite did not write, which is never touched.
 */
function notWrittenLine(unwritten: readonly WriteFailure[], written: readonly string[], reportDir: string): string {
  // A file outside the report folder (GITHUB_STEP_SUMMARY, which the runner gives) is named where it is.
  const elsewhere = (error: unknown): error is WriteError =>
    error instanceof WriteError && dirname(resolve(error.path)) !== resolve(reportDir);
  const why = ({ name, error }: WriteFailure): string =>
    error instanceof WriteError
      ? `${error.label} (${elsewhere(error) ? `at ${error.path}: ` : ''}${error.why})`
      : `${name} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message.split('\n')[0]})`;
  const into = unwritten.every(({ error }) => elsewhere(error)) ? '' : ` to ${reportDir}`;
  const notes = [
    ...new Set(
      unwritten.map(({ error }) => (error instanceof WriteError ? noteOf(error.failure) : undefined)).filter((note) => note !== undefined),
    ),
  ];
  return `could not write ${unwritten.map(why).join(', ')}${into}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}; ${written.length > 0 ? `written: ${written.map((path) => basename(path)).join(', ')}` : 'no report written'}`;
}
