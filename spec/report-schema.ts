/**
 * JSON Schema (2020-12) of report.json. `npm run gen` writes it to
 * spec/report.schema.json; the tests validate real reports against it.
 */
import { FINGERPRINT_IDS } from '../core/fingerprints.js';
import { FINDING_CODES } from './findings.js';
import { gaps } from './gaps.js';
import { RULE_GROUPS, rules } from './rules.js';

const outcome = { enum: ['pass', 'fail', 'inconclusive', 'error', 'skip'] };
const ruleOutcome = { enum: [...outcome.enum, 'waived'] };
const operation = { enum: ['listPets', 'createPet', 'getPet', 'listStoreOrders'] };
const headers = { type: 'object', additionalProperties: { type: 'string' } };
const counts = {
  type: 'object',
  required: ['pass', 'fail', 'inconclusive', 'error', 'skip', 'waived'],
  additionalProperties: false,
  properties: Object.fromEntries(ruleOutcome.enum.map((o) => [o, { type: 'integer', minimum: 0 }])),
};

/** One member of a reason union: its `code`, and every other field required. */
function reason(code: string, fields: Record<string, object>) {
  return { type: 'object', required: ['code', ...Object.keys(fields)], additionalProperties: false, properties: { code: { const: code }, ...fields } };
}

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

export const reportSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://petstore-conformance.invalid/spec/report.schema.json',
  title: 'petstore-conformance report',
  type: 'object',
  required: ['tool', 'interfaceVersion', 'target', 'seed', 'numRuns', 'startedAt', 'finishedAt', 'durationMs', 'options', 'summary', 'rules', 'observations', 'skippedPhases', 'load', 'waivers'],
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
          description: "The clients whose shapes the run's requests were sent under (core/fingerprints.ts), each request under one; absent: the tool's own shape",
        },
        userAgent: { type: 'string', description: "User-Agent of the tool's own shape, when one was given; absent: petstore-conformance" },
        jitterMs: { type: 'integer', minimum: 1, description: 'Longest pause before each functional request (pacing with jitter), ms; absent: none' },
        connection: {
          type: 'object',
          description: 'How the target was reached besides TLS verification; never a secret',
          required: ['clientCertificate', 'headers', 'secretHeaders'],
          additionalProperties: false,
          properties: {
            proxy: { type: 'string', description: 'The proxy given for the run, or the environment\'s ("from the environment: …"), without credentials' },
            clientCertificate: { type: 'boolean', description: 'A client certificate was presented' },
            headers: { type: 'array', items: { type: 'string' }, description: 'Names of the extra headers sent, secret ones included; never their values' },
            secretHeaders: { type: 'array', items: { type: 'string' }, description: 'Names of the extra headers whose values are secret, and were redacted' },
          },
        },
        sources: {
          type: 'object',
          description: 'Where the target and the transport settings in force came from, as the CLI read them (reports of earlier versions have none)',
          required: ['flags', 'environment'],
          additionalProperties: false,
          properties: {
            flags: { type: 'array', items: { $ref: '#/$defs/sourcedSetting' }, description: 'Set by a flag' },
            environment: { type: 'array', items: { $ref: '#/$defs/sourcedSetting' }, description: 'Set by a PETSTORE_* variable, or HTTP_PROXY/HTTPS_PROXY for the proxy' },
            configFile: {
              type: 'object',
              description: 'The config file read',
              required: ['path', 'named', 'settings'],
              additionalProperties: false,
              properties: {
                path: { type: 'string', description: 'Relative to the working folder' },
                named: { type: 'boolean', description: 'Named by the user; false: found in the working folder or above it, which may set a loopback target but no transport setting nor a header from the environment' },
                settings: { type: 'array', items: { $ref: '#/$defs/sourcedSetting' }, description: 'Set by the file' },
              },
            },
          },
        },
        timeoutMs: { type: 'integer' },
        only: { type: 'array', items: { $ref: '#/$defs/ruleId' } },
        skip: { type: 'array', items: { $ref: '#/$defs/ruleId' } },
        load: { type: 'string' },
        names: { const: 'natural', description: 'Generated names were natural animal names without a constant part (certification); absent: each began with namePrefix' },
      },
    },
    namePrefix: { type: 'string', description: 'What every generated name began with; absent when names were natural' },
    summary: {
      type: 'object',
      required: ['verdict', 'reason', 'strict', 'counts', 'requests', 'checks', 'thresholds'],
      additionalProperties: false,
      properties: {
        verdict: { enum: ['conformant', 'non-conformant', 'inconclusive', 'error', 'interrupted'], description: 'inconclusive: nothing failed, but a selected MUST rule no waiver names was decided on no case (exit 4)' },
        interrupted: { enum: ['SIGINT', 'SIGTERM'], description: 'The signal that stopped the run (verdict interrupted)' },
        reason: { type: 'string' },
        strict: { type: 'boolean' },
        counts: { type: 'object', required: ['MUST', 'SHOULD'], additionalProperties: false, properties: { MUST: counts, SHOULD: counts } },
        requests: { type: 'integer', minimum: 0 },
        checks: { type: 'integer', minimum: 0 },
        thresholds: { enum: ['pass', 'fail', 'none'] },
        undecided: {
          description: 'Rules decided on no case, and why (result/undecided.ts): see is the rule to look at, why the cause as data, cause its words',
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
                  { type: 'object', required: ['code', 'upstream', 'outcome', 'never'], additionalProperties: false, properties: { code: { const: 'upstream' }, upstream: { $ref: '#/$defs/ruleId' }, outcome: { enum: ['fail', 'waived'] }, never: { type: 'boolean' } } },
                  { type: 'object', required: ['code', 'answers'], additionalProperties: false, properties: { code: { const: 'answers' }, answers: { type: 'array', items: { type: 'object', required: ['label', 'count'], additionalProperties: false, properties: { label: { type: 'string' }, count: { type: 'integer', minimum: 1 } } } } } },
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
      items: { type: 'object', required: ['phase', 'reason'], additionalProperties: false, properties: { phase: { type: 'string' }, why: { $ref: '#/$defs/why' }, reason: { type: 'string' } } },
    },
  },
  $defs: {
    ruleId: { enum: rules.map((r) => r.id) },
    sourcedSetting: { enum: [...SOURCED_SETTINGS], description: 'A setting by its name in this report: target (the base URL), insecure, customCa (a CA of its own), proxy, clientCertificate' },
    stop: {
      description: 'Why the run stopped sending (result/reasons.ts StopReason)',
      oneOf: [
        reason('target-silent', { detail: { type: 'string' } }),
        reason('proxy-failed', { detail: { type: 'string' } }),
        reason('suite-stalled', { ms: { type: 'integer' }, times: { type: 'integer' } }),
        reason('time-bound', { seconds: { type: 'number' } }),
        reason('max-failures', { failing: { type: 'integer' }, limit: { type: 'integer' } }),
        reason('interrupted', { signal: { enum: ['SIGINT', 'SIGTERM'] } }),
        reason('preflight', { error: { type: 'object', required: ['code', 'message'], additionalProperties: false, properties: { code: { type: 'string' }, message: { type: 'string' } } } }),
      ],
    },
    why: {
      description: 'Why a check or phase has no verdict of its own (result/reasons.ts SkipReason)',
      oneOf: [
        reason('not-selected', {}),
        reason('not-asked', { needs: { type: 'string' } }),
        reason('not-run', { stop: { $ref: '#/$defs/stop' } }),
        reason('cut-short', { stop: { $ref: '#/$defs/stop' } }),
        reason('nothing-judged', {
          rule: { $ref: '#/$defs/ruleId' },
          scope: { enum: ['check', 'run'] },
          answers: { type: 'array', items: { type: 'object', required: ['label', 'count'], additionalProperties: false, properties: { label: { type: 'string' }, count: { type: 'integer', minimum: 1 } } } },
        }),
        reason('crashed', { detail: { type: 'string' } }),
        reason('load-none', {}),
        reason('load-refused', { failed: { type: 'array', items: { $ref: '#/$defs/ruleId' } } }),
        reason('load-not-started', { stop: { $ref: '#/$defs/stop' } }),
        reason('load-not-run', { stop: { $ref: '#/$defs/stop' } }),
      ],
    },
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
          properties: Object.fromEntries(['p50', 'p90', 'p95', 'p97_5', 'p99', 'p99_9', 'max', 'mean'].map((k) => [k, { type: 'number', minimum: 0 }])),
        },
        errors: {
          type: 'object',
          required: ['non2xx', 'timeouts', 'socketErrors'],
          additionalProperties: false,
          properties: { non2xx: { type: 'integer', minimum: 0 }, timeouts: { type: 'integer', minimum: 0 }, socketErrors: { type: 'integer', minimum: 0 } },
        },
        errorRate: { type: 'number', minimum: 0, maximum: 1 },
        distribution: { type: 'array', items: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false, minItems: 2 } },
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
      required: ['profile', 'kind', 'description', 'generator', 'startedAt', 'durationMs', 'settings', 'overall', 'operations', 'timeline', 'thresholds', 'generatorLoad', 'conformance'],
      additionalProperties: false,
      properties: {
        profile: { type: 'string' },
        kind: { enum: ['closed', 'rate', 'ramp'] },
        description: { type: 'string' },
        generator: { enum: ['undici', 'autocannon', 'paced-undici'] },
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
            properties: { second: { type: 'integer' }, requests: { type: 'integer' }, errors: { type: 'integer' }, p50: { type: 'number' }, p99: { type: 'number' } },
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
          properties: { answered: { type: 'integer', minimum: 0 }, due: { type: 'integer', minimum: 0 } },
        },
        thresholds: { type: 'array', items: { $ref: '#/$defs/threshold' } },
        generatorLoad: {
          type: 'object',
          required: ['cpuShare', 'eventLoopDelayP99Ms', 'bound'],
          additionalProperties: false,
          properties: { cpuShare: { type: 'number', minimum: 0 }, eventLoopDelayP99Ms: { type: 'number', minimum: 0 }, bound: { type: 'boolean' } },
        },
        conformance: {
          type: 'object',
          required: ['sampled', 'undecodable', 'failedRules'],
          additionalProperties: false,
          properties: { sampled: { type: 'integer', minimum: 0 }, undecodable: { type: 'integer', minimum: 0 }, failedRules: { type: 'array', items: { $ref: '#/$defs/ruleId' } } },
        },
        brokeAt: {
          type: 'object',
          required: ['stage', 'connections', 'thresholds'],
          additionalProperties: false,
          properties: { stage: { type: 'integer' }, connections: { type: 'integer' }, thresholds: { type: 'array', items: { type: 'string' } } },
        },
        drift: { type: 'object', required: ['p99Ratio', 'errorRateDelta'], additionalProperties: false, properties: { p99Ratio: { type: 'number' }, errorRateDelta: { type: 'number' } } },
        stoppedEarly: { type: 'string' },
      },
    },
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
          items: { type: 'object', required: ['code', 'text'], additionalProperties: false, properties: { code: { enum: ['ids-as-doubles', 'int32-clamp', 'int32-wrap', 'names-trimmed'] }, text: { type: 'string' } } },
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
        durationMs: { type: 'number', minimum: 0, description: "Time the check took (an active check's run, a response check's judging), shared by the rules it judges" },
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
        code: { enum: FINDING_CODES, description: 'What the finding says, as a code of spec/findings.ts (absent from reports of earlier versions)' },
        args: {
          type: 'object',
          description: "The code's arguments: numbers, and text redacted as the message is",
          additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'array', items: { type: 'string' } }] },
        },
        underLoad: { type: 'string', description: 'The load profile under which the answer was judged' },
        repeat: { enum: ['intermittent', 'not-reproduced'], description: 'A property failure that did not fail again when its input was replayed' },
        message: { type: 'string', description: 'The message in words, as every output shows it' },
        evidence: { type: 'array', items: { $ref: '#/$defs/evidence' } },
        counterexample: {
          type: 'object',
          required: ['input', 'seed', 'path', 'numRuns', 'numShrinks'],
          additionalProperties: false,
          properties: { input: { type: 'string' }, seed: { type: 'integer' }, path: { type: 'string' }, numRuns: { type: 'integer' }, numShrinks: { type: 'integer' } },
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
              properties: { method: { type: 'string' }, path: { type: 'string' }, headers, body: { type: 'string', contentEncoding: 'base64' } },
            },
            auth: { type: 'string' },
            judge: { type: 'object', required: ['kind'], properties: { kind: { enum: ['response', 'status', 'not-status', 'list', 'create', 'fetch', 'none'] } } },
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
