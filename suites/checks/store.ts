import fc from 'fast-check';
import { INT64_EDGES } from '../../generators/int64.js';
import { newPet, type NewPetInput } from '../../generators/newPet.js';
import { toBody } from '../../generators/invalidNewPet.js';
import { PET_STATUSES } from '../../spec/openapi.js';
import { type CheckContext, defineCheck } from '../check.js';
import { CREATE_GAPS, createAndJudge, describeResponse, jsonOf, judgeCreated, ordinaryNameFor, petView, rawId } from '../judge.js';
import { createPet, listPets } from '../requests.js';
import { readBack, visibilityOf } from '../visibility.js';

/** The store must provably hold more than 100 animals, so limits up to 100 and the maximum can be tested. */
export const STORE_TARGET = 101;
/** Animals created on every run, however full the store already is. */
export const SEED_MINIMUM = 16;
/** categoryIds tried, after those of animals already in the store, until the target accepts one. */
export const CATEGORY_CANDIDATES: readonly bigint[] = [1n, 2n, 10n, 100n];

/**
 * Setup: learns what the store holds and a categoryId the target accepts, then
 * creates animals (every status, and none) until the store provably holds
 * {@link STORE_TARGET}. Each creation is judged as createPet's rules demand; a
 * refusal the document leaves open (a name outside the ordinary repertoire, an
 * unknown category) is proven and observed, and the animal created with an
 * ordinary name and a known categoryId instead, so later phases never depend
 * on an edge case being accepted.
 */
export const seedStore = defineCheck({
  kind: 'example',
  id: 'store.seed',
  title: `Create animals of every status until the store holds at least ${STORE_TARGET}`,
  phase: 'setup',
  operation: 'createPet',
  rules: ['CREATE-RESPONSE', 'CREATE-ECHO', 'CREATE-ID-UNIQUE'],
  gaps: ['GAP-DEFAULT-STATUS', 'GAP-READ-AFTER-WRITE', ...CREATE_GAPS],
  async run(ctx) {
    const { store, settings } = ctx;
    const first = await ctx.send(listPets({ limit: 100 }));
    const listed = jsonOf(first);
    const existing = Array.isArray(listed) ? listed : [];
    store.noteIds(existing.map(rawId).filter((id): id is bigint => id !== undefined));
    const theirs = existing.map((item) => petView(item)?.categoryId).filter((id): id is bigint => id !== undefined);
    if (!(await learnCategory(ctx, [...new Set([...theirs.slice(0, 3), ...CATEGORY_CANDIDATES])]))) return;
    const count = Math.max(SEED_MINIMUM, STORE_TARGET - store.ids.size);
    const statuses = [...PET_STATUSES, undefined];
    const hostile = settings.names
      .hostile('store')
      .map((name, i) => ({ name, categoryId: INT64_EDGES[i % INT64_EDGES.length]!, status: 'available' as const }));
    const generated = fc.sample(newPet({ prefix: settings.names.stems, optionalStatus: false }), { seed: settings.seed, numRuns: count });
    const pets = [...hostile, ...generated].slice(0, Math.max(count, hostile.length)).map((pet, i): NewPetInput => {
      const status = statuses[i % statuses.length];
      return status === undefined ? { name: pet.name, categoryId: pet.categoryId } : { ...pet, status };
    });
    const results = await ctx.parallel(pets, (pet) => createAndJudge(ctx, ctx.send, pet, store, settings.names));
    for (const { pet, sent, exchange } of results) {
      if (!pet) continue;
      store.addCreated({ sent, pet, exchange });
      if (sent.status === undefined)
        ctx.observe(
          'GAP-DEFAULT-STATUS',
          'createPet',
          pet.status === undefined ? 'created without status: no status in the response' : `created without status: status "${pet.status}"`,
          exchange,
        );
    }
    // The listings judge pages against what was created. No read-after-write guarantee is stated: the phases after
    // this one wait (within the visibility window) until the animal created last is readable. Nothing is judged here;
    // the read-backs judge it.
    const last = store.lastCreated;
    if (last) await readBack(visibilityOf(ctx), last.pet.id);
  },
});

/**
 * Category records are not shown: a target may know only some categoryIds.
 * Creates one animal with an ordinary name under each candidate in turn until
 * one is created; that categoryId is what later creations fall back on. A
 * target that refuses every candidate fails CREATE-RESPONSE, with the answers.
 */
async function learnCategory(ctx: CheckContext, candidates: readonly bigint[]): Promise<boolean> {
  const refused = [];
  for (const categoryId of candidates) {
    const sent: NewPetInput = { name: ordinaryNameFor(ctx.settings.names, ' 0'), categoryId, status: 'available' };
    const x = await ctx.send(createPet(toBody(sent)));
    if (x.response?.status === 400) {
      refused.push(x);
      continue;
    }
    const pet = judgeCreated(ctx, x, sent, ctx.store);
    if (pet) ctx.store.addCreated({ sent, pet, exchange: x });
    for (const r of refused)
      ctx.observe('GAP-CATEGORY-RECORDS', 'createPet', `a categoryId refused with 400 while categoryId ${categoryId} was accepted`, r);
    return pet !== undefined;
  }
  const last = refused.at(-1)!;
  ctx.fail(
    'CREATE-RESPONSE',
    { code: 'NO_CATEGORY_ACCEPTED', args: { categoryIds: candidates.map(String), received: describeResponse(last) } },
    refused.slice(-3),
    'every categoryId refused',
    { kind: 'create' },
  );
  return false;
}
