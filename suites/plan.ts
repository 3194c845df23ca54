/**
 * The functional phases as data: what each reads, so waits for. The engine
 * runs them as a graph (suites/schedule.ts `runPhases`); the load phase comes
 * after all of them.
 */
import type { Phase } from '../result/model.js';

export interface PhaseSpec {
  name: Phase;
  /** Phases whose results this one reads: it starts once they have ended. */
  after: readonly Phase[];
  /** What it needs from them, in a line. */
  needs: string;
}

/**
 * listPets judges pages against the animals setup created (and createPet, which
 * adds more, waits for it, so no page is judged against a store still
 * growing); getPet reads back what createPet created. storeOrders and auth
 * need only setup's first animal. The setup phase always runs: every other
 * needs its animals.
 */
export const PLAN: readonly PhaseSpec[] = [
  { name: 'setup', after: [], needs: 'nothing: it learns the store and creates animals until at least 101 ids are known' },
  { name: 'listPets', after: ['setup'], needs: "setup's animals, to judge pages against" },
  { name: 'createPet', after: ['listPets'], needs: 'listPets to have ended, so no page is judged against a growing store' },
  { name: 'getPet', after: ['createPet'], needs: 'the animals createPet created, to read them back' },
  { name: 'storeOrders', after: ['setup'], needs: "setup's first animal" },
  { name: 'auth', after: ['setup'], needs: "setup's first animal" },
];

/** The phases, in plan order. */
export const PHASES: readonly Phase[] = PLAN.map((p) => p.name);
