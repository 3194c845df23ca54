/**
 * The mutant zoo itself (test/fixtures/mutants/), apart from the runs of the
 * contract table (test/e2e/contract/): names, groups and the catalog's
 * coverage, which need no server. Each group's catch rate (every mutant that
 * is not a known gap is caught) is asserted by the group's own table.
 */
import { describe, expect, it } from 'vitest';
import { rules } from '../../../spec/rules.js';
import { groups, mutants } from '../../fixtures/mutants/index.js';

describe('the zoo itself', () => {
  it('has unique names, and no rule twice in a mutant', () => {
    expect(new Set(mutants.map((m) => m.name)).size).toBe(mutants.length);
    for (const m of mutants) expect(new Set(m.breaks).size, m.name).toBe(m.breaks.length);
  });

  it('every rule of the catalog is broken by a mutant that is not a known gap (each group asserts that its mutants are caught)', () => {
    const broken = mutants.filter((m) => m.breaks.length > 0 && !m.knownGap);
    const uncovered = rules.map((r) => r.id).filter((id) => !broken.some((m) => m.breaks.includes(id)));
    expect(uncovered, 'rules no mutant breaks').toEqual([]);
  });

  it('every group has a contract test file, and the plain reference is in one of them', () => {
    expect(Object.values(groups).flat()).toEqual(mutants);
    expect(mutants.filter((m) => m.name === 'reference')).toHaveLength(1);
  });
});
