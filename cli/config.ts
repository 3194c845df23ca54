/**
 * The configuration file, `petstore-conformance.config.json` in the working
 * directory or the path given by `--config`. It holds what the flags hold, under
 * the same names in camelCase. Flags win over the file, the file over the
 * defaults. The API key is never read from it.
 */
import { resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { REPORTER_NAMES } from '../reports/index.js';
import { rules } from '../spec/rules.js';
import { newAjv } from '../spec/validate.js';
import type { LoadProfile } from '../suites/load/profiles.js';
import { FILE_LIMITS, FileRefused, readBoundedFileSync } from './files.js';

export const CONFIG_FILE = 'petstore-conformance.config.json';

/** What the file may hold. */
export interface FileConfig {
  baseUrl?: string;
  reportDir?: string;
  seed?: number;
  numRuns?: number;
  strict?: boolean;
  timeout?: number;
  maxWait?: number;
  rateLimit?: number;
  maxTime?: number;
  load?: string;
  only?: string[];
  skip?: string[];
  reporter?: string[];
  ca?: string;
  insecure?: boolean;
  /** Client certificate and its key (PEM files), an HTTP proxy, extra headers (never secret ones: those only by flag). */
  cert?: string;
  certKey?: string;
  proxy?: string;
  headers?: Record<string, string>;
  waivers?: string;
  /** Load profiles by name (they may replace a built-in one); see suites/load/profiles.ts. */
  profiles?: Record<string, Omit<LoadProfile, 'name' | 'description' | 'mix'> & { description?: string; mix: Partial<LoadProfile['mix']> }>;
}

const ruleIds = { type: 'array', items: { enum: rules.map((r) => r.id) } };

const schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    baseUrl: { type: 'string', minLength: 1 },
    reportDir: { type: 'string', minLength: 1 },
    seed: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
    numRuns: { type: 'integer', minimum: 1, maximum: 10000 },
    strict: { type: 'boolean' },
    timeout: { type: 'integer', minimum: 1, maximum: 600000 },
    maxWait: { type: 'integer', minimum: 0, maximum: 86400 },
    rateLimit: { type: 'number', exclusiveMinimum: 0 },
    maxTime: { type: 'integer', minimum: 1, maximum: 604800 },
    load: { type: 'string' },
    only: ruleIds,
    skip: ruleIds,
    reporter: { type: 'array', items: { enum: [...REPORTER_NAMES] } },
    ca: { type: 'string', minLength: 1 },
    insecure: { type: 'boolean' },
    cert: { type: 'string', minLength: 1 },
    certKey: { type: 'string', minLength: 1 },
    proxy: { type: 'string', minLength: 1 },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    waivers: { type: 'string', minLength: 1 },
    profiles: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_-]*$', not: { const: 'none' } },
      additionalProperties: {
        type: 'object',
        required: ['kind', 'maxRequests', 'mix', 'thresholds'],
        additionalProperties: false,
        properties: {
          kind: { enum: ['closed', 'rate', 'ramp'] },
          description: { type: 'string' },
          connections: { type: 'integer', minimum: 1 },
          durationSec: { type: 'number', exclusiveMinimum: 0 },
          rate: { type: 'number', exclusiveMinimum: 0 },
          stages: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 1 } },
          stageSec: { type: 'number', exclusiveMinimum: 0 },
          maxRequests: { type: 'integer', minimum: 1 },
          mix: {
            type: 'object',
            additionalProperties: false,
            properties: { listPets: { type: 'number', minimum: 0 }, createPet: { type: 'number', minimum: 0 }, getPet: { type: 'number', minimum: 0 } },
          },
          thresholds: { type: 'array', items: { type: 'string' } },
          authProbeShare: { type: 'number', minimum: 0, maximum: 0.5 },
        },
      },
    },
  },
} as const;

const validate = newAjv({ allErrors: true }).compile<FileConfig>(schema);

/**
 * Reads the config file: `explicit` must exist; otherwise the default file is
 * read when present. Throws `UsageError` naming the file and the offending key.
 */
export function loadConfigFile(explicit: string | undefined, cwd: string): { path?: string; config: FileConfig } {
  const path = resolve(cwd, explicit ?? CONFIG_FILE);
  let text: string;
  try {
    text = readBoundedFileSync(path, FILE_LIMITS.config, `cannot read the config file ${path}`).toString('utf8');
  } catch (error) {
    if (explicit === undefined && error instanceof FileRefused && error.reason === 'missing') return { config: {} };
    throw error;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data === 'object' && data !== null && ('apiKey' in data || 'api-key' in data)) {
    throw new UsageError(`${path}: the API key is never read from a file; pass --api-key or set PETSTORE_API_KEY`);
  }
  if (!validate(data)) {
    const error = validate.errors?.[0];
    const key = error?.keyword === 'additionalProperties' ? String(error.params.additionalProperty) : (error?.instancePath.slice(1).replace(/\//g, '.') ?? '');
    const message = error?.keyword === 'additionalProperties' ? 'is not a known key' : error?.keyword === 'enum' ? `must be one of ${(error.params.allowedValues as string[]).slice(0, 8).join(', ')}${(error.params.allowedValues as string[]).length > 8 ? ', …' : ''}` : (error?.message ?? 'is invalid');
    throw new UsageError(`${path}: "${key || '(root)'}" ${message}`);
  }
  return { path, config: data };
}
