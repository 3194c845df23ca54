import fc from 'fast-check';
import { INT64_EDGES } from '../../generators/int64.js';
import { newPet, type NewPetInput } from '../../generators/newPet.js';
import { toBody } from '../../generators/invalidNewPet.js';
import { PET_STATUSES } from '../../spec/openapi.js';
import { type CheckContext, defineCheck, type SendOptions } from '../check.js';
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
    // The preflight's answer is this look at the store when it asked for a full page (suites/engine.ts): a round trip less.
    const first = store.listing ?? (await ctx.send(listPets({ limit: 100 })));
    const listed = jsonOf(first);
    const existing = Array.isArray(listed) ? listed : [];
    store.noteIds(existing.map(rawId).filter((id): id is bigint => id !== undefined));
    const theirs = existing.map((item) => petView(item)?.categoryId).filter((id): id is bigint => id !== undefined);
    // The animals go out with learnCategory's first request, a round trip earlier than after it. Each answer waits
    // until the category is learnt to be judged (or sent again with it), so every judgement sees the store as when they
    // went out after learnCategory. As many as if its animal is new to the store; one more once it is learnt when its
    // id was one the store had shown. When no category is learnt, none is judged; they all went out all the same, so
    // that what the target was sent does not depend on which answer came first.
    const known = store.ids.size;
    const pets = seedsFor(ctx, seedCount(known));
    const learnt = learnCategory(ctx, [...new Set([...theirs.slice(0, 3), ...CATEGORY_CANDIDATES])]);
    const needed = learnt.then((ok) => (ok ? Math.min(pets.length, seedsLength(ctx, seedCount(store.ids.size))) : 0));
    // Whatever else awaits them, a rejection (the run stopped) is the check's through `results` below, never unhandled.
    needed.catch(() => undefined);
    const early = seedsLength(ctx, seedCount(known + 1));
    const sendLearnt = async (request: SendOptions) => {
      const x = await ctx.send(request);
      if (!(await learnt)) throw new NotLearnt();
      return x;
    };
    const results = await ctx.parallel(
      pets.map((pet, i) => ({ pet, i })),
      async ({ pet, i }) => {
        if (i >= early && i >= (await needed)) return undefined;
        return createAndJudge(ctx, sendLearnt, pet, store, settings.names).catch((error: unknown) => {
          if (error instanceof NotLearnt) return undefined;
          throw error;
        });
      },
    );
    if (!(await learnt)) return;
    for (const result of results) {
      if (!result?.pet) continue;
      const { pet, sent, exchange } = result;
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

/** An answer to an animal sent before learnCategory ended without a category: not judged. */
class NotLearnt extends Error {}

/** Animals to create while the store provably holds `ids`. */
function seedCount(ids: number): number {
  return Math.max(SEED_MINIMUM, STORE_TARGET - ids);
}

/** How many animals {@link seedsFor} draws for `count`: every hostile name, whatever the count. */
function seedsLength(ctx: CheckContext, count: number): number {
  return Math.max(count, ctx.settings.names.hostile('store').length);
}

/**
 * The animals setup creates when `count` are needed: hostile names first, then generated ones, from the seed;
 * statuses in turn, and none. The list for a count begins with the list for any smaller one.
 */
function seedsFor(ctx: CheckContext, count: number): NewPetInput[] {
  const { names, seed } = ctx.settings;
  const statuses = [...PET_STATUSES, undefined];
  const hostile = names
    .hostile('store')
    .map((name, i) => ({ name, categoryId: INT64_EDGES[i % INT64_EDGES.length]!, status: 'available' as const }));
  const generated = fc.sample(newPet({ prefix: names.stems, optionalStatus: false }), { seed, numRuns: count });
  return [...hostile, ...generated].slice(0, seedsLength(ctx, count)).map((pet, i): NewPetInput => {
    const status = statuses[i % statuses.length];
    return status === undefined ? { name: pet.name, categoryId: pet.categoryId } : { ...pet, status };
  });
}

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
