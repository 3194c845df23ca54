/**
 * The one schema of the run's options: every flag of the default command (and
 * the connection flags `replay` and `certify` share), with its type, unit,
 * default, environment variable, config-file key and JSON Schema there, help
 * text, the commands that take it, and the engine option it becomes. The
 * yargs tables, the config file's keys and the engine's settings are its
 * views (cli/option-views.ts); the environment is read through the tables
 * (cli/env.ts), the config file validated against its keys
 * (cli/config-schema.ts), and flags, variables, file and defaults merged by
 * one loop over it (cli/run-config.ts). test/unit/cli/option-schema.test.ts
 * holds them together.
 *
 * Defaults are applied once: a CLI-only default (`reportDir`, `load`, …) by
 * the merge; an engine option's by the engine (suites/defaults.ts), which this
 * table only shows in `--help` (option-views.ts `engineDefault`). Units are converted once, here: the CLI and
 * the file speak seconds where the engine speaks ms ({@link SECONDS}).
 * Light on purpose: `--help` loads it, and none of what a run needs.
 */
import { SECRET_HEADER_ENV } from '../core/connection/options.js';
import { FINGERPRINT_IDS } from '../core/fingerprints.js';
import { REPORTER_NAMES } from '../reports/names.js';
import { rules } from '../spec/rules.js';
import { DEFAULTS } from '../suites/defaults.js';
import { PROFILE_NAMES } from '../suites/load/profiles.js';
import type { ConformanceOptions } from '../suites/options.js';

/** The commands that take options of this schema. */
export type Command = 'run' | 'replay' | 'certify' | 'serve';

/** How a value the CLI and the config file take becomes the engine's: seconds there, ms in the engine. */
export interface Unit {
  /** As `--help`, the config file and the messages say it. */
  cli: 's' | 'ms' | 'requests/s' | 'count';
  /** As the engine takes it. */
  engine: 'ms' | 'requests/s' | 'count';
  toEngine: (value: number) => number;
  fromEngine: (value: number) => number;
}

const same = (unit: 'ms' | 'requests/s' | 'count'): Unit => ({ cli: unit, engine: unit, toEngine: (v) => v, fromEngine: (v) => v });
/** Seconds on the command line and in the file, ms in the engine: the one place they are converted. */
export const SECONDS: Unit = { cli: 's', engine: 'ms', toEngine: (s) => s * 1000, fromEngine: (ms) => ms / 1000 };

/** The engine options a flag may become (not those of a library caller alone). */
export type EngineKey = keyof Pick<
  ConformanceOptions,
  | 'seed'
  | 'numRuns'
  | 'strict'
  | 'timeoutMs'
  | 'maxWaitMs'
  | 'waitForMs'
  | 'visibilityWindowMs'
  | 'rateLimit'
  | 'concurrency'
  | 'widenConcurrency'
  | 'maxTimeMs'
  | 'load'
  | 'only'
  | 'skip'
  | 'maxFailures'
  | 'userAgent'
  | 'fingerprints'
>;

/** One option. */
export interface OptionSpec {
  /** The flag, kebab-case, without `--`. */
  flag: string;
  type: 'string' | 'number' | 'boolean';
  /** Takes several values: repeated or comma-separated on the command line, one per line in its variable. */
  list?: true;
  alias?: string;
  /** What `--help` says (its variable is added by cli/env.ts `documented`). */
  help: string;
  /** The variable: `PETSTORE_` and the flag in upper snake case (cli/env.ts `envVarOf`), for every option `--help` shows. */
  env: string;
  /** The config file's key, camelCase, and the JSON Schema of its value there; absent: not in the file. */
  file?: { key: string; schema: Record<string, unknown> };
  /** The engine option it becomes, and in which unit; absent: the CLI's own. */
  engine?: { key: EngineKey; unit: Unit };
  /** The CLI's own default, applied by the merge; an engine option's default is the engine's ({@link engineDefault}). */
  default?: unknown;
  /** The commands that take it (with the help text of their own table for some). */
  commands: readonly Command[];
}

/** A camelCase key as a flag: `maxWait` → `max-wait`. */
export const flagOf = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
/** The environment variable of a flag: `PETSTORE_` and the flag in upper snake case (`--max-wait` → `PETSTORE_MAX_WAIT`). */
export const envVarOf = (flag: string): string => `PETSTORE_${flag.toUpperCase().replace(/-/g, '_')}`;

/**
 * What `--help` names every `--api-key` with: a command line is no place for a
 * key. Its variable, which `--help` names after it, is readable only by the
 * same user (/proc/<pid>/environ).
 */
export const ARGV_WARNING =
  'Prefer setting PETSTORE_API_KEY (from a secret store or a CI secret): a command line is readable by every user of the machine (ps, /proc/<pid>/cmdline)';

export { SECRET_HEADER_ENV } from '../core/connection/options.js';

/** The report directory unless told. */
const REPORT_DIR = './petstore-conformance-report';
const ruleIds = { type: 'array', items: { enum: rules.map((r) => r.id) } };
const RUN: readonly Command[] = ['run'];
const TARGET: readonly Command[] = ['run', 'replay', 'certify'];

type Entry = Omit<OptionSpec, 'flag' | 'env' | 'file' | 'commands'> & { file?: Record<string, unknown>; commands?: readonly Command[] };
const seconds = (key: EngineKey) => ({ key, unit: SECONDS });
const engine = (key: EngineKey, unit: Unit = same('count')) => ({ key, unit });

/**
 * The options in `--help` order, by the key of the CLI's config they fill
 * (cli/options.ts `CliConfig`, the connection's for the last five). A key
 * with `file` is the config file's key of the same name.
 */
const ENTRIES = {
  baseUrl: {
    type: 'string',
    help: 'Base URL of the implementation, e.g. https://staging.example/v1',
    file: { type: 'string', minLength: 1, description: 'Base URL of the implementation, normally ending in /v1 (--base-url)' },
    commands: ['run', 'replay', 'certify'],
  },
  apiKey: {
    type: 'string',
    help: `API key, sent as "Authorization: Bearer <key>"; never written anywhere. ${ARGV_WARNING}`,
    commands: ['run', 'replay', 'certify', 'serve'],
  },
  reportDir: {
    type: 'string',
    help: `Where the reports are written [default: ${REPORT_DIR}]`,
    default: REPORT_DIR,
    file: {
      type: 'string',
      minLength: 1,
      description: `Where the reports are written, relative to this file (--report-dir). Default ${REPORT_DIR}`,
    },
  },
  seed: {
    type: 'number',
    help: 'Seed of all generated data (default: random, printed and recorded)',
    engine: engine('seed'),
    file: {
      type: 'integer',
      minimum: -2147483648,
      maximum: 2147483647,
      description: 'Seed of all generated data (--seed). Default: random, printed',
    },
  },
  numRuns: {
    type: 'number',
    help: `Runs per property-based check [default: ${DEFAULTS.numRuns}]`,
    engine: engine('numRuns'),
    file: {
      type: 'integer',
      minimum: 1,
      maximum: 10000,
      description: `Runs per property-based check (--num-runs). Default ${DEFAULTS.numRuns}`,
    },
  },
  strict: {
    type: 'boolean',
    help: 'SHOULD failures (warnings) fail the run too',
    engine: engine('strict'),
    file: { type: 'boolean', description: 'SHOULD failures (warnings) fail the run too (--strict)' },
  },
  timeout: {
    type: 'number',
    help: `Deadline of one request, headers and body, in ms [default: ${DEFAULTS.timeoutMs}]`,
    engine: engine('timeoutMs', same('ms')),
    commands: ['run', 'replay', 'certify'],
    file: {
      type: 'integer',
      minimum: 1,
      maximum: 600000,
      description: `Deadline of one request, headers and body, in ms (--timeout). Default ${DEFAULTS.timeoutMs}`,
    },
  },
  maxWait: {
    type: 'number',
    help: `Seconds the run may spend waiting out temporary answers, 429 and 503 with Retry-After (Retry-After honoured) before what is still limited is inconclusive [default: ${SECONDS.fromEngine(DEFAULTS.maxWaitMs)}]`,
    engine: seconds('maxWaitMs'),
    file: {
      type: 'integer',
      minimum: 0,
      maximum: 86400,
      description: `Seconds the run may spend waiting out temporary answers, 429 and 503 with Retry-After (--max-wait). Default ${SECONDS.fromEngine(DEFAULTS.maxWaitMs)}`,
    },
  },
  waitFor: {
    type: 'number',
    help: 'Seconds to wait before the run for the target to give any HTTP answer (a server still starting), asking again with backoff; past them, one line and exit 2 [default: 0, not waited for]',
    engine: seconds('waitForMs'),
    commands: RUN,
    file: {
      type: 'number',
      minimum: 0,
      maximum: 3600,
      description: 'Seconds to wait before the run for the target to give any HTTP answer (--wait-for). Default 0: not waited for',
    },
  },
  visibilityWindow: {
    type: 'number',
    help: `Seconds after its 201 a created animal may still be missing (getPet 404, absent from a listing) while it is asked for again with backoff: no read-after-write guarantee is stated. Once seen it must stay visible; past the window it fails [default: ${SECONDS.fromEngine(DEFAULTS.visibilityWindowMs)}]`,
    engine: seconds('visibilityWindowMs'),
    file: {
      type: 'number',
      minimum: 0,
      maximum: 600,
      description: `Seconds after its 201 a created animal may stay unreadable while it is asked for again (--visibility-window). Default ${SECONDS.fromEngine(DEFAULTS.visibilityWindowMs)}`,
    },
  },
  concurrency: {
    type: 'number',
    help: `Requests in flight at most (functional phases), on as many connections; 1 sends one at a time. Outcomes do not depend on it. A hard limit [default: ${DEFAULTS.concurrency}]`,
    engine: engine('concurrency'),
    file: {
      type: 'integer',
      minimum: 1,
      maximum: 256,
      description: `Requests in flight at most in the functional phases (--concurrency). Default ${DEFAULTS.concurrency}`,
    },
  },
  widenConcurrency: {
    type: 'boolean',
    help: `Without --concurrency: keep more than ${DEFAULTS.concurrency} requests in flight, up to ${4 * DEFAULTS.concurrency}, while the round trip (10 ms or more), not the target, is what answers wait for; a far target is tested in fewer waves of round trips. Unset, only while connections take 10 ms or more to open too (a far target, not a reverse proxy or balancer near the suite); --widen-concurrency: on what answers show alone; --no-widen-concurrency keeps ${DEFAULTS.concurrency} [default: unset]`,
    engine: engine('widenConcurrency'),
    commands: RUN,
    file: {
      type: 'boolean',
      description:
        'Without concurrency: widen the requests in flight while the round trip, not the target, is what answers wait for (--widen-concurrency): true on what answers show alone, false never. Default unset: only while connections take 10 ms or more to open too',
    },
  },
  rateLimit: {
    type: 'string',
    help: 'Requests per second the functional phases send at most, as 5 or 5/s, for shared staging servers [default: no limit]',
    engine: engine('rateLimit', same('requests/s')),
    file: { type: 'number', exclusiveMinimum: 0, description: 'Requests per second the functional phases send at most (--rate-limit)' },
  },
  maxTime: {
    type: 'number',
    help: `Seconds the whole run may take; past it the reports are written, the rest is "not run", exit 2 [default: ${SECONDS.fromEngine(DEFAULTS.maxTimeMs)}]`,
    engine: seconds('maxTimeMs'),
    file: {
      type: 'integer',
      minimum: 1,
      maximum: 604800,
      description: `Seconds the whole run may take (--max-time). Default ${SECONDS.fromEngine(DEFAULTS.maxTimeMs)}`,
    },
  },
  load: {
    type: 'string',
    help: `Load profile after the functional checks: ${PROFILE_NAMES.join(', ')}, or one from the config file [default: smoke]`,
    default: 'smoke',
    engine: engine('load'),
    file: {
      type: 'string',
      description:
        'Load profile after the functional checks: smoke, baseline, stress, soak, none, or one of profiles (--load). Default smoke',
    },
  },
  only: {
    type: 'string',
    list: true,
    help: 'Run only these rule ids (repeat or comma-separate)',
    default: [],
    engine: engine('only'),
    file: { ...ruleIds, description: 'Run only these rule ids (--only)' },
  },
  skip: {
    type: 'string',
    list: true,
    help: 'Do not run these rule ids (repeat or comma-separate)',
    default: [],
    engine: engine('skip'),
    file: { ...ruleIds, description: 'Do not run these rule ids (--skip)' },
  },
  reporter: {
    type: 'string',
    list: true,
    help: `Reports to write [default: ${REPORTER_NAMES.join(', ')}]`,
    default: [...REPORTER_NAMES],
    file: { type: 'array', items: { enum: [...REPORTER_NAMES] }, description: 'Reports to write (--reporter). Default: all of them' },
  },
  json: { type: 'boolean', help: 'Print report.json to stdout (the console report goes to stderr)', default: false },
  embedded: { type: 'boolean', help: 'Start the embedded reference implementation on loopback and test it', default: false },
  waivers: {
    type: 'string',
    help: 'Waivers file: known failures (rule, reason, tracking issue, expiry) that do not fail the run until they expire',
    file: { type: 'string', minLength: 1, description: 'Waivers file, relative to this file (--waivers)' },
  },
  ca: {
    type: 'string',
    help: 'PEM file of a private CA to trust for an https target',
    commands: TARGET,
    file: { type: 'string', minLength: 1, description: 'PEM file of a private CA to trust, relative to this file (--ca)' },
  },
  insecure: {
    type: 'boolean',
    help: 'Do not verify the TLS certificate (recorded in the report)',
    default: false,
    commands: TARGET,
    file: { type: 'boolean', description: 'Do not verify the TLS certificate (--insecure)' },
  },
  config: {
    type: 'string',
    help: 'Config file [default: petstore-conformance.config.json in the working directory or a folder above it, up to the repository root]',
  },
  color: {
    type: 'boolean',
    help: 'Colour the console output: --color forces it, --no-color turns it off [default: off when NO_COLOR is set, then as FORCE_COLOR says, then on a terminal only]',
  },
  quiet: { type: 'boolean', alias: 'q', help: 'Print the verdict line only (the reports are still written)', default: false },
  verbose: { type: 'boolean', help: 'Print each exchange as it completes, one line, the key redacted', default: false },
  maxFailures: {
    type: 'number',
    help: 'Stop sending once this many rules fail; the rest is "not run", the verdict non-conformant',
    engine: engine('maxFailures'),
    file: { type: 'integer', minimum: 1, description: 'Stop sending once this many rules fail; the rest is not run (--max-failures)' },
  },
  dryRun: {
    type: 'boolean',
    help: 'Print the plan (phases, checks, about how many requests and animals) and send nothing',
    default: false,
  },
  userAgent: {
    type: 'string',
    help: 'User-Agent the requests carry [default: petstore-conformance]',
    engine: engine('userAgent'),
    file: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description: 'User-Agent the requests carry (--user-agent). Default petstore-conformance',
    },
  },
  fingerprints: {
    type: 'string',
    list: true,
    help: `Send each request as one of these clients, drawn from the seed: their User-Agent, headers, header order and casing, connection habit (comma-separate: ${FINGERPRINT_IDS.join(', ')}; or all) [default: none, the tool's own requests]`,
    engine: engine('fingerprints'),
    file: {
      type: 'array',
      items: { enum: [...FINGERPRINT_IDS] },
      minItems: 1,
      uniqueItems: true,
      description:
        "Clients whose shapes the requests are spread over, each request as one, drawn from the seed (--fingerprints). Default: none, the tool's own requests",
    },
  },
  cert: {
    type: 'string',
    help: 'PEM file of a client certificate to present to an https target (mTLS); needs --cert-key',
    commands: TARGET,
    file: { type: 'string', minLength: 1, description: 'PEM file of a client certificate for mTLS, relative to this file (--cert)' },
  },
  certKey: {
    type: 'string',
    help: "PEM file of the client certificate's private key (unencrypted)",
    commands: TARGET,
    file: { type: 'string', minLength: 1, description: "PEM file of the client certificate's key, relative to this file (--cert-key)" },
  },
  proxy: {
    type: 'string',
    help: 'Send every request through this HTTP proxy (http://[user:pass@]host:port); without it, HTTP_PROXY, HTTPS_PROXY and NO_PROXY apply',
    commands: TARGET,
    file: { type: 'string', minLength: 1, description: 'HTTP proxy every request goes through (--proxy)' },
  },
  header: {
    type: 'string',
    list: true,
    alias: 'H',
    help: 'Extra header on every request, "Name: value" (repeatable; never Authorization)',
    commands: TARGET,
  },
  secretHeader: {
    type: 'string',
    list: true,
    help: `Like --header, but the value is a secret, redacted like the key: "Name: value", or "Name" to read it from ${SECRET_HEADER_ENV}<NAME>`,
    commands: TARGET,
  },
} as const satisfies Record<string, Entry>;

/** A key of the schema: the CLI config's (or the connection's) key, and the config file's where it has one. */
export type OptionKey = keyof typeof ENTRIES;

/** Every option, by key, in `--help` order. */
export const OPTION_SCHEMA: { readonly [K in OptionKey]: OptionSpec } = Object.fromEntries(
  Object.entries(ENTRIES).map(([key, entry]: [string, Entry]) => {
    const flag = flagOf(key);
    const { file, commands, ...rest } = entry;
    return [key, { ...rest, flag, env: envVarOf(flag), commands: commands ?? RUN, ...(file ? { file: { key, schema: file } } : {}) }];
  }),
) as { [K in OptionKey]: OptionSpec };

/** The connection's options (cli/connection-flags.ts), shared by every command that talks to a target. */
export const CONNECTION_KEYS = ['cert', 'certKey', 'proxy', 'header', 'secretHeader'] as const satisfies readonly OptionKey[];
