import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../suites/engine.js';
import type { ConformanceResult, Waiver } from '../suites/model.js';
import { CONTRACT_API_KEY, mutants } from './fixtures/mutants.js';
import { reportErrors, runCli, tempDir, withServer } from './helpers.js';

const defaultLimit21 = mutants.find((m) => m.name === 'default-limit-21')!;
const future = '2999-12-31';
const issue = 'https://tracker.example/ANIMALS-42';

async function run(waivers: Waiver[], now?: Date): Promise<ConformanceResult> {
  const server = await import('../reference/server.js').then(({ startReference }) => startReference({ apiKey: CONTRACT_API_KEY, wrap: defaultLimit21.wrap }));
  try {
    return await runConformance({ baseUrl: server.url, apiKey: CONTRACT_API_KEY, seed: 4, numRuns: 5, waivers, ...(now ? { now } : {}) });
  } finally {
    await server.close();
  }
}

describe('waivers', () => {
  it('an active waiver turns the failure into "waived": shown, not failing the run', async () => {
    const result = await run([{ rule: 'LIST-LIMIT-DEFAULT', reason: 'default page size fix ships in 2.4', issue, expires: future }]);
    expect(result.rules.find((r) => r.id === 'LIST-LIMIT-DEFAULT')!.outcome).toBe('waived');
    expect(result.summary.verdict).toBe('conformant');
    expect(result.summary.reason).toMatch(/1 failing but waived: LIST-LIMIT-DEFAULT/);
    expect(result.summary.counts.MUST.waived).toBe(1);
    expect(result.waivers).toEqual([expect.objectContaining({ rule: 'LIST-LIMIT-DEFAULT', status: 'applied' })]);
    expect(reportErrors(JSON.parse(JSON.stringify(result)))).toEqual([]);
  });

  it('an expired waiver lets the failure count again', async () => {
    const result = await run([{ rule: 'LIST-LIMIT-DEFAULT', reason: 'r', issue, expires: '2026-01-31' }], new Date('2026-02-01T08:00:00Z'));
    expect(result.rules.find((r) => r.id === 'LIST-LIMIT-DEFAULT')!.outcome).toBe('fail');
    expect(result.summary.verdict).toBe('non-conformant');
    expect(result.waivers[0]).toMatchObject({ status: 'expired', note: expect.stringMatching(/expired on 2026-01-31/) });
  });

  it('holds through its expiry day', async () => {
    const result = await run([{ rule: 'LIST-LIMIT-DEFAULT', reason: 'r', issue, expires: '2026-01-31' }], new Date('2026-01-31T23:59:00Z'));
    expect(result.waivers[0]!.status).toBe('applied');
  });

  it('a waiver that matches nothing is stale; one for another operation does not cover the failure', async () => {
    const result = await run([
      { rule: 'GET-NOT-FOUND', reason: 'r', issue, expires: future },
      { rule: 'LIST-LIMIT-DEFAULT', operation: 'getPet', reason: 'r', issue, expires: future },
    ]);
    expect(result.waivers.map((w) => w.status)).toEqual(['stale', 'stale']);
    expect(result.summary.verdict).toBe('non-conformant');
  });

  it('through the CLI: exit 0 with the waiver shown in every report; an invalid file is refused with one line', async () => {
    await withServer({ wrap: defaultLimit21.wrap, apiKey: CONTRACT_API_KEY }, async (url) => {
      const dir = tempDir();
      writeFileSync(join(dir, 'waivers.json'), JSON.stringify({ waivers: [{ rule: 'LIST-LIMIT-DEFAULT', reason: 'default page size fix ships in 2.4', issue, expires: future }] }));
      const ran = await runCli(['--base-url', url, '--num-runs', '5', '--waivers', join(dir, 'waivers.json'), '--report-dir', join(dir, 'r')], { env: { PETSTORE_API_KEY: CONTRACT_API_KEY } });
      expect(ran.code).toBe(0);
      expect(ran.stdout).toMatch(/W waiver applied: LIST-LIMIT-DEFAULT, failure waived until 2999-12-31/);
      expect(readFileSync(join(dir, 'r', 'junit.xml'), 'utf8')).toMatch(/WAIVED \(failing, covered by a waiver\)/);
      expect(readFileSync(join(dir, 'r', 'report.html'), 'utf8')).toMatch(/<section id="waivers">/);
      writeFileSync(join(dir, 'bad.json'), JSON.stringify([{ rule: 'LIST-LIMIT-DEFAULT', reason: 'r', issue, expires: 'soon' }]));
      const bad = await runCli(['--base-url', url, '--waivers', join(dir, 'bad.json')], { env: { PETSTORE_API_KEY: CONTRACT_API_KEY } });
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim()).toMatch(/bad\.json: \/0\/expires must match format "date" /);
    });
  });
});
