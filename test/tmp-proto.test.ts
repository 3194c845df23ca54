import { it } from 'vitest';
import { startReference } from '../reference/server.js';
import { runConformance } from '../suites/engine.js';
import { CONTRACT_API_KEY, mutants } from './fixtures/mutants.js';
const NAMES = (process.env.MUTANTS ?? '').split(',');
it('runs', async () => {
  for (const m of mutants.filter((x) => NAMES.includes(x.name))) {
    const server = await startReference({ ...m.options, apiKey: CONTRACT_API_KEY, wrap: m.wrap });
    try {
      const result = await runConformance({ baseUrl: server.url, apiKey: CONTRACT_API_KEY, seed: 20_241_205, numRuns: 20, ...(m.maxBodyBytes ? { maxBodyBytes: m.maxBodyBytes } : {}) });
      const by = (o: string) => result.rules.filter((r) => r.outcome === o).map((r) => r.id).sort();
      console.log(m.name, 'verdict', result.summary.verdict, result.summary.reason, '\n fail', by('fail'), '\n error', by('error'), '\n inconclusive', by('inconclusive'));
      for (const r of result.rules.filter((r) => r.outcome === 'fail')) console.log('   ', r.id, r.checks.find((c) => c.outcome === 'fail')?.findings[0]?.message.slice(0, 200));
    } finally { await server.close(); }
  }
}, 600_000);
