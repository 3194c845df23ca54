/**
 * report.json's rule results, as JSON Schema `$defs`: a rule, its checks,
 * their findings with evidence, and the observations on the document's gaps.
 * Part of spec/report-schema.ts.
 */
import { FINDING_CODES } from './findings.js';
import { gaps } from './gaps.js';
import { RULE_GROUPS } from './rules.js';

/** A check's outcome. */
export const outcome = { enum: ['pass', 'fail', 'inconclusive', 'error', 'skip'] };
/** A rule's outcome: a check's, or waived. */
export const ruleOutcome = { enum: [...outcome.enum, 'waived'] };
/** One of the interface's operations. */
export const operation = { enum: ['listPets', 'createPet', 'getPet', 'listStoreOrders'] };
/** Header names to values. */
const headers = { type: 'object', additionalProperties: { type: 'string' } };

/** The `$defs` of a rule's result, in the schema's order. */
export const resultDefs = {
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
      outcome: ruleOutcome,
      checks: { type: 'array', items: { $ref: '#/$defs/check' } },
      diagnoses: {
        description: 'Patterns every failing finding of the rule shares, certain from the evidence (suites/diagnoses.ts)',
        type: 'array',
        items: {
          type: 'object',
          required: ['code', 'text'],
          additionalProperties: false,
          properties: { code: { enum: ['ids-as-doubles', 'int32-clamp', 'int32-wrap', 'names-trimmed'] }, text: { type: 'string' } },
        },
      },
    },
  },
  check: {
    type: 'object',
    required: ['id', 'kind', 'title', 'outcome', 'passed', 'failed', 'inconclusive', 'findings'],
    additionalProperties: false,
    properties: {
      id: { type: 'string' },
      kind: { enum: ['example', 'property', 'response', 'load', 'differential'] },
      title: { type: 'string' },
      outcome,
      passed: { type: 'integer', minimum: 0 },
      failed: { type: 'integer', minimum: 0 },
      inconclusive: { type: 'integer', minimum: 0 },
      findings: { type: 'array', items: { $ref: '#/$defs/finding' } },
      why: { $ref: '#/$defs/why' },
      reason: { type: 'string', description: '`why`, worded' },
      durationMs: {
        type: 'number',
        minimum: 0,
        description: "Time the check took (an active check's run, a response check's judging), shared by the rules it judges",
      },
      startedMs: {
        type: 'number',
        minimum: 0,
        description: 'When an active check started, ms after the run started: with durationMs, its interval in the run',
      },
    },
  },
  finding: {
    type: 'object',
    required: ['rule', 'check', 'operation', 'outcome', 'message', 'evidence', 'key'],
    dependentRequired: { code: ['args'], args: ['code'] },
    additionalProperties: false,
    properties: {
      rule: { $ref: '#/$defs/ruleId' },
      check: { type: 'string' },
      operation,
      outcome: { enum: ['fail', 'inconclusive'] },
      code: {
        enum: FINDING_CODES,
        description: 'What the finding says, as a code of spec/findings.ts (absent from reports of earlier versions)',
      },
      args: {
        type: 'object',
        description: "The code's arguments: numbers, and text redacted as the message is",
        additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'array', items: { type: 'string' } }] },
      },
      underLoad: { type: 'string', description: 'The load profile under which the answer was judged' },
      repeat: {
        enum: ['intermittent', 'not-reproduced'],
        description: 'A property failure that did not fail again when its input was replayed',
      },
      message: { type: 'string', description: 'The message in words, as every output shows it' },
      evidence: { type: 'array', items: { $ref: '#/$defs/evidence' } },
      counterexample: {
        type: 'object',
        required: ['input', 'seed', 'path', 'numRuns', 'numShrinks'],
        additionalProperties: false,
        properties: {
          input: { type: 'string' },
          seed: { type: 'integer' },
          path: { type: 'string' },
          numRuns: { type: 'integer' },
          numShrinks: { type: 'integer' },
        },
      },
      key: { type: 'string' },
      rerun: {
        type: 'object',
        description: 'What a re-run with the same seed selects to reproduce the finding',
        required: ['only'],
        additionalProperties: false,
        properties: { only: { type: 'array', items: { $ref: '#/$defs/ruleId' }, minItems: 1 } },
      },
      replay: { type: 'string', description: 'Reports of earlier versions: the re-run command, worded (now `rerun`)' },
      case: {
        type: 'object',
        required: ['id', 'request', 'judge'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^c-[0-9a-f]{8}$' },
          request: {
            type: 'object',
            required: ['method', 'path', 'headers'],
            additionalProperties: false,
            properties: {
              method: { type: 'string' },
              path: { type: 'string' },
              headers,
              body: { type: 'string', contentEncoding: 'base64' },
            },
          },
          auth: { type: 'string' },
          judge: {
            type: 'object',
            required: ['kind'],
            properties: { kind: { enum: ['response', 'status', 'not-status', 'list', 'create', 'fetch', 'none'] } },
          },
        },
      },
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
        properties: {
          method: { type: 'string' },
          url: { type: 'string' },
          headers,
          body: { type: 'string' },
          bodyBytes: { type: 'integer', minimum: 0 },
        },
      },
      response: {
        type: 'object',
        required: ['status', 'headers', 'body', 'bodyBytes', 'truncated'],
        additionalProperties: false,
        properties: {
          status: { type: 'integer' },
          headers,
          body: { type: 'string' },
          bodyBytes: { type: 'integer', minimum: 0 },
          truncated: { type: 'boolean' },
        },
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
} as const;
