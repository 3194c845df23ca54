/**
 * report.json's load results, as JSON Schema `$defs`: per profile its
 * settings, figures overall and per operation, timeline, thresholds and the
 * generator's own load. Part of spec/report-schema.ts.
 */

/** The `$defs` of a load profile's result, in the schema's order. */
export const loadDefs = {
  operations: {
    type: 'object',
    required: ['listPets', 'createPet', 'getPet'],
    additionalProperties: false,
    properties: { listPets: { $ref: '#/$defs/figures' }, createPet: { $ref: '#/$defs/figures' }, getPet: { $ref: '#/$defs/figures' } },
  },
  figures: {
    type: 'object',
    required: ['requests', 'throughput', 'latencyMs', 'errors', 'errorRate', 'distribution'],
    additionalProperties: false,
    properties: {
      requests: { type: 'integer', minimum: 0 },
      throughput: { type: 'number', minimum: 0 },
      latencyMs: {
        type: 'object',
        required: ['p50', 'p90', 'p95', 'p97_5', 'p99', 'p99_9', 'max', 'mean'],
        additionalProperties: false,
        properties: Object.fromEntries(
          ['p50', 'p90', 'p95', 'p97_5', 'p99', 'p99_9', 'max', 'mean'].map((k) => [k, { type: 'number', minimum: 0 }]),
        ),
      },
      errors: {
        type: 'object',
        required: ['non2xx', 'timeouts', 'socketErrors'],
        additionalProperties: false,
        properties: {
          non2xx: { type: 'integer', minimum: 0 },
          timeouts: { type: 'integer', minimum: 0 },
          socketErrors: { type: 'integer', minimum: 0 },
        },
      },
      errorRate: { type: 'number', minimum: 0, maximum: 1 },
      distribution: {
        type: 'array',
        items: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false, minItems: 2 },
      },
    },
  },
  threshold: {
    type: 'object',
    required: ['id', 'expression', 'operation', 'metric', 'comparator', 'limit', 'measured', 'unit', 'outcome'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^LOAD-' },
      expression: { type: 'string' },
      operation: { enum: ['listPets', 'createPet', 'getPet', 'all'] },
      metric: { enum: ['p50', 'p90', 'p95', 'p97_5', 'p99', 'p99_9', 'max', 'mean', 'errorRate', 'throughput', 'drift', 'answered'] },
      comparator: { enum: ['<', '<=', '>', '>='] },
      limit: { type: 'number' },
      measured: { type: 'number' },
      unit: { type: 'string' },
      outcome: { enum: ['pass', 'fail', 'inconclusive'] },
      reason: { type: 'string' },
    },
  },
  load: {
    type: 'object',
    required: [
      'profile',
      'kind',
      'description',
      'generator',
      'startedAt',
      'durationMs',
      'settings',
      'overall',
      'operations',
      'timeline',
      'thresholds',
      'generatorLoad',
      'conformance',
    ],
    additionalProperties: false,
    properties: {
      profile: { type: 'string' },
      kind: { enum: ['closed', 'rate', 'ramp'] },
      description: { type: 'string' },
      generator: { enum: ['raw', 'undici', 'autocannon', 'paced-undici'] },
      startedAt: { type: 'string', format: 'date-time' },
      durationMs: { type: 'integer', minimum: 0 },
      settings: {
        type: 'object',
        required: ['connections', 'durationSec', 'maxRequests', 'mix'],
        additionalProperties: false,
        properties: {
          connections: { type: 'integer', minimum: 1 },
          durationSec: { type: 'number', minimum: 0 },
          maxRequests: { type: 'integer', minimum: 1 },
          rate: { type: 'number', minimum: 0 },
          stages: { type: 'array', items: { type: 'integer', minimum: 1 } },
          stageSec: { type: 'number', minimum: 0 },
          mix: { type: 'object', additionalProperties: { type: 'number', minimum: 0 } },
        },
      },
      overall: { $ref: '#/$defs/figures' },
      operations: { $ref: '#/$defs/operations' },
      timeline: {
        type: 'array',
        items: {
          type: 'object',
          required: ['second', 'requests', 'errors', 'p50', 'p99'],
          additionalProperties: false,
          properties: {
            second: { type: 'integer' },
            requests: { type: 'integer' },
            errors: { type: 'integer' },
            p50: { type: 'number' },
            p99: { type: 'number' },
          },
        },
      },
      schedule: {
        type: 'object',
        required: ['due', 'sent', 'dropped', 'late'],
        additionalProperties: false,
        properties: { due: { type: 'integer' }, sent: { type: 'integer' }, dropped: { type: 'integer' }, late: { type: 'integer' } },
      },
      answered: {
        type: 'object',
        required: ['answered', 'due'],
        additionalProperties: false,
        properties: {
          answered: { type: 'integer', minimum: 0 },
          due: { type: 'integer', minimum: 0 },
          generatorAware: {
            type: 'boolean',
            description:
              'The share answered was judged against the generator load: bound, it reads not measured rather than a failure. Absent from reports of earlier versions, which judged it as it was',
          },
        },
      },
      thresholds: { type: 'array', items: { $ref: '#/$defs/threshold' } },
      generatorLoad: {
        type: 'object',
        required: ['cpuShare', 'eventLoopDelayP99Ms', 'bound'],
        additionalProperties: false,
        properties: {
          cpuShare: { type: 'number', minimum: 0 },
          eventLoopDelayP99Ms: { type: 'number', minimum: 0 },
          bound: { type: 'boolean' },
          boundBy: {
            type: 'array',
            description:
              'What made the generator bound (empty when it was not): cpu, a share of a core of 0.85 or more; eventLoopDelay, its event loop late against the latencies it reported. Absent from reports of earlier versions',
            items: { enum: ['cpu', 'eventLoopDelay'] },
            uniqueItems: true,
          },
        },
      },
      conformance: {
        type: 'object',
        required: ['sampled', 'undecodable', 'failedRules'],
        additionalProperties: false,
        properties: {
          sampled: { type: 'integer', minimum: 0 },
          undecodable: { type: 'integer', minimum: 0 },
          failedRules: { type: 'array', items: { $ref: '#/$defs/ruleId' } },
        },
      },
      brokeAt: {
        type: 'object',
        required: ['stage', 'connections', 'thresholds'],
        additionalProperties: false,
        properties: {
          stage: { type: 'integer' },
          connections: { type: 'integer' },
          thresholds: { type: 'array', items: { type: 'string' } },
        },
      },
      drift: {
        type: 'object',
        required: ['p99Ratio', 'errorRateDelta'],
        additionalProperties: false,
        properties: { p99Ratio: { type: 'number' }, errorRateDelta: { type: 'number' } },
      },
      stoppedEarly: { type: 'string' },
    },
  },
} as const;
