import fc from 'fast-check';
import { INT64_EDGES } from '../../generators/int64.js';
import { newPet, type NewPetInput } from '../../generators/newPet.js';
import { HOSTILE_NAME_SUFFIXES } from '../../generators/petName.js';
import { toBody } from '../../generators/invalidNewPet.js';
import { PET_STATUSES } from '../../spec/openapi.js';
import { defineCheck } from '../check.js';
import { judgeCreated, jsonOf, rawId } from '../judge.js';
import { createPet, listPets } from '../requests.js';

/** The store must provably hold more than 100 animals, so limits up to 100 and the maximum can be tested. */
export const STORE_TARGET = 101;
/** Animals created on every run, however full the store already is. */
export const SEED_MINIMUM = 16;

/**
 * Setup: learns what the store holds, then creates animals (every status, and
 * none) until the store provably holds {@link STORE_TARGET}. Each creation is
 * judged as createPet's rules demand.
 */
export const seedStore = defineCheck({
  kind: 'example',
  id: 'store.seed',
  title: `Create animals of every status until the store holds at least ${STORE_TARGET}`,
  phase: 'setup',
  operation: 'createPet',
  rules: ['CREATE-RESPONSE', 'CREATE-ECHO', 'CREATE-ID-UNIQUE'],
  gaps: ['GAP-DEFAULT-STATUS'],
  async run(ctx) {
    const { store, settings } = ctx;
    const first = await ctx.send(listPets({ limit: 100 }));
    const listed = jsonOf(first);
    if (Array.isArray(listed)) store.noteIds(listed.map(rawId).filter((id): id is bigint => id !== undefined));
    const count = Math.max(SEED_MINIMUM, STORE_TARGET - store.ids.size);
    const statuses = [...PET_STATUSES, undefined];
    // The hostile names first, so every run tries them whatever the seed; then generated ones.
    const hostile = HOSTILE_NAME_SUFFIXES.map((suffix, i) => ({ name: settings.prefix + suffix, categoryId: INT64_EDGES[i % INT64_EDGES.length]!, status: 'available' as const }));
    const generated = fc.sample(newPet({ prefix: settings.prefix, optionalStatus: false }), { seed: settings.seed, numRuns: count });
    const pets = [...hostile, ...generated].slice(0, Math.max(count, hostile.length)).map((pet, i): NewPetInput => {
      const status = statuses[i % statuses.length];
      return status === undefined ? { name: pet.name, categoryId: pet.categoryId } : { ...pet, status };
    });
    const exchanges = await ctx.sendAll(pets.map((pet) => createPet(toBody(pet))));
    exchanges.forEach((exchange, i) => {
      const sent = pets[i]!;
      const pet = judgeCreated(ctx, exchange, sent, store);
      if (!pet) return;
      store.addCreated({ sent, pet, exchange });
      if (sent.status === undefined) ctx.observe('GAP-DEFAULT-STATUS', 'createPet', pet.status === undefined ? 'created without status: no status in the response' : `created without status: status "${pet.status}"`, exchange);
    });
  },
});
