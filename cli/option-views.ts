/**
 * The views of the option schema (cli/option-schema.ts): the yargs options of
 * its flags, the config file's keys with their JSON Schema, and the engine's
 * settings in the engine's units. Each is computed from the schema, never
 * written out again.
 */
import type { Options } from 'yargs';
import { DEFAULTS } from '../suites/defaults.js';
import type { ConformanceOptions } from '../suites/options.js';
import { type EngineKey, OPTION_SCHEMA, type OptionKey, type OptionSpec } from './option-schema.js';

/** The engine's default of an option, in the CLI's unit; undefined for one without. */
export function engineDefault(spec: Pick<OptionSpec, 'engine'>): unknown {
  if (!spec.engine || !Object.hasOwn(DEFAULTS, spec.engine.key)) return undefined;
  const value = DEFAULTS[spec.engine.key as keyof typeof DEFAULTS];
  return typeof value === 'number' ? spec.engine.unit.fromEngine(value) : value;
}

/** The yargs options of these keys, by flag, in the schema's order. */
/** The headings `--help` lists the options under (yargs' own "Options:" keeps --version and --help). */
const TARGET = 'Target and TLS:';
const RUN = 'Run:';
const OUTPUT = 'Output:';
const LOAD = 'Load:';
/** Each option's heading in `--help`: 35 options read in four groups, not one list. */
export const HELP_GROUP: Readonly<Record<OptionKey, string>> = {
  baseUrl: TARGET,
  apiKey: TARGET,
  embedded: TARGET,
  timeout: TARGET,
  waitFor: TARGET,
  ca: TARGET,
  insecure: TARGET,
  cert: TARGET,
  certKey: TARGET,
  proxy: TARGET,
  header: TARGET,
  secretHeader: TARGET,
  userAgent: TARGET,
  fingerprints: TARGET,
  seed: RUN,
  numRuns: RUN,
  strict: RUN,
  only: RUN,
  skip: RUN,
  maxWait: RUN,
  visibilityWindow: RUN,
  concurrency: RUN,
  widenConcurrency: RUN,
  rateLimit: RUN,
  maxTime: RUN,
  maxFailures: RUN,
  waivers: RUN,
  config: RUN,
  dryRun: RUN,
  reportDir: OUTPUT,
  reporter: OUTPUT,
  json: OUTPUT,
  color: OUTPUT,
  quiet: OUTPUT,
  verbose: OUTPUT,
  load: LOAD,
};

export function yargsOptionsOf(keys: readonly OptionKey[]): Record<string, Options> {
  return Object.fromEntries(
    keys.map((key) => {
      const spec = OPTION_SCHEMA[key];
      return [
        spec.flag,
        {
          type: spec.type,
          ...(spec.list ? { array: true } : {}),
          ...(spec.alias ? { alias: spec.alias } : {}),
          describe: spec.help,
          group: HELP_GROUP[key],
        } satisfies Options,
      ];
    }),
  );
}

/** The config file's keys of the schema, with their JSON Schema, in its order. */
export function fileProperties(): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.values(OPTION_SCHEMA).flatMap((spec) => (spec.file ? [[spec.file.key, spec.file.schema]] : [])));
}

/**
 * The engine's settings from the merged options, each in the engine's unit: an
 * option left unset is left out, so the engine applies its default.
 */
export function engineSettingsOf(merged: Readonly<Partial<Record<OptionKey, unknown>>>): Partial<Pick<ConformanceOptions, EngineKey>> {
  const settings: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(OPTION_SCHEMA)) {
    const value = merged[key as OptionKey];
    if (spec.engine === undefined || value === undefined) continue;
    settings[spec.engine.key] = typeof value === 'number' ? spec.engine.unit.toEngine(value) : value;
  }
  return settings as Partial<Pick<ConformanceOptions, EngineKey>>;
}
