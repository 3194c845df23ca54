/**
 * report.json's reasons, as JSON Schema `$defs`: why a run stopped sending
 * (`stop`, result/reasons.ts StopReason) and why a check or phase has no
 * verdict of its own (`why`, SkipReason). Part of spec/report-schema.ts.
 */

/** One member of a reason union: its `code`, and every other field required. */
function reason(code: string, fields: Record<string, object>) {
  return {
    type: 'object',
    required: ['code', ...Object.keys(fields)],
    additionalProperties: false,
    properties: { code: { const: code }, ...fields },
  };
}

/** The `$defs` of the stop and skip reasons, in the schema's order. */
export const reasonDefs = {
  stop: {
    description: 'Why the run stopped sending (result/reasons.ts StopReason)',
    oneOf: [
      reason('target-silent', { detail: { type: 'string' } }),
      reason('proxy-failed', { detail: { type: 'string' } }),
      reason('suite-stalled', { ms: { type: 'integer' }, times: { type: 'integer' } }),
      reason('time-bound', { seconds: { type: 'number' } }),
      reason('max-failures', { failing: { type: 'integer' }, limit: { type: 'integer' } }),
      reason('interrupted', { signal: { enum: ['SIGINT', 'SIGTERM', 'SIGHUP'] } }),
      reason('preflight', {
        error: {
          type: 'object',
          required: ['code', 'message'],
          additionalProperties: false,
          properties: { code: { type: 'string' }, message: { type: 'string' } },
        },
      }),
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
        answers: {
          type: 'array',
          items: {
            type: 'object',
            required: ['label', 'count'],
            additionalProperties: false,
            properties: { label: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
          },
        },
      }),
      reason('crashed', { detail: { type: 'string' } }),
      reason('load-none', {}),
      reason('load-refused', { failed: { type: 'array', items: { $ref: '#/$defs/ruleId' } } }),
      reason('load-not-started', { stop: { $ref: '#/$defs/stop' } }),
      reason('load-not-run', { stop: { $ref: '#/$defs/stop' } }),
    ],
  },
} as const;
