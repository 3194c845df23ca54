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
 * growing); getPet reads back what createPet created. auth needs setup's first
 * animal; storeOrders reads nothing of the store. The setup phase always runs:
 * the others need its animals.
 */
export const PLAN: readonly PhaseSpec[] = [
  { name: 'setup', after: [], needs: 'nothing: it learns the store and creates animals until at least 101 ids are known' },
  { name: 'listPets', after: ['setup'], needs: "setup's animals, to judge pages against" },
  { name: 'createPet', after: ['listPets'], needs: 'listPets to have ended, so no page is judged against a growing store' },
  { name: 'getPet', after: ['createPet'], needs: 'the animals createPet created, to read them back' },
  { name: 'storeOrders', after: [], needs: 'nothing: GET /store/orders reads no animal, and creates none' },
  { name: 'auth', after: ['setup'], needs: "setup's first animal, readable" },
];

/** A check that waits for other phases than its phase's `after`. */
export interface CheckWait {
  check: string;
  /** Phases whose end it waits for instead. */
  after: readonly Phase[];
  /** Why no judgement, its own or another check's meanwhile, can change. */
  why: string;
}

/**
 * Checks that start before their phase's `after` have ended, since what they
 * read exists earlier; every other check waits as its phase does. The phase
 * starts with the first of its checks that may.
 */
export const EARLY: readonly CheckWait[] = [
  {
    check: 'getPet.malformed-ids',
    after: ['listPets'],
    why:
      'petIds that are not int64: each answer is observed, nothing of the store is read, no animal is created or ' +
      'shown. Not before listPets: it names no rule, so a re-run of chosen rules does not send it, and an error answer ' +
      "of its would come first in the response checks' findings, which a re-run must reproduce",
  },
  {
    check: 'getPet.unknown-ids',
    after: ['listPets'],
    why:
      'random ids beyond ±2^32 and the int64 bounds: the ids known when it starts are left out, and one answered 200 ' +
      'with that very animal counts as existing, not as a failure, whenever it was made. Such an id joins the known ' +
      'ids, which listPets counts pages against: it waits for listPets. Beside createPet it changes no judgement: ' +
      'its pages ask min(100, known ids) of a store setup proved to hold 101; a create answered with an id it proved ' +
      'to exist would reuse an id (drawn at random over int64: no real chance)',
  },
];

/** The phases, in plan order. */
export const PHASES: readonly Phase[] = PLAN.map((p) => p.name);
