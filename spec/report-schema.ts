/**
 * JSON Schema (2020-12) of report.json. `npm run gen` writes it to
 * spec/report.schema.json; the tests validate real reports against it.
 */
import { gaps } from './gaps.js';
import { RULE_GROUPS, rules } from './rules.js';

const outcome = { enum: ['pass', 'fail', 'inconclusive', 'error', 'skip'] };
const operation = { enum: ['listPets', 'createPet', 'getPet', 'listStoreOrders'] };
const headers = { type: 'object', additionalProperties: { type: 'string' } };
const counts = {
  type: 'object',
  required: ['pass', 'fail', 'inconclusive', 'error', 'skip'],
  additionalProperties: false,
  properties: Object.fromEntries(outcome.enum.map((o) => [o, { type: 'integer', minimum: 0 }])),
};

export const reportSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://petstore-conformance.invalid/spec/report.schema.json',
  title: 'petstore-conformance report',
  type: 'object',
  required: ['tool', 'interfaceVersion', 'target', 'seed', 'numRuns', 'startedAt', 'finishedAt', 'durationMs', 'options', 'namePrefix', 'summary', 'rules', 'observations', 'skippedPhases'],
  additionalProperties: false,
  properties: {
    tool: {
      type: 'object',
      required: ['name', 'version'],
      additionalProperties: false,
      properties: { name: { const: 'petstore-conformance' }, version: { type: 'string' } },
    },
    interfaceVersion: { type: 'string' },
    target: { type: 'string', description: 'Base URL without credentials' },
    seed: { type: 'integer' },
    numRuns: { type: 'integer', minimum: 1 },
    startedAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: 'string', format: 'date-time' },
    durationMs: { type: 'integer', minimum: 0 },
    options: {
      type: 'object',
      required: ['strict', 'timeoutMs', 'only', 'skip', 'load', 'insecure', 'customCa'],
      additionalProperties: false,
      properties: {
        strict: { type: 'boolean' },
        insecure: { type: 'boolean', description: 'TLS certificates were not verified' },
        customCa: { type: 'boolean', description: 'A private CA was trusted (--ca)' },
        timeoutMs: { type: 'integer' },
        only: { type: 'array', items: { $ref: '#/$defs/ruleId' } },
        skip: { type: 'array', items: { $ref: '#/$defs/ruleId' } },
        load: { type: 'string' },
      },
    },
    namePrefix: { type: 'string' },
    summary: {
      type: 'object',
      required: ['verdict', 'reason', 'strict', 'counts', 'requests', 'checks'],
      additionalProperties: false,
      properties: {
        verdict: { enum: ['conformant', 'non-conformant', 'error'] },
        reason: { type: 'string' },
        strict: { type: 'boolean' },
        counts: { type: 'object', required: ['MUST', 'SHOULD'], additionalProperties: false, properties: { MUST: counts, SHOULD: counts } },
        requests: { type: 'integer', minimum: 0 },
        checks: { type: 'integer', minimum: 0 },
        abort: {
          type: 'object',
          required: ['code', 'message'],
          additionalProperties: false,
          properties: { code: { type: 'string', pattern: '^PC_ERR_' }, message: { type: 'string' } },
        },
      },
    },
    rules: { type: 'array', items: { $ref: '#/$defs/rule' } },
    observations: { type: 'array', items: { $ref: '#/$defs/observation' } },
    skippedPhases: {
      type: 'array',
      items: { type: 'object', required: ['phase', 'reason'], additionalProperties: false, properties: { phase: { type: 'string' }, reason: { type: 'string' } } },
    },
  },
  $defs: {
    ruleId: { enum: rules.map((r) => r.id) },
    rule: {
      type: 'object',
      required: ['id', 'title', 'severity', 'group', 'section', 'outcome', 'checks'],
      additionalProperties: false,
      properties: {
        id: { $ref: '#/$defs/ruleId' },
        title: { type: 'string' },
        severity: { enum: ['MUST', 'SHOULD'] },
        group: { enum: [...RULE_GROUPS] },
        section: { type: 'string' },
        outcome,
        checks: { type: 'array', items: { $ref: '#/$defs/check' } },
      },
    },
    check: {
      type: 'object',
      required: ['id', 'kind', 'title', 'outcome', 'passed', 'failed', 'inconclusive', 'findings'],
      additionalProperties: false,
      properties: {
        id: { type: 'string' },
        kind: { enum: ['example', 'property', 'response'] },
        title: { type: 'string' },
        outcome,
        passed: { type: 'integer', minimum: 0 },
        failed: { type: 'integer', minimum: 0 },
        inconclusive: { type: 'integer', minimum: 0 },
        findings: { type: 'array', items: { $ref: '#/$defs/finding' } },
        reason: { type: 'string' },
      },
    },
    finding: {
      type: 'object',
      required: ['rule', 'check', 'operation', 'outcome', 'message', 'evidence', 'key', 'replay'],
      additionalProperties: false,
      properties: {
        rule: { $ref: '#/$defs/ruleId' },
        check: { type: 'string' },
        operation,
        outcome: { enum: ['fail', 'inconclusive'] },
        message: { type: 'string' },
        evidence: { type: 'array', items: { $ref: '#/$defs/evidence' } },
        counterexample: {
          type: 'object',
          required: ['input', 'seed', 'path', 'numRuns', 'numShrinks'],
          additionalProperties: false,
          properties: { input: { type: 'string' }, seed: { type: 'integer' }, path: { type: 'string' }, numRuns: { type: 'integer' }, numShrinks: { type: 'integer' } },
        },
        key: { type: 'string' },
        replay: { type: 'string' },
      },
    },
    evidence: {
      type: 'object',
      required: ['seq', 'request', 'durationMs', 'curl'],
      additionalProperties: false,
      properties: {
        seq: { type: 'integer', minimum: 1 },
        request: {
          type: 'object',
          required: ['method', 'url', 'headers', 'bodyBytes'],
          additionalProperties: false,
          properties: { method: { type: 'string' }, url: { type: 'string' }, headers, body: { type: 'string' }, bodyBytes: { type: 'integer', minimum: 0 } },
        },
        response: {
          type: 'object',
          required: ['status', 'headers', 'body', 'bodyBytes', 'truncated'],
          additionalProperties: false,
          properties: { status: { type: 'integer' }, headers, body: { type: 'string' }, bodyBytes: { type: 'integer', minimum: 0 }, truncated: { type: 'boolean' } },
        },
        transportError: { type: 'string' },
        durationMs: { type: 'number', minimum: 0 },
        curl: { type: 'string' },
      },
    },
    observation: {
      type: 'object',
      required: ['gap', 'operation', 'summary', 'count'],
      additionalProperties: false,
      properties: {
        gap: { enum: gaps.map((g) => g.id) },
        operation,
        summary: { type: 'string' },
        count: { type: 'integer', minimum: 1 },
        evidence: { $ref: '#/$defs/evidence' },
      },
    },
  },
} as const;
