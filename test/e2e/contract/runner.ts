/**
 * The contract table's runner: each broken variant of the reference
 * (test/fixtures/mutants/) must fail exactly the rules it breaks; each correct
 * variant, none. A rule group's test file calls `contractTable` with its group,
 * so each group runs alone (`npx vitest run test/e2e/contract/auth.test.ts`);
 * every variant runs on loopback, a few at a time, with one seed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startReference } from '../../../reference/server.js';
import type { RuleId } from '../../../spec/rules.js';
import { runConformance } from '../../../suites/engine.js';
import { exitCode } from '../../../result/policy.js';
import type { ConformanceResult } from '../../../result/model.js';
import { CONTRACT_API_KEY, type Mutant } from '../../fixtures/mutants/index.js';
import { pool } from '../../helpers.js';
import { expectNotStarved, within } from '../../starvation.js';

const SEED = 20_241_205;
const NUM_RUNS = 20;
/** Variants run at once: client and server share one event loop, so more only adds contention. */
const PARALLEL = 4;
/**
 * How long one row may wait for its variant's verdict. Rows are checked in the
 * order their variants start, so a row waits for its own run at most, never
 * for its group's: a judged run of NUM_RUNS cases on loopback takes 1 to 4 s
 * on a quiet two-core machine, 12 s for the slowest variant (a quota whose
 * Retry-After is 6 s, waited for twice); PARALLEL runs share the cores, and a
 * runner beside two busy processes gets a third of them: 12 s × PARALLEL × 3,
 * rounded up.
 */
const ROW_BOUND_MS = 150_000;
/** The test's own timeout: past the bound, so that the bound's message (starved or not) is the one shown. */
const ROW_TIMEOUT_MS = ROW_BOUND_MS + 5_000;

interface Verdict {
  failed: RuleId[];
  /** Rules that errored, and a line when the run stopped early without one. */
  errored: string[];
  /** runConformance threw. */
  crash?: string;
  /** One line per failing rule: its first finding, for the assertion message. */
  evidence: string[];
  /** Gaps observed. */
  observed: string[];
  /** The verdict, its exit code, the undecided rules (with the rule each points at) and the diagnoses' codes by rule (issue 25). */
  decided?: { verdict: string; exitCode: number; undecided: { rule: string; see: string }[]; diagnoses: Record<string, string[]> };
}

async function judge(mutant: Mutant): Promise<Verdict> {
  const server = await startReference({ ...mutant.options, apiKey: CONTRACT_API_KEY, wrap: mutant.wrap });
  try {
    const result = await runConformance({
      baseUrl: server.url,
      apiKey: CONTRACT_API_KEY,
      seed: SEED,
      numRuns: NUM_RUNS,
      ...(mutant.maxBodyBytes ? { maxBodyBytes: mutant.maxBodyBytes } : {}),
      ...(mutant.fingerprints ? { fingerprints: mutant.fingerprints } : {}),
      ...(mutant.waivers ? { waivers: [...mutant.waivers] } : {}),
    });
    return outcomes(result);
  } catch (error) {
    return { failed: [], errored: [], evidence: [], observed: [], crash: String((error as Error)?.stack ?? error) };
  } finally {
    await server.close();
  }
}

function outcomes(result: ConformanceResult): Verdict {
  const withOutcome = (outcome: string) =>
    result.rules
      .filter((r) => r.outcome === outcome)
      .map((r) => r.id)
      .sort();
  const evidence = result.rules
    .filter((r) => r.outcome === 'fail' || r.outcome === 'error')
    .map((r) => {
      const check = r.checks.find((c) => c.outcome === r.outcome);
      return `${r.id} (${check?.id}): ${check?.findings[0]?.message ?? check?.reason ?? ''}`.slice(0, 400);
    });
  // A run that stopped (target taken for gone, time bound) judged less than it should: no row may pass that way.
  const stopped = result.summary.verdict === 'error' && withOutcome('error').length === 0 ? [`run stopped: ${result.summary.reason}`] : [];
  const decided = {
    verdict: result.summary.verdict,
    exitCode: exitCode(result.summary),
    undecided: (result.summary.undecided ?? []).map((u) => ({ rule: u.rule, see: u.see })),
    diagnoses: Object.fromEntries(result.rules.filter((r) => r.diagnoses).map((r) => [r.id, r.diagnoses!.map((d) => d.code)])),
  };
  return {
    failed: withOutcome('fail'),
    errored: [...withOutcome('error'), ...stopped],
    evidence,
    observed: [...new Set(result.observations.map((o) => o.gap))],
    decided,
  };
}

/**
 * The contract table of one rule group: a row per variant (correct variants
 * first, then broken ones, each run started in that order), the plain
 * reference when the group holds it, and the group's catch rate.
 */
export function contractTable(group: string, zoo: readonly Mutant[]): void {
  const correct = zoo.filter((m) => m.breaks.length === 0);
  const broken = zoo.filter((m) => m.breaks.length > 0);
  const verdicts = new Map<string, Promise<Verdict>>();
  const verdictOf = (mutant: Mutant): Promise<Verdict> => verdicts.get(mutant.name)!;

  beforeAll(() => {
    const order = [...correct, ...broken];
    const started = pool(
      order.map((m) => () => judge(m)),
      PARALLEL,
    );
    order.forEach((m, i) => verdicts.set(m.name, started[i]!));
  });

  const expectExactly = async (mutant: Mutant) => {
    const verdict = await within(ROW_BOUND_MS, `the run against ${mutant.name}`, verdictOf(mutant));
    expect(verdict.crash, `runConformance threw for ${mutant.name}`).toBeUndefined();
    expectNotStarved([...verdict.errored, ...verdict.evidence].join('\n'), `the run against ${mutant.name}`);
    const failed = verdict.failed.filter((rule) => !mutant.mayAlsoBreak?.includes(rule));
    expect({ failed, errored: verdict.errored }, `${mutant.name}: ${mutant.description}\n${verdict.evidence.join('\n')}`).toEqual({
      failed: [...mutant.breaks].sort(),
      errored: [],
    });
    for (const gap of mutant.observes ?? []) expect(verdict.observed, `${mutant.name} should record ${gap}`).toContain(gap);
    const want = mutant.verdict;
    if (want) {
      const { decided } = verdict;
      expect({ verdict: decided?.verdict, exitCode: decided?.exitCode }, mutant.name).toEqual({
        verdict: want.verdict,
        exitCode: want.exitCode,
      });
      if (want.undecided) expect(decided?.undecided, mutant.name).toEqual(want.undecided.map((rule) => ({ rule, see: want.see ?? rule })));
      for (const [rule, codes] of Object.entries(want.diagnoses ?? {}))
        expect(decided?.diagnoses[rule], `${mutant.name}: diagnoses of ${rule}`).toEqual(codes);
    }
  };

  /** One row of the table; a known gap is expected to fail its assertion until the suite is fixed. */
  const row = (mutant: Mutant, title: string): void => {
    if (mutant.knownGap) it.fails(`${title} (known gap: the suite gives otherwise)`, () => expectExactly(mutant), ROW_TIMEOUT_MS);
    else it(title, () => expectExactly(mutant), ROW_TIMEOUT_MS);
  };

  const reference = zoo.find((m) => m.name === 'reference');
  if (reference) {
    describe('the plain reference', () => {
      it(
        'fails no rule, MUST or SHOULD, and crashes no check',
        async () => {
          const verdict = await verdictOf(reference);
          expect(verdict.crash).toBeUndefined();
          expect(verdict.failed).toEqual([]);
          expect(verdict.errored).toEqual([]);
        },
        ROW_TIMEOUT_MS,
      );
    });
  }

  if (correct.length > 0) {
    describe('correct variants fail no rule', () => {
      for (const mutant of correct) row(mutant, mutant.name);
    });
  }

  if (broken.length > 0) {
    describe('each mutant fails exactly the rules it breaks', () => {
      for (const mutant of broken) row(mutant, `${mutant.name} → ${mutant.breaks.join(', ')}`);
    });
  }

  // Every row above has been awaited by now: these wait for nothing the rows did not.
  describe(`catch rate (${group})`, () => {
    it(
      'every mutant of the group is caught, known gaps aside',
      async () => {
        const caughtOnes = broken.filter((m) => !m.knownGap);
        const results = await Promise.all(caughtOnes.map(verdictOf));
        const caught = caughtOnes.filter((m, i) => m.breaks.every((rule) => results[i]!.failed.includes(rule)));
        const gaps = zoo.filter((m) => m.knownGap);
        console.log(`${group}: mutants caught: ${caught.length}/${caughtOnes.length}`);
        console.log(`${group}: known gaps (not counted): ${gaps.length}`);
        const observed = await Promise.all(gaps.map(verdictOf));
        for (const [i, m] of gaps.entries())
          console.log(`known gap ${m.name}: should fail [${m.breaks.join(', ')}], fails [${observed[i]!.failed.join(', ')}]`);
        expect(caught.map((m) => m.name)).toEqual(caughtOnes.map((m) => m.name));
      },
      ROW_TIMEOUT_MS,
    );

    it(
      'no run threw, known gaps included',
      async () => {
        const crashed = (await Promise.all(zoo.map(verdictOf))).flatMap((v, i) => (v.crash ? [`${zoo[i]!.name}: ${v.crash}`] : []));
        expect(crashed).toEqual([]);
      },
      ROW_TIMEOUT_MS,
    );
  });
}
