/**
 * The request mix of a load profile, as clients use the interface: listPets
 * with varied limits and status filters, getPet of animals created in the
 * profile's set-up, createPet with generated valid bodies (named with the run's
 * prefix), and a small share of requests without a key (authentication must
 * still hold under load).
 */
import type { NamePrefix } from '../../generators/petName.js';
import fc from 'fast-check';
import { stringifyJson } from '../../core/json.js';
import { toBody } from '../../generators/invalidNewPet.js';
import { listQueryString } from '../../generators/listQuery.js';
import { newPet, type NewPetInput } from '../../generators/newPet.js';
import { PET_STATUSES } from '../../spec/openapi.js';
import type { LoadOperation } from '../../result/model.js';
import type { LoadMix } from './profiles.js';

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
}

/** Length of the sequence the mix cycles through. */
export const MIX_LENGTH = 240;

/**
 * A deterministic sequence of requests following `mix` weights. `petIds` are
 * the animals getPet asks for; with none, getPet's share goes to listPets.
 */
export function buildMix(options: { mix: LoadMix; petIds: readonly bigint[]; prefix: NamePrefix; seed: number; authProbeShare: number; categoryIds?: readonly bigint[] }): MixRequest[] {
  const { mix, petIds, prefix, seed } = options;
  const weights: [LoadOperation, number][] = [
    ['listPets', mix.listPets + (petIds.length === 0 ? mix.getPet : 0)],
    ['getPet', petIds.length === 0 ? 0 : mix.getPet],
    ['createPet', mix.createPet],
  ];
  const total = weights.reduce((n, [, w]) => n + w, 0);
  // Load measures the target, not its edge cases: ordinary names and categoryIds it accepted (both are left open by the document).
  const bodies = fc.sample(newPet({ prefix, names: 'ordinary', categoryIds: options.categoryIds?.length ? options.categoryIds : [1n] }), { seed, numRuns: MIX_LENGTH });
  const limits = [undefined, 1, 5, 20, 50, 100];
  const statuses = [undefined, ...PET_STATUSES];
  const sequence: MixRequest[] = [];
  for (const [operation, weight] of weights) {
    const count = Math.round((weight / total) * MIX_LENGTH);
    for (let i = 0; i < count; i++) {
      if (operation === 'listPets') {
        const limit = limits[i % limits.length];
        const status = statuses[Math.floor(i / limits.length) % statuses.length];
        sequence.push({ operation, method: 'GET', path: `/pets${listQueryString({ ...(limit ? { limit } : {}), ...(status ? { status } : {}) })}`, authProbe: false, ...(limit ? { limit } : {}), ...(status ? { status } : {}) });
      } else if (operation === 'getPet') {
        const petId = petIds[i % petIds.length]!;
        sequence.push({ operation, method: 'GET', path: `/pets/${petId}`, authProbe: false, petId });
      } else {
        const sent = bodies[i % bodies.length]!;
        sequence.push({ operation, method: 'POST', path: '/pets', body: stringifyJson(toBody(sent)), authProbe: false, sent });
      }
    }
  }
  // Interleave deterministically, then turn every n-th request into an auth probe.
  const shuffled = fc.sample(fc.shuffledSubarray(sequence, { minLength: sequence.length, maxLength: sequence.length }), { seed, numRuns: 1 })[0] ?? sequence;
  const every = options.authProbeShare > 0 ? Math.max(2, Math.round(1 / options.authProbeShare)) : 0;
  return shuffled.map((request, i) => (every && i % every === every - 1 && request.operation !== 'createPet' ? { ...request, authProbe: true } : request));
}
