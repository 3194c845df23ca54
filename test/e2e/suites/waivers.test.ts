import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyWaivers } from '../../../suites/engine.js';
import type { ConformanceResult, Waiver } from '../../../result/model.js';
import { decideVerdict } from '../../../result/policy.js';
import { CONTRACT_API_KEY, mutants } from '../../fixtures/mutants/index.js';
import { resultFixture } from '../../fixtures/result.js';
import { reportErrors, runInProcess, tempDir, withServer } from '../../helpers.js';

const defaultLimit21 = mutants.find((m) => m.name === 'default-limit-21')!;
const future = '2999-12-31';
const issue = 'https://tracker.example/ANIMALS-42';

/** A run whose one failure is LIST-LIMIT-DEFAULT on listPets, as against default-limit-21. */
const failing = resultFixture({ 'LIST-LIMIT-DEFAULT': 'fail' });

/** The waivers applied to `failing` at `now`, and the verdict that follows. */
function waive(waivers: Waiver[], now = new Date('2026-06-01T12:00:00Z')) {
  const applied = applyWaivers(failing.rules, waivers, now);
  return {
    ...applied,
    outcome: applied.rules.find((r) => r.id === 'LIST-LIMIT-DEFAULT')!.outcome,
    ...decideVerdict({ rules: applied.rules, strict: false, loads: [] }),
  };
}

describe('waivers', () => {
  it('an active waiver turns the failure into "waived": shown, not failing the run', () => {
    const waived = waive([{ rule: 'LIST-LIMIT-DEFAULT', reason: 'default page size fix ships in 2.4', issue, expires: future }]);
    expect(waived.outcome).toBe('waived');
    expect(waived.verdict).toBe('conformant');
    expect(waived.reason).toMatch(/1 failing but waived: LIST-LIMIT-DEFAULT/);
    expect(waived.waivers).toEqual([
      expect.objectContaining({ rule: 'LIST-LIMIT-DEFAULT', status: 'applied', note: 'failure waived until 2999-12-31' }),
    ]);
  });

  it('an expired waiver lets the failure count again', () => {
    const expired = waive([{ rule: 'LIST-LIMIT-DEFAULT', reason: 'r', issue, expires: '2026-01-31' }], new Date('2026-02-01T08:00:00Z'));
    expect(expired.outcome).toBe('fail');
    expect(expired.verdict).toBe('non-conformant');
    expect(expired.waivers[0]).toMatchObject({ status: 'expired', note: expect.stringMatching(/expired on 2026-01-31/) });
  });

  it('holds through its expiry day', () => {
    const lastDay = waive([{ rule: 'LIST-LIMIT-DEFAULT', reason: 'r', issue, expires: '2026-01-31' }], new Date('2026-01-31T23:59:00Z'));
    expect(lastDay.waivers[0]!.status).toBe('applied');
    expect(lastDay.outcome).toBe('waived');
  });

  it('a waiver that matches nothing is stale; one for another operation does not cover the failure', () => {
    const stale = waive([
      { rule: 'GET-NOT-FOUND', reason: 'r', issue, expires: future },
      { rule: 'LIST-LIMIT-DEFAULT', operation: 'getPet', reason: 'r', issue, expires: future },
    ]);
    expect(stale.waivers.map((w) => w.status)).toEqual(['stale', 'stale']);
    expect(stale.outcome).toBe('fail');
    expect(stale.verdict).toBe('non-conformant');
  });

  it('through the CLI: exit 0 with the waiver shown in every report and counted in the summary; an invalid file is refused with one line', async () => {
    await withServer({ wrap: defaultLimit21.wrap, apiKey: CONTRACT_API_KEY }, async (url) => {
      const dir = tempDir();
      writeFileSync(
        join(dir, 'waivers.json'),
        JSON.stringify({ waivers: [{ rule: 'LIST-LIMIT-DEFAULT', reason: 'default page size fix ships in 2.4', issue, expires: future }] }),
      );
      const ran = await runInProcess(
        ['--base-url', url, '--num-runs', '5', '--waivers', join(dir, 'waivers.json'), '--report-dir', join(dir, 'r')],
        { env: { PETSTORE_API_KEY: CONTRACT_API_KEY } },
      );
      expect(ran.code).toBe(0);
      expect(ran.stdout).toMatch(/W waiver applied: LIST-LIMIT-DEFAULT, failure waived until 2999-12-31/);
      const report = JSON.parse(readFileSync(join(dir, 'r', 'report.json'), 'utf8')) as ConformanceResult;
      expect(reportErrors(report)).toEqual([]);
      expect(report.rules.find((r) => r.id === 'LIST-LIMIT-DEFAULT')!.outcome).toBe('waived');
      expect(report.summary).toMatchObject({
        verdict: 'conformant',
        reason: expect.stringMatching(/1 failing but waived: LIST-LIMIT-DEFAULT/),
      });
      expect(report.summary.counts.MUST.waived).toBe(1);
      expect(report.waivers).toEqual([expect.objectContaining({ rule: 'LIST-LIMIT-DEFAULT', status: 'applied' })]);
      expect(readFileSync(join(dir, 'r', 'junit.xml'), 'utf8')).toMatch(/WAIVED \(failing, covered by a waiver\)/);
      expect(readFileSync(join(dir, 'r', 'report.html'), 'utf8')).toMatch(/<section id="waivers">/);
      writeFileSync(join(dir, 'bad.json'), JSON.stringify([{ rule: 'LIST-LIMIT-DEFAULT', reason: 'r', issue, expires: 'soon' }]));
      const bad = await runInProcess(['--base-url', url, '--waivers', join(dir, 'bad.json')], {
        env: { PETSTORE_API_KEY: CONTRACT_API_KEY },
      });
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim()).toMatch(/bad\.json: \/0\/expires must match format "date" /);
    });
  });
});
