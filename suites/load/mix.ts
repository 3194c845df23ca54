/**
 * The request mix of a load profile, as clients use the interface: listPets
 * with varied limits and status filters, getPet of animals created in the
 * profile's set-up, createPet with generated valid bodies (named with the run's
 * prefix), and a small share of requests without a key (authentication must
 * still hold under load).
 *
 * The mix is described in two steps: {@link mixPlan}, the cycle of operations
 * (which operation each request is, the n-th of its operation, sent with a
 * key or not), and {@link buildMix}, which makes each of them a request. The
 * load phase sends what buildMix makes; export-load's scripts (export/) send
 * the same plan in their tool's terms.
 */
import type { NamePrefix } from '../../generators/petName.js';
import fc from 'fast-check';
import { stringifyJson } from '../../core/json.js';
import { toBody } from '../../generators/invalidNewPet.js';
import { newPet, type NewPetInput } from '../../generators/newPet.js';
import { PET_STATUSES, type PetStatus } from '../../spec/openapi.js';
import type { LoadOperation } from '../../result/model.js';
import type { LoadMix } from './profiles.js';
import type { SendOptions } from '../check.js';
import { listPets } from '../requests.js';

/** One request of the mix, ready to send. */
export interface MixRequest {
  operation: LoadOperation;
  method: 'GET' | 'POST';
  /** Relative to the base URL. */
  path: string;
  body?: string;
  /** Sent without a key: 401 is expected. */
  authProbe: boolean;
  /** For listPets: the query; for createPet: what was sent; for getPet: the id asked for. */
  limit?: number;
  status?: string;
  sent?: NewPetInput;
  petId?: bigint;
  /** What a client's application may write its own way (suites/check.ts `SendOptions.written`): the body's value, the query's parameters. */
  written?: SendOptions['written'];
}

/** Animals the load phase creates before the mix, for getPet to ask for (phase.ts; the exported scripts create as many). */
export const LOAD_SETUP_ANIMALS = 20;

/** Length of the sequence the mix cycles through. */
export const MIX_LENGTH = 240;

/** The limits listPets asks for under load, in turn (undefined: none). */
export const LIST_LIMITS: readonly (number | undefined)[] = [undefined, 1, 5, 20, 50, 100];
/** The status filters listPets asks for under load, each for a round of {@link LIST_LIMITS} (undefined: none). */
export const LIST_STATUSES: readonly (PetStatus | undefined)[] = [undefined, ...PET_STATUSES];

/** The query of the `n`-th listPets of the mix: every limit with no filter, then with each status in turn. */
export function listQueryOf(n: number): { limit?: number; status?: PetStatus } {
  const limit = LIST_LIMITS[n % LIST_LIMITS.length];
  const status = LIST_STATUSES[Math.floor(n / LIST_LIMITS.length) % LIST_STATUSES.length];
  return { ...(limit ? { limit } : {}), ...(status ? { status } : {}) };
}

/** One request of the plan: its operation, which of its operation's requests it is, and whether it goes without a key. */
export interface MixSlot {
  operation: LoadOperation;
  /** The n-th request of its operation in the cycle (from 0): its query, the animal it asks for, its body. */
  n: number;
  authProbe: boolean;
}

/**
 * The cycle of {@link MIX_LENGTH} requests the load phase sends, in order:
 * each operation's share by `mix` weights (getPet's going to listPets when
 * there are no animals to ask for, `withPets` false), shuffled by `seed`, and
 * every (1/`authProbeShare`)-th request sent without a key unless it is a
 * createPet.
 */
export function mixPlan(options: { mix: LoadMix; withPets: boolean; seed: number; authProbeShare: number }): MixSlot[] {
  const { mix, withPets } = options;
  const weights: [LoadOperation, number][] = [
    ['listPets', mix.listPets + (withPets ? 0 : mix.getPet)],
    ['getPet', withPets ? mix.getPet : 0],
    ['createPet', mix.createPet],
  ];
  const total = weights.reduce((n, [, w]) => n + w, 0);
  const sequence: MixSlot[] = [];
  for (const [operation, weight] of weights) {
    const count = Math.round((weight / total) * MIX_LENGTH);
    for (let n = 0; n < count; n++) sequence.push({ operation, n, authProbe: false });
  }
  // Interleave deterministically, then turn every n-th request into an auth probe.
  const shuffled =
    fc.sample(fc.shuffledSubarray(sequence, { minLength: sequence.length, maxLength: sequence.length }), {
      seed: options.seed,
      numRuns: 1,
    })[0] ?? sequence;
  const every = options.authProbeShare > 0 ? Math.max(2, Math.round(1 / options.authProbeShare)) : 0;
  return shuffled.map((slot, i) =>
    every && i % every === every - 1 && slot.operation !== 'createPet' ? { ...slot, authProbe: true } : slot,
  );
}

/**
 * A deterministic sequence of requests following `mix` weights. `petIds` are
 * the animals getPet asks for; with none, getPet's share goes to listPets.
 */
export function buildMix(options: {
  mix: LoadMix;
  petIds: readonly bigint[];
  prefix: NamePrefix;
  seed: number;
  authProbeShare: number;
  categoryIds?: readonly bigint[];
}): MixRequest[] {
  const { petIds, prefix, seed } = options;
  const plan = mixPlan({ mix: options.mix, withPets: petIds.length > 0, seed, authProbeShare: options.authProbeShare });
  // Load measures the target, not its edge cases: ordinary names and categoryIds it accepted (both are left open by the document).
  const bodies = fc.sample(newPet({ prefix, names: 'ordinary', categoryIds: options.categoryIds?.length ? options.categoryIds : [1n] }), {
    seed,
    numRuns: MIX_LENGTH,
  });
  return plan.map(({ operation, n, authProbe }): MixRequest => {
    if (operation === 'listPets') {
      const query = listQueryOf(n);
      // As the functional phases write a listing (suites/requests.ts), its parameters for a client's application.
      const { path, written } = listPets(query);
      return { operation, method: 'GET', path, authProbe, ...query, ...(written ? { written } : {}) };
    }
    if (operation === 'getPet') {
      const petId = petIds[n % petIds.length]!;
      return { operation, method: 'GET', path: `/pets/${petId}`, authProbe, petId };
    }
    const sent = bodies[n % bodies.length]!;
    const body = toBody(sent);
    return { operation, method: 'POST', path: '/pets', body: stringifyJson(body), authProbe, sent, written: { json: body } };
  });
}
