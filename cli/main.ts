/**
 * The command line: a thin layer over `runConformance`, the reporters and the
 * reference server. Returns the exit code; only bin/ sets it on the process.
 *
 * Exit codes: 0 conformant, 1 non-conformant, 2 usage error, unreachable or
 * misconfigured target, or internal error, 3 conformant but a load threshold
 * breached, 4 inconclusive (a MUST rule decided on no case), 130/143 interrupted.
 */
import { randomBytes } from 'node:crypto';
import { basename, relative } from 'node:path';
import type { Argv, Options } from 'yargs';
import { asPcError, type ErrorCode, PcError, UsageError } from '../core/errors.js';
import { type DirectoryLock, lockDirectory, noteOf, removePartialFilesSync, removeStale, WriteError } from '../core/safe-write.js';
import { TOOL_VERSION } from '../core/version.js';
import type { Reporter, ReporterContext } from '../reports/index.js';
import { reportMarkerOf } from '../reports/markers.js';
import { REPORT_FILES, REPORTER_NAMES, type ReporterName } from '../reports/names.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import { EXIT, exitCode as exitCodeOf } from '../result/policy.js';
import { type ConnectionFlags, connectionFlags, connectionOptions } from './connection-flags.js';
import { explainUnknown, repeatedOption, useColor } from './conventions.js';
import { errorLine } from './errors.js';
import { startReferenceProcess } from './embedded.js';
import { apiKeyOf, documented, withEnv } from './env.js';
import { watchInterrupts } from './interrupt.js';
import { defaultIo, type Io } from './io.js';
import { CLI_DEFAULTS, type CliConfig, matrixOptions, parseFingerprints, parseRateLimit, replayOptions, rulesOptions, runOptions, SERVE_DEFAULTS, serveOptions } from './options.js';

// Only light modules are imported above: a static import is loaded before main runs, whatever the command. Each
// command loads what it needs with `await import()` where it runs, so `--version`, `--help`, `rules` and `serve`
// start without the engine, fast-check, ajv, undici or the reporters.

export type { Io } from './io.js';

export { EXIT };

/** The default command's options: the run's and the connection's. */
const RUN_OPTIONS: Record<string, Options> = { ...runOptions, ...connectionOptions };

/** The commands, for "did you mean". */
const COMMANDS = ['rules', 'serve', 'matrix', 'replay', 'certify', 'verify', 'export-load', 'completion'];

/** Runs the CLI with `argv` (without node and script) and returns the exit code. Never throws. */
export async function main(argv: readonly string[], io: Io = defaultIo()): Promise<number> {
  // Answered before yargs is loaded: `--version` alone starts about as fast as node itself.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    io.stdout.write(`${TOOL_VERSION}\n`);
    return EXIT.conformant;
  }
  let exitCode: number = EXIT.conformant;
  // Every key the command line or the environment holds: no line this command prints may show one.
  const prepared = prepareArgv(argv);
  const { redactorForAll } = await import('../core/redact.js');
  const secrets = redactorForAll([...prepared.keys, io.env.PETSTORE_API_KEY]);
  try {
    if (prepared.keys.length > 1) throw new UsageError('--api-key is given more than once');
    const { default: yargs } = await import('yargs');
    // The options of the command being parsed: its builder (run only for that command) records them, for "did you
    // mean" and for the environment, which fills what the flags leave out (cli/env.ts).
    let parsing: Record<string, Options> = RUN_OPTIONS;
    const offer = (y: Argv, options: Record<string, Options>): Argv => ((parsing = options), y.options(documented(options)));
    // An option that takes one value, given twice, is refused by name whatever the command (flags still win over variables).
    const once = (args: Record<string, unknown>, options: Record<string, Options>): Record<string, unknown> => {
      const repeated = repeatedOption(args, prepared.args, options);
      if (repeated !== undefined) throw new UsageError(`--${repeated} is given more than once; ${options[repeated]!.type === 'boolean' ? 'give it once' : 'it takes one value'}`);
      return args;
    };
    const given = (args: Record<string, unknown>): Record<string, unknown> => withEnv(once(args, parsing), parsing, io.env);
    const cli = yargs(prepared.args)
      .scriptName('petstore-conformance')
      .usage('$0 --base-url <url> [options]\n\nConformance and load test suite for the Animal Store Service interface. The key is read from PETSTORE_API_KEY (export it from a secret store or a CI secret; --api-key puts it where every user of the machine can read it).')
      .command('$0', 'Run the conformance suite against --base-url (or --embedded)', (y: Argv) => offer(y, RUN_OPTIONS), async (args) => {
        exitCode = await run(await toConfig(once(args as Record<string, unknown>, RUN_OPTIONS), io), io);
      })
      .command('rules', 'Print the rule catalog', (y: Argv) => offer(y, rulesOptions), async (args) => {
        const { renderRules, renderRulesJson } = await import('./rules.js');
        io.stdout.write(given(args).json === true ? renderRulesJson() : renderRules());
      })
      .command('serve', 'Start the embedded reference implementation alone', (y: Argv) => offer(y, serveOptions), async (args) => {
        const { port = SERVE_DEFAULTS.port, host = SERVE_DEFAULTS.host, 'api-key': apiKey } = given(args) as { port?: number; host?: string; 'api-key'?: string };
        exitCode = await serve(port, host, apiKeyOf(apiKey, io.env), io);
      })
      .command('matrix <reports..>', 'Compare report.json files: matrix.html, matrix.md and a badge JSON per implementation', (y: Argv) =>
        offer(y.positional('reports', { type: 'string', array: true, describe: 'report.json files (or the directories holding them)' }), matrixOptions), async (raw) => {
        const args = given(raw);
        // Loaded on demand: a conformance run does not pay for the matrix's schema compilation.
        const { MATRIX_OUT_DIR, matrixCommand, parseLabels } = await import('./matrix.js');
        exitCode = await matrixCommand(args.reports as string[], { outDir: (args['out-dir'] as string | undefined) ?? MATRIX_OUT_DIR, labels: parseLabels(args.label as string[] | undefined) }, io);
      })
      .command('replay <report> <case>', 'Send a recorded failure again and judge the answer (exit 0 passes now, 1 still fails, 4 cannot be judged alone)', (y: Argv) =>
        offer(y.positional('report', { type: 'string', describe: 'report.json (or its directory)' }).positional('case', { type: 'string', describe: 'case id of the failure (c-…)' }), replayOptions), async (raw) => {
        const args = given(raw);
        const [{ replayCommand }, { buildConnection }, { settingSources }] = await Promise.all([import('./replay.js'), import('./connection.js'), import('./transport.js')]);
        const apiKey = apiKeyOf(args['api-key'], io.env);
        const cwd = io.cwd ?? process.cwd();
        const flags = connectionFlags(args);
        const connection = await buildConnection(flags, io.env, cwd);
        const baseUrl = args['base-url'] as string | undefined;
        const sources = settingSources({ typed: raw, filled: args }, { target: baseUrl, connection });
        exitCode = await replayCommand(String(args.report), String(args.case), { ...(baseUrl ? { baseUrl } : {}), ...(apiKey ? { apiKey } : {}), timeoutMs: (args.timeout as number | undefined) ?? CLI_DEFAULTS.timeout, cwd, connection, files: flags, sources }, io);
      })
      .command('certify', 'Certify an implementation: the full suite with fixed settings, written as a bundle (.tar.gz) verify can check', async (y: Argv) => offer(y, (await import('./certify.js')).certifyOptions), async (args) => {
        exitCode = await (await import('./certify.js')).certifyCommand(given(args), io, args);
      })
      .command('verify <bundle>', 'Check a certification bundle offline: hashes, signature, suite version, and every verdict recomputed from its transcript', async (y: Argv) => offer(y.positional('bundle', { type: 'string', describe: 'The bundle (.tar.gz)' }), (await import('./verify.js')).verifyOptions), async (raw) => {
        const args = given(raw);
        const flag = (name: string) => (args[name] === undefined ? undefined : String(args[name]));
        const [publicKey, product, baseUrl] = [flag('public-key'), flag('product'), flag('base-url')];
        exitCode = await (await import('./verify.js')).verifyCommand(args.bundle as string | undefined, { ...(publicKey === undefined ? {} : { publicKey }), ...(product === undefined ? {} : { product }), ...(baseUrl === undefined ? {} : { baseUrl }) }, io);
      })
      .command('export-load', 'Write a k6 or Artillery script that reproduces a load profile (mix, pacing, thresholds, bearer auth from an environment variable)', async (y: Argv) => offer(y, (await import('./export-load.js')).exportLoadOptions), async (args) => {
        exitCode = await (await import('./export-load.js')).exportLoadCommand(given(args), io);
      })
      .completion('completion', 'Print a bash/zsh completion script (petstore-conformance completion >> ~/.bashrc)', (current: string, args: { _: unknown[] }, fallback: (done: (error: Error | null, completions: string[] | undefined) => void) => void, done: (completions: string[]) => void) => {
        // The run's flags live in the default command, which yargs does not offer: offer them when no command was typed.
        if (current.startsWith('-') && args._.length <= 1) return done([...Object.keys(RUN_OPTIONS).map((f) => `--${f}`), '--help', '--version'].filter((f) => f.startsWith(current)));
        fallback((_error, completions) => done((completions ?? []).filter((c) => c !== '$0')));
      })
      .example('$0 --base-url https://staging.example/v1', 'Check an implementation (the key in PETSTORE_API_KEY)')
      .example('$0 --embedded', 'Check the embedded reference implementation')
      .epilogue(`Exit codes: 0 conformant, 1 non-conformant, 2 usage error, unreachable target or internal error, 3 conformant but a load threshold breached, 4 inconclusive (a MUST rule decided on no case), 130/143 interrupted by SIGINT/SIGTERM (reports written).\nInterface version ${INTERFACE_VERSION}.`)
      .version(TOOL_VERSION)
      .alias('v', 'version')
      .help()
      .alias('h', 'help')
      .strict()
      .wrap(Math.min(110, (io.stdout as { columns?: number }).columns ?? 100))
      .exitProcess(false)
      .fail((message: string | undefined, error: Error | undefined) => {
        throw error ?? new UsageError(invalidValues(explainUnknown(message ?? 'invalid arguments', prepared.args, Object.keys(parsing).filter((flag) => parsing[flag]!.hidden !== true), COMMANDS)));
      });
    // yargs prints the script for `completion` and then, with exitProcess(false), goes on to run the default command.
    if (argv[0] === 'completion' && argv.length === 1) {
      cli.showCompletionScript();
      return EXIT.conformant;
    }
    await cli.parseAsync();
    return exitCode;
  } catch (error) {
    const pcError = error instanceof PcError ? error : asPcError(error);
    io.stderr.write(`${secrets.redact(errorLine(pcError, '--help'))}\n`);
    if (io.env.PETSTORE_CONFORMANCE_DEBUG && error instanceof Error) io.stderr.write(`${secrets.redact(error.stack ?? '')}\n`);
    return pcError.exitCode;
  }
}

/** A long option as written on a command line: `--name` or `--name=…`. */
const LONG_FLAG = /^--[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?:=|$)/;

/**
 * The arguments with every `--api-key <value>` written as `--api-key=<value>`,
 * so a key that begins with "-" is taken as the value (yargs would read
 * `-Xq7…` as short flags and echo them), and the keys found.
 */
export function prepareArgv(argv: readonly string[]): { args: string[]; keys: string[] } {
  const args: string[] = [];
  const keys: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      args.push(...argv.slice(i));
      break;
    }
    if (arg === '--api-key' && i + 1 < argv.length && !LONG_FLAG.test(argv[i + 1]!)) {
      keys.push(argv[i + 1]!);
      args.push(`--api-key=${argv[++i]!}`);
    } else {
      if (arg.startsWith('--api-key=')) keys.push(arg.slice('--api-key='.length));
      args.push(arg);
    }
  }
  return { args, keys };
}

/**
 * Flags win over the PETSTORE_* variables (cli/env.ts), the variables over the
 * config file, the file over the defaults. Lists accept repeats and commas.
 * Validates before anything runs.
 */
async function toConfig(flags: Record<string, unknown>, io: Io): Promise<CliConfig> {
  const { env } = io;
  const [{ loadConfigFile, profilesOf, refuseDiscoveredSettings }, { checkApiKey }] = await Promise.all([import('./config.js'), import('../core/redact.js')]);
  // The base URL's variable is read below, once it is known whether --embedded sets it aside; the key only by apiKeyOf.
  const args = withEnv(flags, RUN_OPTIONS, env, ['base-url']);
  const cwd = io.cwd ?? process.cwd();
  const loaded = await loadConfigFile(args.config as string | undefined, cwd, env);
  const file = loaded.config;
  const list = (value: unknown): string[] | undefined =>
    value === undefined ? undefined : (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')).map((v) => v.trim()).filter(Boolean);
  const pick = <T>(flag: T | undefined, fromFile: T | undefined, fallback: T): T => flag ?? fromFile ?? fallback;
  const reporter = pick(list(args.reporter), file.reporter, CLI_DEFAULTS.reporter);
  const unknown = reporter.filter((r) => !(REPORTER_NAMES as string[]).includes(r));
  if (unknown.length > 0) throw new UsageError(`--reporter: unknown reporter ${unknown.join(', ')} (known: ${REPORTER_NAMES.join(', ')})`);
  const embedded = args.embedded === true;
  if (embedded && args['base-url'] !== undefined) throw new UsageError('--embedded and --base-url exclude each other');
  // Under --embedded an exported PETSTORE_BASE_URL is set aside; otherwise it fills --base-url as any variable fills its flag.
  const filled = embedded ? args : withEnv(args, { 'base-url': RUN_OPTIONS['base-url']! }, env);
  const baseUrl = embedded ? undefined : ((filled['base-url'] as string | undefined) ?? file.baseUrl);
  if (!embedded && !baseUrl) throw new UsageError('--base-url is required (or set PETSTORE_BASE_URL, or use --embedded)');
  refuseDiscoveredSettings(loaded, { usesBaseUrl: !embedded && filled['base-url'] === undefined });
  const apiKey = apiKeyOf(args['api-key'], env);
  if (!embedded && !apiKey) throw new UsageError('--api-key is required (or set PETSTORE_API_KEY)');
  if (apiKey !== undefined) checkApiKey(apiKey);
  const connection: ConnectionFlags = { ...connectionFlags(args), ca: (args.ca as string | undefined) ?? file.ca, insecure: pick(args.insecure as boolean | undefined, file.insecure, CLI_DEFAULTS.insecure), cert: (args.cert as string | undefined) ?? file.cert, certKey: (args['cert-key'] as string | undefined) ?? file.certKey, proxy: (args.proxy as string | undefined) ?? file.proxy, fileHeaders: file.headers, fileSecrets: loaded.secrets };
  return {
    baseUrl,
    apiKey,
    reportDir: pick(args['report-dir'] as string | undefined, file.reportDir, CLI_DEFAULTS.reportDir),
    seed: (args.seed as number | undefined) ?? file.seed,
    numRuns: pick(args['num-runs'] as number | undefined, file.numRuns, CLI_DEFAULTS.numRuns),
    strict: pick(args.strict as boolean | undefined, file.strict, CLI_DEFAULTS.strict),
    timeout: pick(args.timeout as number | undefined, file.timeout, CLI_DEFAULTS.timeout),
    maxWait: pick(args['max-wait'] as number | undefined, file.maxWait, CLI_DEFAULTS.maxWait),
    visibilityWindow: pick(args['visibility-window'] as number | undefined, file.visibilityWindow, CLI_DEFAULTS.visibilityWindow),
    rateLimit: parseRateLimit(args['rate-limit']) ?? file.rateLimit,
    concurrency: (args.concurrency as number | undefined) ?? file.concurrency,
    maxTime: pick(args['max-time'] as number | undefined, file.maxTime, CLI_DEFAULTS.maxTime),
    load: pick(args.load as string | undefined, file.load, CLI_DEFAULTS.load),
    only: pick(list(args.only), file.only, CLI_DEFAULTS.only),
    skip: pick(list(args.skip), file.skip, CLI_DEFAULTS.skip),
    reporter: reporter as ReporterName[],
    json: pick(args.json as boolean | undefined, undefined, CLI_DEFAULTS.json),
    embedded,
    config: args.config as string | undefined,
    ca: (args.ca as string | undefined) ?? file.ca,
    waivers: (args.waivers as string | undefined) ?? file.waivers,
    insecure: pick(args.insecure as boolean | undefined, file.insecure, CLI_DEFAULTS.insecure),
    quiet: pick(args.quiet as boolean | undefined, undefined, CLI_DEFAULTS.quiet),
    verbose: pick(args.verbose as boolean | undefined, undefined, CLI_DEFAULTS.verbose),
    maxFailures: (args['max-failures'] as number | undefined) ?? file.maxFailures,
    dryRun: pick(args['dry-run'] as boolean | undefined, undefined, CLI_DEFAULTS.dryRun),
    userAgent: (args['user-agent'] as string | undefined) ?? file.userAgent,
    fingerprints: parseFingerprints(list(args.fingerprints)) ?? file.fingerprints,
    connection,
    profiles: profilesOf(file),
    origins: { typed: flags, filled, configFile: loaded.path === undefined ? undefined : { path: relative(cwd, loaded.path) || loaded.path, named: loaded.named } },
  };
}

async function run(config: CliConfig, io: Io): Promise<number> {
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
    const [{ runConformance }, { reporters }, { renderJson }, { setUpRun }, { headerLines }] = await Promise.all([
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
    if (config.reporter.some((name) => Object.hasOwn(REPORT_FILES, name))) lock = await lockDirectory(reportDir, `--report-dir ${config.reportDir}`);
    const ctx: ReporterContext = { reportDir, out, progress: io.stderr, color: useColor(out, io.env), interactive: io.stderr.isTTY === true && !io.env.CI, env: io.env, verbosity: config.quiet ? 'quiet' : config.verbose ? 'verbose' : 'normal' };
    const active: { name: ReporterName; reporter: Reporter }[] = config.reporter.map((name) => ({ name, reporter: reporters[name](ctx) }));
    // How the run reaches its target, under the console's "testing …" line; what weakens or redirects the connection
    // is said even under --quiet or without the console reporter.
    const header = headerLines({ target: config.baseUrl, connection: settings.connection ?? {}, files: config.connection, sources: settings.sources ?? { flags: [], environment: [] } }, config.quiet || !config.reporter.includes('console'));
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
      if (lock) await removeStale(reportDir, reportMarkerOf, written.map((path) => basename(path)));
      if (config.json) io.stdout.write(renderJson(result));
      const notWritten = unwritten.length > 0 ? notWrittenLine(unwritten, written, config.reportDir) : undefined;
      if (result.summary.interrupted) {
        if (notWritten) io.stderr.write(`petstore-conformance: error: ${notWritten}\n`);
        return exitCodeOf(result.summary);
      }
      // The target could not be tested: the reports say so, and so does one line.
      if (result.summary.abort) throw new PcError(result.summary.abort.code as ErrorCode, `${result.summary.abort.message}${notWritten ? `; ${notWritten}` : ''}`);
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
  const why = ({ name, error }: WriteFailure): string =>
    error instanceof WriteError ? `${error.label} (${error.why})` : `${name} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message.split('\n')[0]})`;
  const notes = [...new Set(unwritten.map(({ error }) => (error instanceof WriteError ? noteOf(error.failure) : undefined)).filter((note) => note !== undefined))];
  return `could not write ${unwritten.map(why).join(', ')} to ${reportDir}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}; ${written.length > 0 ? `written: ${written.map((path) => basename(path)).join(', ')}` : 'no report written'}`;
}

async function serve(port: number, host: string, apiKey: string | undefined, io: Io): Promise<number> {
  if (!apiKey) throw new UsageError('serve needs --api-key (or PETSTORE_API_KEY): the key the server will accept');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${port}`);
  const { startReference } = await import('../reference/server.js');
  const server = await startReference({ apiKey, port, host }).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot listen on ${host}:${port}: ${error.code ?? error.message}`);
  });
  io.stdout.write(`serving the reference implementation at ${server.url} (Ctrl-C to stop)\n`);
  await (io.untilStopped?.() ?? new Promise<void>(() => {}));
  await server.close();
  return EXIT.conformant;
}

/** yargs' "Invalid values" message in one line, naming the flag and its choices but not the value given (it may be a key). */
function invalidValues(message: string): string {
  const m = /^Invalid values?:\s*\n?\s*Argument: ([\w-]+), Given: .*?, Choices: (.*)$/m.exec(message);
  return m ? `invalid value for --${m[1]} (choices: ${m[2]})` : message;
}
