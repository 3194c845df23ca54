import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReference } from '../reference/server.js';
import type { ConformanceResult, Finding } from '../suites/model.js';
import { CONTRACT_API_KEY, mutants } from './fixtures/mutants.js';
import { runCli, tempDir } from './helpers.js';

const env = { PETSTORE_API_KEY: CONTRACT_API_KEY };
let reference: RunningServer;
beforeAll(async () => {
  reference = await startReference({ apiKey: CONTRACT_API_KEY });
});
afterAll(() => reference.close());

/** Runs the suite against a mutant (kept running), returns the report path and the first failure of `rule`. */
async function recordFailure(mutantName: string, rule: string): Promise<{ server: RunningServer; report: string; finding: Finding; stdout: string }> {
  const mutant = mutants.find((m) => m.name === mutantName)!;
  const server = await startReference({ apiKey: CONTRACT_API_KEY, ...(mutant.options ?? {}), wrap: mutant.wrap });
  const dir = tempDir();
  const ran = await runCli(['--base-url', server.url, '--seed', '6', '--num-runs', '10', '--report-dir', dir], { env });
  expect(ran.code).toBe(1);
  const report = join(dir, 'report.json');
  const result = JSON.parse(readFileSync(report, 'utf8')) as ConformanceResult;
  const finding = result.rules.find((r) => r.id === rule)!.checks.flatMap((c) => c.findings).find((f) => f.case && f.case.judge.kind !== 'none')!;
  expect(finding, `${mutantName}: a replayable failure of ${rule}`).toBeDefined();
  return { server, report, finding, stdout: ran.stdout };
}

describe('petstore-conformance replay', () => {
  it.each([
    ['default-limit-21', 'LIST-LIMIT-DEFAULT', 'list'],
    ['error-status-as-string', 'ERROR-SCHEMA', 'response'],
    ['key-prefix-compare', 'AUTH-INVALID-KEY', 'status'],
    ['categoryId-through-double', 'CREATE-ECHO', 'create'],
    ['not-found-as-400', 'GET-NOT-FOUND', 'status'],
  ])('%s: the %s failure fails again against the mutant and passes against the reference', async (mutant, rule, kind) => {
    const { server, report, finding, stdout } = await recordFailure(mutant, rule);
    try {
      expect(finding.case!.judge.kind).toBe(kind);
      expect(stdout).toContain(`replay: npx petstore-conformance replay ${report} ${finding.case!.id}`);
      const again = await runCli(['replay', report, finding.case!.id], { env });
      expect(again.stdout).toMatch(/verdict: {2}still fails/);
      expect(again.code).toBe(1);
      const fixed = await runCli(['replay', report, finding.case!.id, '--base-url', reference.url], { env });
      expect(fixed.stdout).toMatch(/verdict: {2}passes now/);
      expect(fixed.stdout).toContain(`(recorded against ${server.url}; what the run knew of that store is not applied here)`);
      expect(fixed.code).toBe(0);
      expect(again.stdout + fixed.stdout).not.toContain(CONTRACT_API_KEY);
    } finally {
      await server.close();
    }
  });

  it('refuses an unknown case id, and a request that needs the key without one', async () => {
    const { server, report, finding } = await recordFailure('default-limit-21', 'LIST-LIMIT-DEFAULT');
    try {
      const unknown = await runCli(['replay', report, 'c-00000000'], { env });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/no failure has case id c-00000000/);
      const keyless = await runCli(['replay', report, finding.case!.id], { env: { PETSTORE_API_KEY: '' } });
      expect(keyless.code).toBe(2);
      expect(keyless.stderr).toMatch(/this request carries the key: pass --api-key/);
    } finally {
      await server.close();
    }
  });
});
