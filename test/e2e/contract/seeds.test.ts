import { describe, expect, it, vi } from 'vitest';
import { startReference } from '../../../reference/server.js';
import type { RuleId } from '../../../spec/rules.js';
import { runConformance } from '../../../suites/engine.js';
import { CONTRACT_API_KEY, type Mutant, mutants } from '../../fixtures/mutants/index.js';
import { pool } from '../../helpers.js';

// A test runs one mutant with each of several seeds: up to 16 s on a quiet two-core machine, ×6 for a shared runner.
vi.setConfig({ testTimeout: 100_000, hookTimeout: 100_000 });

/** The mutants whose catch once depended on generated data: caught whatever the seed. */
const SUBTLE = [
  'name-trimmed',
  'name-nfc',
  'name-controls-dropped',
  'filtered-limit-plus-one',
  'status-filter-after-slice',
  'list-categoryId-through-double',
  'categoryId-through-double',
];
const SEEDS = [1, 7919, 104729, -31337, 2_000_000_011];
/** Runs at once, as in the contract table: client and server share one event loop, so more only adds contention. */
const PARALLEL = 4;

/** The rules a run against `mutant` with `seed` fails. */
async function failedRules(mutant: Mutant, seed: number): Promise<RuleId[]> {
  const server = await startReference({ apiKey: CONTRACT_API_KEY, ...(mutant.options ?? {}), wrap: mutant.wrap });
  try {
    const result = await runConformance({ baseUrl: server.url, apiKey: CONTRACT_API_KEY, seed, numRuns: 20 });
    return result.rules
      .filter((r) => r.outcome === 'fail')
      .map((r) => r.id)
      .sort();
  } finally {
    await server.close();
  }
}

/** Every (mutant, seed) run, started once for the whole file and a few at a time: each row awaits its own. */
const runs = new Map<string, Promise<RuleId[]>[]>();
function runsOf(mutant: Mutant): Promise<RuleId[]>[] {
  if (runs.size === 0) {
    const subtle = SUBTLE.map((name) => mutants.find((m) => m.name === name)!).filter(Boolean);
    const started = pool(
      subtle.flatMap((m) => SEEDS.map((seed) => () => failedRules(m, seed))),
      PARALLEL,
    );
    for (const promise of started) promise.catch(() => {}); // reported by the row that awaits it
    subtle.forEach((m, i) => runs.set(m.name, started.slice(i * SEEDS.length, (i + 1) * SEEDS.length)));
  }
  return runs.get(mutant.name)!;
}

describe('the contract holds across seeds', () => {
  it.each(SUBTLE)('%s fails exactly its rules with every seed', async (name) => {
    const mutant = mutants.find((m) => m.name === name);
    expect(mutant, name).toBeDefined();
    const failed = await Promise.all(runsOf(mutant!));
    for (const [i, seed] of SEEDS.entries()) expect(failed[i], `seed ${seed}`).toEqual([...mutant!.breaks].sort());
  });
});
