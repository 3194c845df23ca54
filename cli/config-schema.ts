/**
 * The config file's JSON Schema (2020-12): the keys of the option schema
 * (cli/option-schema.ts) that have one, then the file's own, `headers` and
 * `profiles`. The CLI validates the file against it; `npm run gen` publishes
 * it as spec/config.schema.json (point `"$schema"` at it for completion and
 * checking in an editor). Unknown keys are refused (`additionalProperties`).
 */
import { fileProperties } from './option-views.js';

/** Where the published schema says it lives (npm run gen writes spec/config.schema.json). */
export const CONFIG_SCHEMA_ID = 'https://petstore-conformance.invalid/spec/config.schema.json';

/** JSON Schema (2020-12) of the config file. */
export const configSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: CONFIG_SCHEMA_ID,
  title: 'petstore-conformance.config.json',
  description:
    'Configuration of petstore-conformance. Holds what the flags hold, in camelCase; flags and PETSTORE_* environment variables win over it. Never the API key. String values may use ${NAME} for an environment variable.',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', description: 'This schema, for editors: e.g. ./node_modules/petstore-conformance/spec/config.schema.json' },
    ...fileProperties(),
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Extra headers on every request, by name (-H); never Authorization',
    },
    profiles: {
      type: 'object',
      description: 'Load profiles by name (they may replace a built-in one); --load picks one',
      propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_-]*$', not: { const: 'none' } },
      additionalProperties: {
        type: 'object',
        required: ['kind', 'maxRequests', 'mix', 'thresholds'],
        additionalProperties: false,
        properties: {
          kind: {
            enum: ['closed', 'rate', 'ramp'],
            description: 'closed: connections for durationSec; rate: rate requests per second; ramp: stages of connections, stageSec each',
          },
          description: { type: 'string' },
          connections: { type: 'integer', minimum: 1 },
          durationSec: { type: 'number', exclusiveMinimum: 0 },
          rate: { type: 'number', exclusiveMinimum: 0, description: 'Requests per second (kind rate)' },
          stages: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 1 }, description: 'Connections per stage (kind ramp)' },
          stageSec: { type: 'number', exclusiveMinimum: 0 },
          maxRequests: { type: 'integer', minimum: 1, description: 'Hard cap on requests' },
          mix: {
            type: 'object',
            additionalProperties: false,
            description: 'Weights of the operations',
            properties: {
              listPets: { type: 'number', minimum: 0 },
              createPet: { type: 'number', minimum: 0 },
              getPet: { type: 'number', minimum: 0 },
            },
          },
          thresholds: {
            type: 'array',
            items: { type: 'string' },
            description: '[operation.]metric comparator value unit, e.g. "p99 < 500ms", "getPet.errorRate < 1%", "throughput > 50/s"',
          },
          authProbeShare: { type: 'number', minimum: 0, maximum: 0.5, description: 'Share of requests sent without a key. Default 0.02' },
        },
      },
    },
  },
} as const;
