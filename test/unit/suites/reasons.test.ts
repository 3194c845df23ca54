import { describe, expect, it } from 'vitest';
import { rerunCommand } from '../../../reports/commands.js';
import { type SkipReason, type StopReason, skipText, stopText } from '../../../result/reasons.js';
import { reportSchema } from '../../../spec/report-schema.js';
import { newAjv } from '../../../spec/validate.js';

const stops: StopReason[] = [
  { code: 'target-silent', detail: 'PC_ERR_TIMEOUT: no answer within 10000 ms' },
  { code: 'time-bound', seconds: 1800 },
  { code: 'max-failures', failing: 1, limit: 1 },
  { code: 'interrupted', signal: 'SIGTERM' },
  { code: 'preflight', error: { code: 'PC_ERR_KEY_REJECTED', message: 'the target answered 401 to GET /pets with the key' } },
  { code: 'suite-stalled', ms: 1450, times: 3 },
  { code: 'proxy-failed', detail: 'the proxy http://p:3128 refused the connection (ECONNREFUSED): no tunnel to h:80, 3 requests in a row' },
];

const skips: SkipReason[] = [
  { code: 'not-selected' },
  { code: 'not-run', stop: stops[0]! },
  { code: 'cut-short', stop: stops[2]! },
  {
    code: 'nothing-judged',
    rule: 'LIST-PAGE-FULL',
    scope: 'check',
    answers: [
      { label: '503', count: 3 },
      { label: 'no response (PC_ERR_TIMEOUT)', count: 1 },
    ],
  },
  { code: 'nothing-judged', rule: 'ERROR-SCHEMA', scope: 'run', answers: [] },
  { code: 'crashed', detail: 'boom' },
  { code: 'load-none' },
  { code: 'load-refused', failed: ['AUTH-REQUIRED'] },
  { code: 'load-not-started', stop: stops[3]! },
  { code: 'load-not-run', stop: stops[1]! },
  { code: 'cut-short', stop: stops[5]! },
  { code: 'not-run', stop: stops[6]! },
];

describe('reasons as data', () => {
  it('word every stop and skip reason', () => {
    expect(stops.map(stopText)).toEqual([
      'the target stopped answering (PC_ERR_TIMEOUT: no answer within 10000 ms)',
      'the run reached its time bound (1800 s)',
      "stopped after 1 failing rule (the run's limit: 1)",
      'interrupted by SIGTERM',
      'the target answered 401 to GET /pets with the key',
      "the suite's own event loop stalled (for 1450 ms the last time) when a request's deadline came due, 3 times in a row, so whether the target answered in time is unknown; the target is not blamed (the machine was too busy for the run, or an answer too costly to handle)",
      'requests stopped reaching the target through the proxy (the proxy http://p:3128 refused the connection (ECONNREFUSED): no tunnel to h:80, 3 requests in a row); the target is not blamed',
    ]);
    expect(skips.map(skipText)).toEqual([
      'not among the rules selected to run',
      'not run: the target stopped answering (PC_ERR_TIMEOUT: no answer within 10000 ms)',
      "cut short: stopped after 1 failing rule (the run's limit: 1)",
      'this check sent 4 requests, answered 503 ×3, no response (PC_ERR_TIMEOUT) ×1: none of the answers was one it could judge LIST-PAGE-FULL on',
      'no response came back in the whole run, so there was nothing for this check to judge for ERROR-SCHEMA',
      'check crashed: boom',
      'load profile "none"',
      'load not started: the target does not authenticate as the document requires (AUTH-REQUIRED failed)',
      'load not started: interrupted by SIGTERM',
      'load not run: the run reached its time bound (1800 s)',
      "cut short: the suite's own event loop stalled (for 1450 ms the last time) when a request's deadline came due, 3 times in a row, so whether the target answered in time is unknown; the target is not blamed (the machine was too busy for the run, or an answer too costly to handle)",
      'not run: requests stopped reaching the target through the proxy (the proxy http://p:3128 refused the connection (ECONNREFUSED): no tunnel to h:80, 3 requests in a row); the target is not blamed',
    ]);
  });

  it('each one is valid against the report schema, and a reason with a field missing or unknown is not', () => {
    const ajv = newAjv();
    ajv.addSchema(reportSchema);
    const valid = ajv.compile({ $ref: `${reportSchema.$id}#/$defs/why` });
    for (const why of skips) expect(valid(why), JSON.stringify(why)).toBe(true);
    expect(valid({ code: 'cut-short' })).toBe(false);
    expect(valid({ code: 'not-selected', extra: 1 })).toBe(false);
    expect(valid({ code: 'gone' })).toBe(false);
  });

  it('a re-run is worded from the run and the finding: seed, runs, load, strictness and TLS choice kept, the key from the environment (never on the command line)', () => {
    const run = {
      target: 'https://staging.example/v1',
      seed: 7,
      numRuns: 40,
      options: { strict: true, timeoutMs: 1, only: [], skip: [], load: 'none', insecure: true, customCa: false },
    };
    expect(rerunCommand(run, { only: ['CREATE-ECHO', 'PET-SCHEMA'] })).toBe(
      'npx petstore-conformance --base-url https://staging.example/v1 --seed 7 --num-runs 40 --load none --strict --insecure --only CREATE-ECHO,PET-SCHEMA',
    );
    expect(
      rerunCommand(
        { ...run, target: "http://h/v1?x='y'", options: { ...run.options, strict: false, insecure: false } },
        { only: ['AUTH-REQUIRED'] },
      ),
    ).toBe(`npx petstore-conformance --base-url 'http://h/v1?x='\\''y'\\''' --seed 7 --num-runs 40 --load none --only AUTH-REQUIRED`);
  });
});
