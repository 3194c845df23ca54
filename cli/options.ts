/**
 * The CLI's options, typed over the config they fill: a key of {@link CliConfig}
 * without a flag here fails typecheck. Defaults live in suites/defaults.ts
 * (DEFAULTS) and here for CLI-only keys; validation happens before defaults.
 * Light on purpose: `--help` loads it, and none of what a run needs.
 */
import type { Options } from 'yargs';
import { type PcError, UsageError } from '../core/errors.js';
import { FINGERPRINT_IDS, type FingerprintId, isFingerprintId } from '../core/fingerprints.js';
import { OPTION_NAMES, renderWording, type Setting } from '../core/wording.js';
import { type ConnectionFlags, connectionOptions, tlsOptions } from './connection-flags.js';
import { DEFAULTS } from '../suites/defaults.js';
import { type LoadProfile, PROFILE_NAMES } from '../suites/load/profiles.js';
import { REPORTER_NAMES, type ReporterName } from '../reports/names.js';
import type { SettingOrigins } from './transport.js';
import { suggest } from './conventions.js';

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
  /** Seconds after its 201 a created animal may stay unreadable while it is asked for again. */
  visibilityWindow: number;
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
  /** User-Agent of the tool's own shape, when given. */
  userAgent: string | undefined;
  /** The clients the requests are spread over (`--fingerprints`), when given. */
  fingerprints: FingerprintId[] | undefined;
  /** Load profiles of the config file (no flag: too rich for one). */
  profiles: Record<string, LoadProfile>;
  /** How to reach the target (flags of cli/connection.ts, with the config file's): read into one description before the run. */
  connection: ConnectionFlags;
  /** Where the settings were read (the command line, the environment, which config file): report.json's `options.sources` once the connection is built (cli/transport.ts `settingSources`). */
  origins: SettingOrigins;
}

/**
 * What every `--api-key` says in `--help`: a command line is no place for a
 * key. Its variable, which `--help` names after it, is readable only by the
 * same user (/proc/<pid>/environ).
 */
export const ARGV_WARNING = 'Prefer setting PETSTORE_API_KEY (from a secret store or a CI secret): a command line is readable by every user of the machine (ps, /proc/<pid>/cmdline)';

/** Where `serve` listens unless told. */
export const SERVE_DEFAULTS = { port: 8080, host: '127.0.0.1' };

/** Kebab-case flag names of the config keys. */
type Flag<K extends string> = K extends `${infer H}${infer T}` ? (H extends Lowercase<H> ? `${H}${Flag<T>}` : `-${Lowercase<H>}${Flag<T>}`) : K;

/**
 * Defaults of the CLI-only keys; the engine's own are in suites/defaults.ts. The
 * option tables below set none, so a flag left out reads as undefined and the
 * environment or the config file can fill it (flags > env > file > defaults).
 */
export const CLI_DEFAULTS = {
  reportDir: './petstore-conformance-report',
  numRuns: DEFAULTS.numRuns,
  strict: DEFAULTS.strict,
  timeout: DEFAULTS.timeoutMs,
  maxWait: DEFAULTS.maxWaitMs / 1000,
  visibilityWindow: DEFAULTS.visibilityWindowMs / 1000,
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
  visibilityWindowMs: '--visibility-window',
  rateLimit: '--rate-limit',
  maxTimeMs: '--max-time',
  maxFailures: '--max-failures',
  concurrency: '--concurrency',
  fingerprints: '--fingerprints',
  userAgent: '--user-agent',
  // No flag sets it: certify paces its requests itself.
  jitterMs: OPTION_NAMES.jitterMs,
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

/** The run's own options; with {@link connectionOptions}, the default command's. */
export const runOptions: { [K in Exclude<keyof CliConfig, 'profiles' | 'connection' | 'origins'> as Flag<K & string>]-?: Options } = {
  'base-url': { type: 'string', describe: 'Base URL of the implementation, e.g. https://staging.example/v1' },
  'api-key': { type: 'string', describe: `API key, sent as "Authorization: Bearer <key>"; never written anywhere. ${ARGV_WARNING}` },
  'report-dir': { type: 'string', describe: `Where the reports are written [default: ${CLI_DEFAULTS.reportDir}]` },
  seed: { type: 'number', describe: 'Seed of all generated data (default: random, printed and recorded)' },
  'num-runs': { type: 'number', describe: `Runs per property-based check [default: ${CLI_DEFAULTS.numRuns}]` },
  strict: { type: 'boolean', describe: 'SHOULD failures (warnings) fail the run too' },
  timeout: { type: 'number', describe: `Deadline of one request, headers and body, in ms [default: ${CLI_DEFAULTS.timeout}]` },
  'max-wait': { type: 'number', describe: `Seconds the run may spend waiting out temporary answers, 429 and 503 with Retry-After (Retry-After honoured) before what is still limited is inconclusive [default: ${CLI_DEFAULTS.maxWait}]` },
  'visibility-window': { type: 'number', describe: `Seconds after its 201 a created animal may still be missing (getPet 404, absent from a listing) while it is asked for again with backoff: no read-after-write guarantee is stated. Once seen it must stay visible; past the window it fails [default: ${CLI_DEFAULTS.visibilityWindow}]` },
  concurrency: { type: 'number', describe: `Requests in flight at most (functional phases), on as many connections; 1 sends one at a time. Outcomes do not depend on it [default: ${DEFAULTS.concurrency}]` },
  'rate-limit': { type: 'string', describe: 'Requests per second the functional phases send at most, as 5 or 5/s, for shared staging servers [default: no limit]' },
  'max-time': { type: 'number', describe: `Seconds the whole run may take; past it the reports are written, the rest is "not run", exit 2 [default: ${CLI_DEFAULTS.maxTime}]` },
  load: { type: 'string', describe: `Load profile after the functional checks: ${PROFILE_NAMES.join(', ')}, or one from the config file [default: ${CLI_DEFAULTS.load}]` },
  only: { type: 'string', array: true, describe: 'Run only these rule ids (repeat or comma-separate)' },
  skip: { type: 'string', array: true, describe: 'Do not run these rule ids (repeat or comma-separate)' },
  reporter: { type: 'string', array: true, describe: `Reports to write [default: ${REPORTER_NAMES.join(', ')}]` },
  json: { type: 'boolean', describe: 'Print report.json to stdout (the console report goes to stderr)' },
  embedded: { type: 'boolean', describe: 'Start the embedded reference implementation on loopback and test it' },
  waivers: { type: 'string', describe: 'Waivers file: known failures (rule, reason, tracking issue, expiry) that do not fail the run until they expire' },
  ca: { type: 'string', describe: 'PEM file of a private CA to trust for an https target' },
  insecure: { type: 'boolean', describe: 'Do not verify the TLS certificate (recorded in the report)' },
  config: { type: 'string', describe: 'Config file [default: petstore-conformance.config.json in the working directory or a folder above it, up to the repository root]' },
  quiet: { type: 'boolean', alias: 'q', describe: 'Print the verdict line only (the reports are still written)' },
  verbose: { type: 'boolean', describe: 'Print each exchange as it completes, one line, the key redacted' },
  'max-failures': { type: 'number', describe: 'Stop sending once this many rules fail; the rest is "not run", the verdict non-conformant' },
  'dry-run': { type: 'boolean', describe: 'Print the plan (phases, checks, about how many requests and animals) and send nothing' },
  'user-agent': { type: 'string', describe: 'User-Agent the requests carry [default: petstore-conformance]' },
  fingerprints: { type: 'string', array: true, describe: `Send each request as one of these clients, drawn from the seed: their User-Agent, headers, header order and casing, connection habit (comma-separate: ${FINGERPRINT_IDS.join(', ')}; or all) [default: none, the tool's own requests]` },
};

/**
 * `--fingerprints` (repeated or comma-separated): client ids of
 * core/fingerprints.ts, or `all`. An unknown one is a usage error with the
 * nearest id.
 */
export function parseFingerprints(values: readonly string[] | undefined): FingerprintId[] | undefined {
  if (values === undefined) return undefined;
  const ids = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  if (ids.length === 0) throw new UsageError(`--fingerprints needs client ids (${FINGERPRINT_IDS.join(', ')}) or all`);
  if (ids.includes('all')) return [...FINGERPRINT_IDS];
  for (const id of ids) {
    if (isFingerprintId(id)) continue;
    const near = suggest(id, FINGERPRINT_IDS);
    throw new UsageError(`--fingerprints: unknown client ${JSON.stringify(id.slice(0, 40))}${near ? ` (did you mean ${near}?)` : ''}; known: ${FINGERPRINT_IDS.join(', ')}, or all`);
  }
  return [...new Set(ids as FingerprintId[])];
}

/** `rules`. */
export const rulesOptions: Record<string, Options> = {
  json: { type: 'boolean', describe: 'As JSON' },
};

/** `serve`: no defaults in the table, so that the environment can fill what the flags leave out. */
export const serveOptions: Record<string, Options> = {
  port: { type: 'number', describe: `Port (0 for a free one) [default: ${SERVE_DEFAULTS.port}]` },
  host: { type: 'string', describe: `Address to listen on [default: ${SERVE_DEFAULTS.host}]` },
  'api-key': { type: 'string', describe: `The key it accepts. ${ARGV_WARNING}` },
};

/** `matrix`, beside its positional report files. */
export const matrixOptions: Record<string, Options> = {
  'out-dir': { type: 'string', describe: 'Where the files go [default: ./petstore-conformance-matrix]' },
  label: { type: 'string', array: true, describe: 'Names a column: name=path of one of the reports (repeatable)' },
};

/** `replay`, beside its positional report and case. */
export const replayOptions: Record<string, Options> = {
  'base-url': { type: 'string', describe: "Where to send it (required: replay sends only to an origin you name; without one it prints the report's recorded target and sends nothing)" },
  'api-key': { type: 'string', describe: `The key, when the request carries it. ${ARGV_WARNING}` },
  timeout: { type: 'number', describe: `Deadline of the request, ms [default: ${CLI_DEFAULTS.timeout}]` },
  ...tlsOptions,
  ...connectionOptions,
};
