/**
 * The CLI's options as yargs tables: the run's derived from the one schema of
 * cli/option-schema.ts, typed over the config they fill (a key of
 * {@link CliConfig} without an entry there fails typecheck); the other
 * commands' own. Light on purpose: `--help` loads it, and none of what a run
 * needs.
 */
import type { Options } from 'yargs';
import { type PcError, UsageError } from '../core/errors.js';
import { FINGERPRINT_IDS, type FingerprintId, isFingerprintId } from '../core/fingerprints.js';
import { OPTION_NAMES, renderWording, type Setting } from '../core/wording.js';
import { type ConnectionFlags, connectionOptions, tlsOptions } from './connection-flags.js';
import { DEFAULTS } from '../suites/defaults.js';
import type { LoadProfile } from '../suites/load/profiles.js';
import type { ReporterName } from '../reports/names.js';
import type { SettingOrigins } from './transport.js';
import { suggest } from './conventions.js';
import { ARGV_WARNING, CONNECTION_KEYS, OPTION_SCHEMA, type OptionKey } from './option-schema.js';
import { yargsOptionsOf } from './option-views.js';

export { ARGV_WARNING } from './option-schema.js';

/**
 * What a run of the CLI is configured with: the merged options, by the keys of
 * the schema (cli/option-schema.ts), in the CLI's units (seconds where the
 * engine takes ms). An engine option left unset (`undefined`) is the engine's
 * to default (suites/defaults.ts).
 */
export interface CliConfig {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  reportDir: string;
  seed: number | undefined;
  numRuns: number | undefined;
  strict: boolean | undefined;
  timeout: number | undefined;
  /** Seconds the run may spend waiting out 429 and 503 answers, when given. */
  maxWait: number | undefined;
  /** Seconds to wait before the run for the target to give any HTTP answer, when given. */
  waitFor: number | undefined;
  /** Seconds after its 201 a created animal may stay unreadable while it is asked for again, when given. */
  visibilityWindow: number | undefined;
  /** The suite's own requests per second at most, when given. */
  rateLimit: number | undefined;
  /** Requests in flight at most in the functional phases, when given. */
  concurrency: number | undefined;
  /** Widen the requests in flight with a long round trip (without --concurrency); false keeps the default, when given. */
  widenConcurrency: boolean | undefined;
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
  /** --color or --no-color, when given: wins over NO_COLOR, FORCE_COLOR and the terminal. */
  color: boolean | undefined;
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

/** Where `serve` listens unless told. */
export const SERVE_DEFAULTS = { port: 8080, host: '127.0.0.1' };

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
  waitForMs: '--wait-for',
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
  if (!perSecond)
    throw new UsageError(`--rate-limit must be requests per second, as 5 or 5/s, got ${JSON.stringify(String(value).slice(0, 40))}`);
  return Number(perSecond[1]);
}

/** The keys of {@link CliConfig} that are flags of the run. */
type RunKey = Exclude<keyof CliConfig, 'profiles' | 'connection' | 'origins'>;
/** Entries of the schema that are neither: none, or typecheck fails below. */
type Unclaimed = Exclude<OptionKey, RunKey | (typeof CONNECTION_KEYS)[number]>;
/** The run's keys in the schema's order; a key of the config the schema lacks fails typecheck in `yargsOptionsOf` below. */
const RUN_KEYS: [Unclaimed] extends [never] ? readonly RunKey[] : { unclaimed: Unclaimed } = (
  Object.keys(OPTION_SCHEMA) as OptionKey[]
).filter((key) => !(CONNECTION_KEYS as readonly string[]).includes(key)) as RunKey[];

/** The run's own options, from the schema; with {@link connectionOptions}, the default command's. */
export const runOptions: Record<string, Options> = yargsOptionsOf(RUN_KEYS);

/**
 * `--fingerprints` (repeated or comma-separated): client ids of
 * core/fingerprints.ts, or `all`. An unknown one is a usage error with the
 * nearest id.
 */
export function parseFingerprints(values: readonly string[] | undefined): FingerprintId[] | undefined {
  if (values === undefined) return undefined;
  const ids = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (ids.length === 0) throw new UsageError(`--fingerprints needs client ids (${FINGERPRINT_IDS.join(', ')}) or all`);
  if (ids.includes('all')) return [...FINGERPRINT_IDS];
  for (const id of ids) {
    if (isFingerprintId(id)) continue;
    const near = suggest(id, FINGERPRINT_IDS);
    throw new UsageError(
      `--fingerprints: unknown client ${JSON.stringify(id.slice(0, 40))}${near ? ` (did you mean ${near}?)` : ''}; known: ${FINGERPRINT_IDS.join(', ')}, or all`,
    );
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
  'base-url': {
    type: 'string',
    describe:
      "Where to send it (required: replay sends only to an origin you name; without one it prints the report's recorded target and sends nothing)",
  },
  'api-key': { type: 'string', describe: `The key, when the request carries it. ${ARGV_WARNING}` },
  timeout: { type: 'number', describe: `Deadline of the request, ms [default: ${DEFAULTS.timeoutMs}]` },
  ...tlsOptions,
  ...connectionOptions,
};
