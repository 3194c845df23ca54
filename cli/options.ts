/**
 * The CLI's options, typed over the config they fill: a key of {@link CliConfig}
 * without a flag here fails typecheck. Defaults live in suites/engine.ts
 * (DEFAULTS) and here for CLI-only keys; validation happens before defaults.
 */
import type { Options } from 'yargs';
import { DEFAULTS } from '../suites/engine.js';
import { REPORTER_NAMES, type ReporterName } from '../reports/index.js';

/** What a run of the CLI is configured with. */
export interface CliConfig {
  baseUrl: string | undefined;
  apiKey: string | undefined;
  reportDir: string;
  seed: number | undefined;
  numRuns: number;
  strict: boolean;
  timeout: number;
  load: string;
  only: string[];
  skip: string[];
  reporter: ReporterName[];
  json: boolean;
  embedded: boolean;
}

/** Kebab-case flag names of the config keys. */
type Flag<K extends string> = K extends `${infer H}${infer T}` ? (H extends Lowercase<H> ? `${H}${Flag<T>}` : `-${Lowercase<H>}${Flag<T>}`) : K;

export const DEFAULT_REPORT_DIR = './petstore-conformance-report';

export const runOptions: { [K in keyof CliConfig as Flag<K & string>]-?: Options } = {
  'base-url': { type: 'string', describe: 'Base URL of the implementation, e.g. https://staging.example/v1 (env PETSTORE_BASE_URL)' },
  'api-key': { type: 'string', describe: 'API key, sent as "Authorization: Bearer <key>"; never written anywhere (env PETSTORE_API_KEY)' },
  'report-dir': { type: 'string', default: DEFAULT_REPORT_DIR, describe: 'Where the reports are written' },
  seed: { type: 'number', describe: 'Seed of all generated data (default: random, printed and recorded)' },
  'num-runs': { type: 'number', default: DEFAULTS.numRuns, describe: 'Runs per property-based check' },
  strict: { type: 'boolean', default: DEFAULTS.strict, describe: 'SHOULD failures (warnings) fail the run too' },
  timeout: { type: 'number', default: DEFAULTS.timeoutMs, describe: 'Deadline of one request, headers and body, in ms' },
  load: { type: 'string', default: DEFAULTS.load, describe: 'Load profile to run after the functional checks' },
  only: { type: 'string', array: true, default: [], describe: 'Run only these rule ids (repeat or comma-separate)' },
  skip: { type: 'string', array: true, default: [], describe: 'Do not run these rule ids (repeat or comma-separate)' },
  reporter: { type: 'string', array: true, default: [...REPORTER_NAMES], describe: `Reports to write: ${REPORTER_NAMES.join(', ')}` },
  json: { type: 'boolean', default: false, describe: 'Print report.json to stdout (the console report goes to stderr)' },
  embedded: { type: 'boolean', default: false, describe: 'Start the embedded reference implementation on loopback and test it' },
};
