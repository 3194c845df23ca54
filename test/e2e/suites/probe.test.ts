/**
 * The differential probe end to end (CLIENT-INDEPENDENT): the reference,
 * honest or behind a wrapper that answers some clients otherwise, run with
 * client fingerprints. The wrappers tell clients apart by their User-Agent,
 * which each fingerprint sends (core/http.ts).
 */
import { describe, expect, it } from 'vitest';
import { FINGERPRINT_IDS, type FingerprintId, fingerprintOfHeaders } from '../../../core/fingerprints.js';
import type { ApiResponse, Handler } from '../../../reference/handler.js';
import { startReference } from '../../../reference/server.js';
import { rules } from '../../../spec/rules.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult, Finding } from '../../../result/model.js';
import { preludeOrder } from '../../../suites/probe/prelude.js';

/** Requests of the prelude as runs send it now (drawn). */
const PRELUDE_LENGTH = preludeOrder(0, 'drawn').length;

const KEY = 'Probe-E2e~Key.51Qx';
const SEED = 20_261_127;

async function run(wrap: ((inner: Handler) => Handler) | undefined, fingerprints?: readonly FingerprintId[]): Promise<ConformanceResult> {
  const server = await startReference({ apiKey: KEY, ...(wrap ? { wrap } : {}) });
  try {
    return await runConformance({
      baseUrl: server.url,
      apiKey: KEY,
      seed: SEED,
      numRuns: 5,
      concurrency: 4,
      ...(fingerprints ? { fingerprints } : {}),
    });
  } finally {
    await server.close();
  }
}

const clientRule = (result: ConformanceResult) => result.rules.find((r) => r.id === 'CLIENT-INDEPENDENT')!;
const findings = (result: ConformanceResult): Finding[] => clientRule(result).checks.flatMap((c) => c.findings);
const args = (finding: Finding) => finding.args as { first: string; second: string; pairing: string };
const SERVER_ERROR: ApiResponse = {
  status: 500,
  headers: { 'content-type': 'application/json' },
  body: { code: 'internal', message: 'unavailable', status: 500 },
};

/** Answers `answer` instead of the reference to requests whose User-Agent is `fingerprint`'s. */
const cheatOn =
  (fingerprint: FingerprintId, answer: (inner: Handler, req: Parameters<Handler>[0]) => ReturnType<Handler>) =>
  (inner: Handler): Handler =>
  (req) =>
    fingerprintOfHeaders(req.headers) === fingerprint ? answer(inner, req) : inner(req);

describe('CLIENT-INDEPENDENT end to end', () => {
  it('the honest reference under every fingerprint passes it, with the run conformant', async () => {
    const result = await run(undefined, FINGERPRINT_IDS);
    expect(clientRule(result).outcome).toBe('pass');
    expect(clientRule(result).checks[0]!.passed).toBeGreaterThan(PRELUDE_LENGTH);
    expect(result.summary.verdict).toBe('conformant');
  });

  it('a server answering 500 to one client fails it, each finding naming both clients and holding both exchanges', async () => {
    const result = await run(
      cheatOn('curl', async () => SERVER_ERROR),
      ['curl', 'okhttp'],
    );
    expect(clientRule(result).outcome).toBe('fail');
    const found = findings(result);
    expect(found.length).toBeGreaterThan(0);
    for (const finding of found) {
      expect(finding.code).toBe('CLIENT_DIFFERS');
      expect([args(finding).first, args(finding).second]).toContain('curl');
      expect(args(finding).first).not.toBe(args(finding).second);
      expect(finding.evidence).toHaveLength(2);
      expect(finding.message).toContain(`as ${args(finding).first}, then as ${args(finding).second}`);
    }
    expect(result.summary.verdict).toBe('non-conformant');
  });

  it('a server giving one client an empty listing fails it (the store only grows)', async () => {
    const empty = cheatOn('python-requests', async (inner, req) => {
      const answer = await inner(req);
      return req.method === 'GET' && req.path === '/pets' && answer.status === 200 ? { ...answer, body: [] } : answer;
    });
    const result = await run(empty, ['python-requests', 'go-http-client']);
    expect(clientRule(result).outcome).toBe('fail');
    expect(
      findings(result).some(
        (f) => f.message.includes('the store only grows') && [args(f).first, args(f).second].includes('python-requests'),
      ),
    ).toBe(true);
  });

  it('a run that speaks as one client does not ask it: skipped, never undecided, the verdict line as before', async () => {
    const result = await run(undefined);
    const rule = clientRule(result);
    expect(rule.outcome).toBe('skip');
    expect(rule.checks[0]!.why).toEqual({ code: 'not-asked', needs: expect.any(String) });
    expect(result.summary.verdict).toBe('conformant');
    expect(result.summary.undecided ?? []).toEqual([]);
    // Counted out of the MUST rules, not "skipped": a plain run reads as it did before the rule existed.
    const must = rules.filter((r) => r.severity === 'MUST').length - 1;
    expect(result.summary.reason).toBe(`${must} of ${must} MUST rules passed`);
    expect(result.rules.filter((r) => r.id !== 'CLIENT-INDEPENDENT').every((r) => r.outcome !== 'skip')).toBe(true);
  });

  it('a server that answers wrongly until it has seen suite-like traffic is caught by the prelude', async () => {
    // Wrong for its first requests, whoever sends them: the prelude is all it sees then.
    let seen = 0;
    const learns =
      (inner: Handler): Handler =>
      async (req) =>
        ++seen <= 4 ? SERVER_ERROR : inner(req);
    const result = await run(learns, ['chrome', 'node-fetch', 'curl']);
    expect(clientRule(result).outcome).toBe('fail');
    const prelude = findings(result).filter((f) => f.evidence[0]!.seq <= PRELUDE_LENGTH);
    expect(prelude.length).toBeGreaterThan(0);
    expect(prelude.map((f) => f.message).join('\n')).toContain('status 500, then');
  });
});
