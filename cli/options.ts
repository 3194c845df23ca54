/**
 * The CLI's options, typed over the config they fill: a key of {@link CliConfig}
 * without a flag here fails typecheck. Defaults live in suites/defaults.ts
 * (DEFAULTS) and here for CLI-only keys; validation happens before defaults.
 * Light on purpose: `--help` loads it, and none of what a run needs.
 */
import type { Options } from 'yargs';
import { type PcError, UsageError } from '../core/errors.js';
import { OPTION_NAMES, renderWording, type Setting } from '../core/wording.js';
import type { ConnectionFlags } from './connection-flags.js';
import { DEFAULTS } from '../suites/defaults.js';
import { type LoadProfile, PROFILE_NAMES } from '../suites/load/profiles.js';
import { REPORTER_NAMES, type ReporterName } from '../reports/names.js';

/** What a run of the CLI is configured with. */
export interface CliConfig {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  reportDir: string;
  seed: number | undefined;
  numRuns: number;
  strict: boolean;
  timeout: number;
  /** Seconds the run may spend waiting out 429 answers. */
  maxWait: number;
  /** The suite's own requests per second at most, when given. */
  rateLimit: number | undefined;
  /** Requests in flight at most in the functional phases. */
  concurrency: number | undefined;
  /** Seconds the whole run may take, when given. */
  maxTime: number | undefined;
  load: string;
  only: string[];
  skip: string[];
  reporter: ReporterName[];
  json: boolean;
  embedded: boolean;
  /** Path of the config file, when given. */
  config: string | undefined;
  /** Waivers file, for release gating. */
  waivers: string | undefined;
  /** PEM file of a private CA to trust. */
  ca: string | undefined;
  insecure: boolean;
  /** Print the verdict line only. */
  quiet: boolean;
  /** Print each exchange, one line, redacted. */
  verbose: boolean;
  /** Stop sending once this many rules fail (the rest "not run"), when given. */
  maxFailures: number | undefined;
  /** Print the plan and send nothing. */
  dryRun: boolean;
  /** Load profiles of the config file (no flag: too rich for one). */
  profiles: Record<string, LoadProfile>;
  /** How to reach the target (flags of cli/connection.ts, with the config file's): read into one description before the run. */
  connection: ConnectionFlags;
}

/** Kebab-case flag names of the config keys. */
type Flag<K extends string> = K extends `${infer H}${infer T}` ? (H extends Lowercase<H> ? `${H}${Flag<T>}` : `-${Lowercase<H>}${Flag<T>}`) : K;

/**
 * Defaults of the CLI-only keys; the engine's own are in suites/defaults.ts. The
 * option table below sets none, so a flag left out reads as undefined and the
 * config file can fill it (flags > file > defaults).
 */
export const CLI_DEFAULTS = {
  reportDir: './petstore-conformance-report',
  numRuns: DEFAULTS.numRuns,
  strict: DEFAULTS.strict,
  timeout: DEFAULTS.timeoutMs,
  maxWait: DEFAULTS.maxWaitMs / 1000,
  maxTime: DEFAULTS.maxTimeMs / 1000,
  load: 'smoke',
  only: [] as string[],
  skip: [] as string[],
  reporter: [...REPORTER_NAMES] as ReporterName[],
  json: false,
  embedded: false,
  insecure: false,
  quiet: false,
  verbose: false,
  dryRun: false,
};

/** The environment variable of a flag: `PETSTORE_` and the flag in upper snake case (`--max-wait` → `PETSTORE_MAX_WAIT`). */
export const envVarOf = (flag: string): string => `PETSTORE_${flag.toUpperCase().replace(/-/g, '_')}`;

/**
 * How the CLI names each setting the engine's messages refer to: by its flag.
 * The key has its variable too, the way most runs pass it.
 */
const FLAG_OF: Readonly<Record<Setting, string>> = {
  baseUrl: '--base-url',
  apiKey: '--api-key (or PETSTORE_API_KEY)',
  seed: '--seed',
  numRuns: '--num-runs',
  timeoutMs: '--timeout',
  only: '--only',
  skip: '--skip',
  load: '--load',
  // No flag sets it: only a library caller can get it wrong.
  maxBodyBytes: OPTION_NAMES.maxBodyBytes,
  maxWaitMs: '--max-wait',
  rateLimit: '--rate-limit',
  maxTimeMs: '--max-time',
  maxFailures: '--max-failures',
  concurrency: '--concurrency',
  cert: '--cert',
  certKey: '--cert-key',
  proxy: '--proxy',
  headers: '--header',
};

/** An error's message as the CLI prints it: the settings it names called by their flags. */
export function inFlags(error: PcError): string {
  return renderWording(error.wording, (setting) => FLAG_OF[setting]);
}

/**
 * `--rate-limit` (or PETSTORE_RATE_LIMIT) in requests per second: `5` or `5/s`.
 * A number from the config file passes as it is; whether it is positive is
 * checked with the other options.
 */
export function parseRateLimit(value: unknown): number | undefined {
  if (value === undefined || typeof value === 'number') return value;
  const perSecond = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(?:\/\s*s)?\s*$/.exec(String(value));
  if (!perSecond) throw new UsageError(`--rate-limit must be requests per second, as 5 or 5/s, got ${JSON.stringify(String(value).slice(0, 40))}`);
  return Number(perSecond[1]);
}

/** "(env PETSTORE_…)" for a flag's description. */
const env = (flag: string): string => ` (env ${envVarOf(flag)})`;

export const runOptions: { [K in Exclude<keyof CliConfig, 'profiles' | 'connection'> as Flag<K & string>]-?: Options } = {
  'base-url': { type: 'string', describe: 'Base URL of the implementation, e.g. https://staging.example/v1 (env PETSTORE_BASE_URL)' },
  'api-key': { type: 'string', describe: 'API key, sent as "Authorization: Bearer <key>"; never written anywhere (env PETSTORE_API_KEY)' },
  'report-dir': { type: 'string', describe: `Where the reports are written [default: ${CLI_DEFAULTS.reportDir}]` + env('report-dir') },
  seed: { type: 'number', describe: 'Seed of all generated data (default: random, printed and recorded)' + env('seed') },
  'num-runs': { type: 'number', describe: `Runs per property-based check [default: ${CLI_DEFAULTS.numRuns}]` + env('num-runs') },
  strict: { type: 'boolean', describe: 'SHOULD failures (warnings) fail the run too' + env('strict') },
  timeout: { type: 'number', describe: `Deadline of one request, headers and body, in ms [default: ${CLI_DEFAULTS.timeout}]` + env('timeout') },
  'max-wait': { type: 'number', describe: `Seconds the run may spend waiting out 429 answers (Retry-After honoured) before what is still limited is inconclusive [default: ${CLI_DEFAULTS.maxWait}]` + env('max-wait') },
  concurrency: { type: 'number', describe: `Requests in flight at most (functional phases), on as many connections; 1 sends one at a time. Outcomes do not depend on it [default: ${DEFAULTS.concurrency}]` + env('concurrency') },
  'rate-limit': { type: 'string', describe: 'Requests per second the functional phases send at most, as 5 or 5/s, for shared staging servers [default: no limit]' + env('rate-limit') },
  'max-time': { type: 'number', describe: `Seconds the whole run may take; past it the reports are written, the rest is "not run", exit 2 [default: ${CLI_DEFAULTS.maxTime}]` + env('max-time') },
  load: { type: 'string', describe: `Load profile after the functional checks: ${PROFILE_NAMES.join(', ')}, or one from the config file [default: ${CLI_DEFAULTS.load}]` + env('load') },
  only: { type: 'string', array: true, describe: 'Run only these rule ids (repeat or comma-separate)' + env('only') },
  skip: { type: 'string', array: true, describe: 'Do not run these rule ids (repeat or comma-separate)' + env('skip') },
  reporter: { type: 'string', array: true, describe: `Reports to write [default: ${REPORTER_NAMES.join(', ')}]` + env('reporter') },
  json: { type: 'boolean', describe: 'Print report.json to stdout (the console report goes to stderr)' + env('json') },
  embedded: { type: 'boolean', describe: 'Start the embedded reference implementation on loopback and test it' + env('embedded') },
  waivers: { type: 'string', describe: 'Waivers file: known failures (rule, reason, tracking issue, expiry) that do not fail the run until they expire' + env('waivers') },
  ca: { type: 'string', describe: 'PEM file of a private CA to trust for an https target' + env('ca') },
  insecure: { type: 'boolean', describe: 'Do not verify the TLS certificate (recorded in the report)' + env('insecure') },
  config: { type: 'string', describe: 'Config file [default: petstore-conformance.config.json in the working directory or a folder above it, up to the repository root]' + env('config') },
  quiet: { type: 'boolean', alias: 'q', describe: 'Print the verdict line only (the reports are still written)' + env('quiet') },
  verbose: { type: 'boolean', describe: 'Print each exchange as it completes, one line, the key redacted' + env('verbose') },
  'max-failures': { type: 'number', describe: 'Stop sending once this many rules fail; the rest is "not run", the verdict non-conformant' + env('max-failures') },
  'dry-run': { type: 'boolean', describe: 'Print the plan (phases, checks, about how many requests and animals) and send nothing' + env('dry-run') },
};
