/**
 * The run's configuration from its flags, the PETSTORE_* variables and the
 * config file, merged by one loop over the schema (cli/option-schema.ts):
 * flags win over the variables (cli/env.ts), the variables over the config
 * file, the file over the CLI's own defaults; an engine option left unset is
 * left to the engine's default. Lists accept repeats and commas. Validates
 * before anything runs.
 */
import { relative } from 'node:path';
import { UsageError } from '../core/errors.js';
import { REPORTER_NAMES, type ReporterName } from '../reports/names.js';
import { connectionFlags, connectionOptions } from './connection-flags.js';
import { apiKeyOf, withEnv } from './env.js';
import type { Io } from './io.js';
import { CONNECTION_KEYS, OPTION_SCHEMA, type OptionKey } from './option-schema.js';
import { type CliConfig, parseFingerprints, parseRateLimit, runOptions } from './options.js';
import type { Options } from 'yargs';
import { suggest } from './conventions.js';

/** The default command's options: the run's and the connection's. */
export const RUN_OPTIONS: Record<string, Options> = { ...runOptions, ...connectionOptions };

/** Keys merged apart: where the target is and its key (--embedded sets them aside), and the connection's flags, read through `connectionFlags`. */
const APART: readonly OptionKey[] = ['baseUrl', 'apiKey', ...CONNECTION_KEYS, 'ca', 'insecure'];

/** The options whose text becomes a value of their own once merged; each throws a one-line `UsageError`. */
const PARSE: Partial<Record<OptionKey, (value: never) => unknown>> = { rateLimit: parseRateLimit, fingerprints: parseFingerprints };

/** A list option's values: repeats and commas. */
const list = (value: unknown): string[] | undefined =>
  value === undefined
    ? undefined
    : (Array.isArray(value) ? value : [value])
        .flatMap((v) => String(v).split(','))
        .map((v) => v.trim())
        .filter(Boolean);

/**
 * The configuration of a run from its parsed flags (`flags`, as yargs gave
 * them): flags win over the PETSTORE_* variables, the variables over the
 * config file, the file over the defaults. Throws one-line usage errors.
 */
export async function toConfig(flags: Record<string, unknown>, io: Io): Promise<CliConfig> {
  const { env } = io;
  const [{ configPassedOver, loadConfigFile, profilesOf, refuseDiscoveredSettings }, { checkApiKey }] = await Promise.all([
    import('./config.js'),
    import('../core/redact.js'),
  ]);
  // The base URL's variable is read below, once it is known whether --embedded sets it aside; the key only by apiKeyOf.
  const args = withEnv(flags, RUN_OPTIONS, env, ['base-url']);
  const cwd = io.cwd ?? process.cwd();
  const loaded = await loadConfigFile(args.config as string | undefined, cwd, env);
  const passedOver = loaded.path === undefined && !loaded.named ? configPassedOver(cwd) : undefined;
  if (passedOver !== undefined)
    io.stderr.write(
      `petstore-conformance: ${passedOver} is not read: it, or the .git above it, belongs to another user; if it is yours to use, name it with --config\n`,
    );
  const file = loaded.config as Readonly<Record<string, unknown>>;
  const fromFile = (key: OptionKey): unknown => {
    const fileKey = OPTION_SCHEMA[key].file?.key;
    return fileKey === undefined ? undefined : file[fileKey];
  };
  const merged: Partial<Record<OptionKey, unknown>> = {};
  for (const [key, spec] of Object.entries(OPTION_SCHEMA) as [OptionKey, (typeof OPTION_SCHEMA)[OptionKey]][]) {
    if (APART.includes(key)) continue;
    const given = spec.list ? list(args[spec.flag]) : args[spec.flag];
    // yargs reads a number flag's text that is no number as NaN, and the text is gone: say what was expected, not "NaN".
    // (A variable's text is refused with its value by withEnv, before this.)
    if (spec.type === 'number' && Number.isNaN(given)) throw new UsageError(`--${spec.flag} must be a number`);
    merged[key] = given ?? fromFile(key) ?? spec.default;
  }
  const reporter = merged.reporter as string[];
  const unknown = reporter.filter((r) => !(REPORTER_NAMES as string[]).includes(r));
  if (unknown.length > 0) {
    const near = suggest(unknown[0]!, REPORTER_NAMES);
    throw new UsageError(
      `--reporter: unknown reporter ${unknown.join(', ')}${near ? `; did you mean ${near}?` : ''} (known: ${REPORTER_NAMES.join(', ')})`,
    );
  }
  const embedded = merged.embedded === true;
  if (embedded && args['base-url'] !== undefined) throw new UsageError('--embedded and --base-url exclude each other');
  // Under --embedded an exported PETSTORE_BASE_URL is set aside; otherwise it fills --base-url as any variable fills its flag.
  const filled = embedded ? args : withEnv(args, { 'base-url': RUN_OPTIONS['base-url']! }, env);
  const baseUrl = embedded ? undefined : ((filled['base-url'] as string | undefined) ?? (fromFile('baseUrl') as string | undefined));
  if (!embedded && !baseUrl) throw new UsageError('--base-url is required (or set PETSTORE_BASE_URL, or use --embedded)');
  refuseDiscoveredSettings(loaded, { usesBaseUrl: !embedded && filled['base-url'] === undefined });
  const apiKey = apiKeyOf(args['api-key'], env);
  if (!embedded && !apiKey) throw new UsageError('--api-key is required (or set PETSTORE_API_KEY)');
  if (apiKey !== undefined) checkApiKey(apiKey);
  // The connection's flags, each checked as it is taken, then completed from the file like every other option.
  const typed = connectionFlags(args) as Readonly<Record<string, unknown>>;
  for (const key of ['ca', 'insecure', ...CONNECTION_KEYS] as const)
    merged[key] = typed[key] ?? fromFile(key) ?? OPTION_SCHEMA[key].default;
  for (const [key, parse] of Object.entries(PARSE) as [OptionKey, (value: unknown) => unknown][]) merged[key] = parse(merged[key]);
  const { cert, certKey, proxy, header, secretHeader, ...options } = merged;
  return {
    ...(options as Omit<CliConfig, 'baseUrl' | 'apiKey' | 'reporter' | 'embedded' | 'connection' | 'profiles' | 'origins'>),
    baseUrl,
    apiKey,
    reporter: reporter as ReporterName[],
    embedded,
    connection: {
      ca: options.ca,
      insecure: options.insecure,
      cert,
      certKey,
      proxy,
      header,
      secretHeader,
      fileHeaders: loaded.config.headers,
      fileSecrets: loaded.secrets,
    } as CliConfig['connection'],
    profiles: profilesOf(loaded.config),
    origins: {
      typed: flags,
      filled,
      configFile: loaded.path === undefined ? undefined : { path: relative(cwd, loaded.path) || loaded.path, named: loaded.named },
    },
  };
}
