/**
 * ERROR-STATUS-MATCHES says why it could not judge an Error whose `status` is
 * not a number (ERROR-SCHEMA fails that body), instead of counting its answers
 * as ones it does not judge.
 */
import { expect, it } from 'vitest';
import { startReference } from '../../../reference/server.js';
import { runConformance } from '../../../suites/engine.js';
import { CONTRACT_API_KEY, mutants } from '../../fixtures/mutants/index.js';

it('an Error status written as a string: ERROR-SCHEMA fails, ERROR-STATUS-MATCHES is inconclusive and says why', async () => {
  const mutant = mutants.find((m) => m.name === 'error-status-as-string')!;
  const server = await startReference({ apiKey: CONTRACT_API_KEY, wrap: mutant.wrap });
  try {
    const result = await runConformance({ baseUrl: server.url, apiKey: CONTRACT_API_KEY, seed: 7, numRuns: 5 });
    expect(result.rules.find((r) => r.id === 'ERROR-SCHEMA')!.outcome).toBe('fail');
    const matches = result.rules.find((r) => r.id === 'ERROR-STATUS-MATCHES')!;
    expect(matches.outcome).toBe('inconclusive');
    const finding = matches.checks.flatMap((c) => c.findings).find((f) => f.code === 'ERROR_STATUS_NOT_A_NUMBER');
    expect(finding?.message).toMatch(/^the Error body of a 4\d\d answer has status "4\d\d", which is not a number/);
  } finally {
    await server.close();
  }
}, 60_000);
