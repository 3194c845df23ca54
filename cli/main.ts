/**
 * The command line: a thin layer over `runConformance`, the reporters and the
 * reference server. Returns the exit code; only bin/ sets it on the process.
 *
 * Exit codes: 0 conformant, 1 non-conformant, 2 usage error, unreachable or
 * misconfigured target, or internal error, 3 conformant but a load threshold
 * breached, 4 inconclusive (a MUST rule decided on no case), 130/143 interrupted.
 */
import type { Argv, Options } from 'yargs';
import { asPcError, PcError, UsageError } from '../core/errors.js';
import { TOOL_VERSION } from '../core/version.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import { EXIT } from '../result/policy.js';
import { connectionFlags } from './connection-flags.js';
import { explainUnknown, repeatedOption } from './conventions.js';
import { errorLine } from './errors.js';
import { apiKeyOf, documented, withEnv } from './env.js';
import { helpWidth, renderedHelp } from './help.js';
import { defaultIo, type Io } from './io.js';
import { matrixOptions, replayOptions, rulesOptions, SERVE_DEFAULTS, serveOptions } from './options.js';
import { RUN_OPTIONS, toConfig } from './run-config.js';
import { DEFAULTS } from '../suites/defaults.js';

// Only light modules are imported above: a static import is loaded before main runs, whatever the command. Each
// command loads what it needs with `await import()` where it runs, so `--version`, `--help`, `rules` and `serve`
// start without the engine, fast-check, ajv, undici or the reporters.

export type { Io } from './io.js';

export { EXIT };

/** The commands, for "did you mean". */
const COMMANDS = ['rules', 'serve', 'matrix', 'replay', 'certify', 'verify', 'export-load', 'completion'];

/** Runs the CLI with `argv` (without node and script) and returns the exit code. Never throws. */
export async function main(argv: readonly string[], io: Io = defaultIo()): Promise<number> {
  const code = await command(argv, io);
  // A run a hangup stopped (its reports written) ends as the signal would: its terminal is gone, and Node's own
  // teardown of it then fails (an assertion, SIGABRT, where the shell should see 129).
  if (code === EXIT.interruptedHup && io.raise) io.raise('SIGHUP');
  // What the command printed is its product (`export-load > script.js`, `--json > report.json`): lost, the exit says so.
  // A write's error is told on a later turn (a file's stream reports it as an event): one turn is waited for it.
  if (io.stdoutLost) await new Promise((resolve) => setImmediate(resolve));
  const lost = io.stdoutLost?.();
  if (lost === undefined) return code;
  io.stderr.write(`petstore-conformance: error: standard output could not be written (${lost}): what was printed there is incomplete\n`);
  // EIO: the terminal hung up (its reports are written). Node's own teardown of a terminal that is gone fails (an
  // assertion, SIGABRT): the process ends as the hangup would have ended it.
  if (lost === 'EIO' && io.raise) io.raise('SIGHUP');
  return code === EXIT.conformant ? EXIT.error : code;
}

/** The command `argv` names, run: its exit code. */
async function command(argv: readonly string[], io: Io): Promise<number> {
  // Answered before yargs is loaded: `--version` alone starts about as fast as node itself.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    io.stdout.write(`${TOOL_VERSION}\n`);
    return EXIT.conformant;
  }
  // `--help` alone, as yargs rendered it at build (cli/help.ts says when that is the same text); yargs' locale comes
  // from the process's environment, not the command's.
  const help = renderedHelp(argv, io.stdout as { columns?: number }, process.env);
  if (help !== undefined) {
    io.stdout.write(help);
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
      if (repeated !== undefined)
        throw new UsageError(
          `--${repeated} is given more than once; ${options[repeated]!.type === 'boolean' ? 'give it once' : 'it takes one value'}`,
        );
      return args;
    };
    const given = (args: Record<string, unknown>): Record<string, unknown> => withEnv(once(args, parsing), parsing, io.env);
    const cli = yargs(prepared.args)
      .scriptName('petstore-conformance')
      .usage(
        '$0 --base-url <url> [options]\n\nConformance and load test suite for the Animal Store Service interface. The key is read from PETSTORE_API_KEY (export it from a secret store or a CI secret; --api-key puts it where every user of the machine can read it).',
      )
      .command(
        '$0',
        'Run the conformance suite against --base-url (or --embedded)',
        (y: Argv) => offer(y, RUN_OPTIONS),
        async (args) => {
          exitCode = await (
            await import('./run-command.js')
          ).run(await toConfig(once(args as Record<string, unknown>, RUN_OPTIONS), io), io);
        },
      )
      .command(
        'rules',
        'Print the rule catalog',
        (y: Argv) => offer(y, rulesOptions),
        async (args) => {
          const { renderRules, renderRulesJson } = await import('./rules.js');
          io.stdout.write(given(args).json === true ? renderRulesJson() : renderRules());
        },
      )
      .command(
        'serve',
        'Start the embedded reference implementation alone',
        (y: Argv) => offer(y, serveOptions),
        async (args) => {
          const {
            port = SERVE_DEFAULTS.port,
            host = SERVE_DEFAULTS.host,
            'api-key': apiKey,
          } = given(args) as { port?: number; host?: string; 'api-key'?: string };
          exitCode = await serve(port, host, apiKeyOf(apiKey, io.env), io);
        },
      )
      .command(
        'matrix <reports..>',
        'Compare report.json files: matrix.html, matrix.md and a badge JSON per implementation',
        (y: Argv) =>
          offer(
            y.positional('reports', { type: 'string', array: true, describe: 'report.json files (or the directories holding them)' }),
            matrixOptions,
          ),
        async (raw) => {
          const args = given(raw);
          // Loaded on demand: a conformance run does not pay for the matrix's schema compilation.
          const { MATRIX_OUT_DIR, matrixCommand, parseLabels } = await import('./matrix.js');
          exitCode = await matrixCommand(
            args.reports as string[],
            { outDir: (args['out-dir'] as string | undefined) ?? MATRIX_OUT_DIR, labels: parseLabels(args.label as string[] | undefined) },
            io,
          );
        },
      )
      .command(
        'replay <report> <case>',
        'Send a recorded failure again and judge the answer (exit 0 passes now, 1 still fails, 4 cannot be judged alone)',
        (y: Argv) =>
          offer(
            y
              .positional('report', { type: 'string', describe: 'report.json (or its directory)' })
              .positional('case', { type: 'string', describe: 'case id of the failure (c-…)' }),
            replayOptions,
          ),
        async (raw) => {
          const args = given(raw);
          const [{ replayCommand }, { buildConnection }, { settingSources }] = await Promise.all([
            import('./replay.js'),
            import('./connection.js'),
            import('./transport.js'),
          ]);
          const apiKey = apiKeyOf(args['api-key'], io.env);
          const cwd = io.cwd ?? process.cwd();
          const flags = connectionFlags(args);
          const connection = await buildConnection(flags, io.env, cwd);
          const baseUrl = args['base-url'] as string | undefined;
          const sources = settingSources({ typed: raw, filled: args }, { target: baseUrl, connection });
          exitCode = await replayCommand(
            String(args.report),
            String(args.case),
            {
              ...(baseUrl ? { baseUrl } : {}),
              ...(apiKey ? { apiKey } : {}),
              timeoutMs: (args.timeout as number | undefined) ?? DEFAULTS.timeoutMs,
              cwd,
              connection,
              files: flags,
              sources,
            },
            io,
          );
        },
      )
      .command(
        'certify',
        'Certify an implementation: the full suite with fixed settings, written as a bundle (.tar.gz) verify can check',
        async (y: Argv) => offer(y, (await import('./certify.js')).certifyOptions),
        async (args) => {
          exitCode = await (await import('./certify.js')).certifyCommand(given(args), io, args);
        },
      )
      .command(
        'verify <bundle>',
        'Check a certification bundle offline: hashes, signature, suite version, and every verdict recomputed from its transcript',
        async (y: Argv) =>
          offer(y.positional('bundle', { type: 'string', describe: 'The bundle (.tar.gz)' }), (await import('./verify.js')).verifyOptions),
        async (raw) => {
          const args = given(raw);
          const flag = (name: string) => (args[name] === undefined ? undefined : String(args[name]));
          const [publicKey, product, baseUrl] = [flag('public-key'), flag('product'), flag('base-url')];
          exitCode = await (
            await import('./verify.js')
          ).verifyCommand(
            args.bundle as string | undefined,
            {
              ...(publicKey === undefined ? {} : { publicKey }),
              ...(product === undefined ? {} : { product }),
              ...(baseUrl === undefined ? {} : { baseUrl }),
            },
            io,
          );
        },
      )
      .command(
        'export-load',
        'Write a k6 or Artillery script that reproduces a load profile (mix, pacing, thresholds, bearer auth from an environment variable)',
        async (y: Argv) => offer(y, (await import('./export-load.js')).exportLoadOptions),
        async (args) => {
          exitCode = await (await import('./export-load.js')).exportLoadCommand(given(args), io);
        },
      )
      .completion(
        'completion',
        'Print a bash/zsh completion script (petstore-conformance completion >> ~/.bashrc)',
        (
          current: string,
          args: { _: unknown[] },
          fallback: (done: (error: Error | null, completions: string[] | undefined) => void) => void,
          done: (completions: string[]) => void,
        ) => {
          // The run's flags live in the default command, which yargs does not offer: offer them when no command was typed.
          if (current.startsWith('-') && args._.length <= 1)
            return done([...Object.keys(RUN_OPTIONS).map((f) => `--${f}`), '--help', '--version'].filter((f) => f.startsWith(current)));
          fallback((_error, completions) => done((completions ?? []).filter((c) => c !== '$0')));
        },
      )
      .example('$0 --base-url https://staging.example/v1', 'Check an implementation (the key in PETSTORE_API_KEY)')
      .example('$0 --embedded', 'Check the embedded reference implementation')
      .epilogue(
        `Exit codes: 0 conformant, 1 non-conformant, 2 usage error, unreachable target or internal error, 3 conformant but a load threshold breached, 4 inconclusive (a MUST rule decided on no case), 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP (reports written).\nInterface version ${INTERFACE_VERSION}.`,
      )
      .version(TOOL_VERSION)
      .alias('v', 'version')
      .help()
      .alias('h', 'help')
      .strict()
      .wrap(helpWidth(io.stdout as { columns?: number }))
      .exitProcess(false)
      .fail((message: string | undefined, error: Error | undefined) => {
        throw (
          error ??
          new UsageError(
            invalidValues(
              explainUnknown(
                message ?? 'invalid arguments',
                prepared.args,
                Object.keys(parsing).filter((flag) => parsing[flag]!.hidden !== true),
                COMMANDS,
              ),
            ),
          )
        );
      });
    // yargs prints the script for `completion` and then, with exitProcess(false), goes on to run the default command.
    // `completion --help` printed the script, then refused "completion" as an argument.
    if (argv[0] === 'completion') {
      const rest = argv.slice(1);
      if (rest.length === 0) cli.showCompletionScript();
      else if (rest.every((arg) => arg === '--help' || arg === '-h')) io.stdout.write(COMPLETION_HELP);
      else throw new UsageError(`completion takes no arguments, got ${rest.join(' ')}`);
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

/** `completion --help`. */
const COMPLETION_HELP = `petstore-conformance completion

Print a bash/zsh completion script for petstore-conformance's commands and flags:
  petstore-conformance completion >> ~/.bashrc    (or ~/.zshrc)
`;

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
