/**
 * JSON Schema (2020-12) of report.json. `npm run gen` writes it to
 * spec/report.schema.json; the tests validate real reports against it. Its
 * `$defs` are kept by section: report-schema-reasons.ts (stop and skip reasons),
 * report-schema-load.ts (load results), report-schema-results.ts (rules, checks,
 * findings, evidence, observations).
 */
import { FINGERPRINT_IDS } from '../core/fingerprints.js';
import { loadDefs } from './report-schema-load.js';
import { reasonDefs } from './report-schema-reasons.js';
import { operation, resultDefs, ruleOutcome } from './report-schema-results.js';
import { rules } from './rules.js';

const counts = {
  type: 'object',
  required: ['pass', 'fail', 'inconclusive', 'error', 'skip', 'waived'],
  additionalProperties: false,
  properties: Object.fromEntries(ruleOutcome.enum.map((o) => [o, { type: 'integer', minimum: 0 }])),
};

/**
 * The settings of how a run reached its target whose source report.json
 * records (`options.sources`), each by its name elsewhere in the report:
 * `target` (the base URL), `insecure`, `customCa` (a CA of its own), `proxy`,
 * `clientCertificate`. Names of the report's own fields, so that no key can
 * share a piece with them and have them redacted.
 */
export const SOURCED_SETTINGS = ['target', 'insecure', 'customCa', 'proxy', 'clientCertificate'] as const;

/** One of {@link SOURCED_SETTINGS}. */
export type SourcedSetting = (typeof SOURCED_SETTINGS)[number];

/** A report.json larger than this is refused unread (a real one, evidence bounded, is a few MiB). */
export const MAX_REPORT_BYTES = 64 * 1024 * 1024;

/** The JSON Schema of report.json, which validates every report the suite reads. */
export const reportSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://petstore-conformance.invalid/spec/report.schema.json',
  title: 'petstore-conformance report',
  type: 'object',
  required: [
    'tool',
    'interfaceVersion',
    'target',
    'seed',
    'numRuns',
    'startedAt',
    'finishedAt',
    'durationMs',
    'options',
    'summary',
    'rules',
    'observations',
    'skippedPhases',
    'load',
    'waivers',
  ],
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
        customCa: { type: 'boolean', description: 'A private CA was trusted' },
        fingerprints: {
          type: 'array',
          items: { enum: [...FINGERPRINT_IDS] },
          uniqueItems: true,
          minItems: 1,
          description:
            "The clients whose shapes the run's requests were sent under (core/fingerprints.ts), each request under one; absent: the tool's own shape",
        },
        userAgent: { type: 'string', description: "User-Agent of the tool's own shape, when one was given; absent: petstore-conformance" },
        jitterMs: {
          type: 'integer',
          minimum: 1,
          description: 'Longest pause before each functional request (pacing with jitter), ms; absent: none',
        },
        prelude: {
          const: 'drawn',
          description:
            "A run of two clients or more: the differential probe's prelude, when it ran, went in the order drawn from the seed, and so did the preflight's page size; absent: one client, or the fixed order and page of earlier versions",
        },
        disguise: {
          const: 'drawn',
          description:
            "A run that spoke as clients or named its animals naturally: each client's version and its application's habits (Accept, JSON layout and member order, query order), and natural names' coined part, were drawn from the seed; absent: none of these, or as earlier versions sent them (one version per client, every call written as the suite writes it)",
        },
        connection: {
          type: 'object',
          description: 'How the target was reached besides TLS verification; never a secret',
          required: ['clientCertificate', 'headers', 'secretHeaders'],
          additionalProperties: false,
          properties: {
            proxy: {
              type: 'string',
              description: 'The proxy given for the run, or the environment\'s ("from the environment: …"), without credentials',
            },
            clientCertificate: { type: 'boolean', description: 'A client certificate was presented' },
            headers: {
              type: 'array',
              items: { type: 'string' },
              description: 'Names of the extra headers sent, secret ones included; never their values',
            },
            secretHeaders: {
              type: 'array',
              items: { type: 'string' },
              description: 'Names of the extra headers whose values are secret, and were redacted',
            },
          },
        },
        sources: {
          type: 'object',
          description:
            'Where the target and the transport settings in force came from, as the CLI read them (reports of earlier versions have none)',
          required: ['flags', 'environment'],
          additionalProperties: false,
          properties: {
            flags: { type: 'array', items: { $ref: '#/$defs/sourcedSetting' }, description: 'Set by a flag' },
            environment: {
              type: 'array',
              items: { $ref: '#/$defs/sourcedSetting' },
              description: 'Set by a PETSTORE_* variable, or HTTP_PROXY/HTTPS_PROXY for the proxy',
            },
            configFile: {
              type: 'object',
              description: 'The config file read',
              required: ['path', 'named', 'settings'],
              additionalProperties: false,
              properties: {
                path: { type: 'string', description: 'Relative to the working folder' },
                named: {
                  type: 'boolean',
                  description:
                    'Named by the user; false: found in the working folder or above it, which may set a loopback target but no transport setting nor a header from the environment',
                },
                settings: { type: 'array', items: { $ref: '#/$defs/sourcedSetting' }, description: 'Set by the file' },
              },
            },
          },
        },
        concurrency: {
          type: 'object',
          description:
            'Requests in flight at most in the functional phases, and why; reports of earlier versions have none (their limit was 32, or the one given)',
          required: ['limit', 'source'],
          additionalProperties: false,
          properties: {
            limit: {
              type: 'integer',
              minimum: 1,
              description: 'The widest limit the run reached: the one given, the default, or more (widened)',
            },
            source: {
              enum: ['given', 'default', 'widened'],
              description:
                'given: by a flag, variable, config key or the caller, a hard limit; default: none given, and widening turned off, or the round trip too short or the target queueing; widened: widened for the round trip',
            },
            rttMs: {
              type: 'number',
              minimum: 0,
              description:
                'The round trip estimated (the shortest exchange seen, from the preflight on), ms; present when the limit was widened',
            },
          },
        },
        timeoutMs: { type: 'integer' },
        only: { type: 'array', items: { $ref: '#/$defs/ruleId' } },
        skip: { type: 'array', items: { $ref: '#/$defs/ruleId' } },
        load: { type: 'string' },
        names: {
          const: 'natural',
          description:
            'Generated names were natural animal names without a constant part (certification); absent: each began with namePrefix',
        },
      },
    },
    namePrefix: { type: 'string', description: 'What every generated name began with; absent when names were natural' },
    summary: {
      type: 'object',
      required: ['verdict', 'reason', 'strict', 'counts', 'requests', 'checks', 'thresholds'],
      additionalProperties: false,
      properties: {
        verdict: {
          enum: ['conformant', 'non-conformant', 'inconclusive', 'error', 'interrupted'],
          description: 'inconclusive: nothing failed, but a selected MUST rule no waiver names was decided on no case (exit 4)',
        },
        interrupted: { enum: ['SIGINT', 'SIGTERM', 'SIGHUP'], description: 'The signal that stopped the run (verdict interrupted)' },
        reason: { type: 'string' },
        strict: { type: 'boolean' },
        counts: { type: 'object', required: ['MUST', 'SHOULD'], additionalProperties: false, properties: { MUST: counts, SHOULD: counts } },
        requests: { type: 'integer', minimum: 0 },
        checks: { type: 'integer', minimum: 0 },
        thresholds: { enum: ['pass', 'fail', 'none'] },
        undecided: {
          description:
            'Rules decided on no case, and why (result/undecided.ts): see is the rule to look at, why the cause as data, cause its words',
          type: 'array',
          items: {
            type: 'object',
            required: ['rule', 'see', 'why', 'cause'],
            additionalProperties: false,
            properties: {
              rule: { $ref: '#/$defs/ruleId' },
              see: { $ref: '#/$defs/ruleId' },
              cause: { type: 'string' },
              why: {
                oneOf: [
                  {
                    type: 'object',
                    required: ['code', 'upstream', 'outcome', 'never'],
                    additionalProperties: false,
                    properties: {
                      code: { const: 'upstream' },
                      upstream: { $ref: '#/$defs/ruleId' },
                      outcome: { enum: ['fail', 'waived'] },
                      never: { type: 'boolean' },
                    },
                  },
                  {
                    type: 'object',
                    required: ['code', 'answers'],
                    additionalProperties: false,
                    properties: {
                      code: { const: 'answers' },
                      answers: {
                        type: 'array',
                        items: {
                          type: 'object',
                          required: ['label', 'count'],
                          additionalProperties: false,
                          properties: { label: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
                        },
                      },
                    },
                  },
                ],
              },
            },
          },
        },
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
    load: { type: 'array', items: { $ref: '#/$defs/load' } },
    waivers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rule', 'reason', 'issue', 'expires', 'status', 'note'],
        additionalProperties: false,
        properties: {
          rule: { $ref: '#/$defs/ruleId' },
          operation: operation,
          reason: { type: 'string' },
          issue: { type: 'string' },
          expires: { type: 'string', format: 'date' },
          status: { enum: ['applied', 'expired', 'stale', 'partial'] },
          note: { type: 'string' },
        },
      },
    },
    skippedPhases: {
      type: 'array',
      items: {
        type: 'object',
        required: ['phase', 'reason'],
        additionalProperties: false,
        properties: { phase: { type: 'string' }, why: { $ref: '#/$defs/why' }, reason: { type: 'string' } },
      },
    },
  },
  $defs: {
    ruleId: { enum: rules.map((r) => r.id) },
    sourcedSetting: {
      enum: [...SOURCED_SETTINGS],
      description:
        'A setting by its name in this report: target (the base URL), insecure, customCa (a CA of its own), proxy, clientCertificate',
    },
    ...reasonDefs,
    ...loadDefs,
    ...resultDefs,
  },
} as const;
