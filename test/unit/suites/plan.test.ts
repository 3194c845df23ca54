/**
 * The plan's waits as data (suites/plan.ts): a check that starts early names a registered check, waits for phases
 * that end before its own phase starts, never for its own phase or one after it; and the scheduler hands a phase the
 * end of others (suites/schedule.ts `runPhases`).
 */
import { describe, expect, it } from 'vitest';
import { builtinChecks } from '../../../suites/registry.js';
import { EARLY, PLAN } from '../../../suites/plan.js';
import { runPhases } from '../../../suites/schedule.js';

/** Every phase `phase` waits for, directly or through another. */
function before(phase: string): Set<string> {
  const out = new Set<string>();
  const visit = (p: string) => {
    for (const a of PLAN.find((s) => s.name === p)!.after) {
      if (out.has(a)) continue;
      out.add(a);
      visit(a);
    }
  };
  visit(phase);
  return out;
}

describe('the plan', () => {
  it('each early check is a registered check of the plan, once, and waits only for phases its phase waits for', () => {
    expect(new Set(EARLY.map((e) => e.check)).size).toBe(EARLY.length);
    for (const early of EARLY) {
      const check = builtinChecks.find((c) => c.id === early.check);
      expect(check && 'phase' in check, early.check).toBe(true);
      const phase = (check as { phase: string }).phase;
      const waited = before(phase);
      for (const p of early.after) expect(waited.has(p), `${early.check} waits for ${p}`).toBe(true);
      expect(early.why.length).toBeGreaterThan(0);
    }
  });
});

describe('runPhases', () => {
  it('hands each phase the end of any phases: work of a phase may wait for more than the phase does', async () => {
    const order: string[] = [];
    const plan = [
      { name: 'a', after: [] },
      { name: 'b', after: ['a'] },
      { name: 'c', after: [] },
    ] as const;
    await runPhases<'a' | 'b' | 'c'>(plan, async (phase, ended) => {
      order.push(`${phase} starts`);
      if (phase === 'c') {
        await ended(['b']);
        order.push('c after b');
      }
      await Promise.resolve();
      order.push(`${phase} ends`);
    });
    expect(order.indexOf('c starts')).toBeLessThan(order.indexOf('a ends'));
    expect(order.indexOf('c after b')).toBeGreaterThan(order.indexOf('b ends'));
    expect(order.at(-1)).toBe('c ends');
  });
});
