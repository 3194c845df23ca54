/**
 * Lists while creating (Endpoints › listPets, createPet; Resources › Pet):
 * the functional phases' one look at a store under concurrent requests.
 */
import type { ListQuery } from '../../generators/listQuery.js';
import type { NewPetInput } from '../../generators/newPet.js';
import { PET_STATUSES } from '../../spec/openapi.js';
import { defineCheck, type SentExchange, StoreState } from '../check.js';
import { CREATE_GAPS, createAndJudge, judgeList, provenMatches } from '../judge.js';
import { listPets } from '../requests.js';

/** Animals created while the lists are sent: one per status, and one without. */
const CREATES = [...PET_STATUSES, undefined] as const;

type Task = { create: NewPetInput } | { list: ListQuery };
type Done = { created: Awaited<ReturnType<typeof createAndJudge>> } | { listed: SentExchange; query: ListQuery };

/**
 * "200 — JSON array of Pet (Pets)" holds for a list answered while animals are
 * being created: every animal it shows, the new ones included, is a Pet with
 * its id ("id … required"), whether the store shows the new animals yet or
 * not (the document states no read-after-write order). The creates are judged
 * as every create is, ids distinct (CREATE-ID-UNIQUE).
 *
 * Bounded: four creates and at most eight lists (no status and each status,
 * twice), sent together within `--concurrency` (creates first, so lists are in
 * flight while creates are). With concurrency 1 they go one at a time, and the
 * check is a plain one. Each page's limit is what the store provably fills
 * (animals known before the creates), so a page holds as many animals whether
 * it shows the new ones or not. Pages are judged against no store knowledge:
 * ids seen on them are not noted, so a create answered after a page that
 * already showed its animal keeps its id new (CREATE-ID-UNIQUE), and
 * LIST-PAGE-FULL is not judged on a store growing while it is listed.
 */
export const listWhileCreating = defineCheck({
  kind: 'example',
  id: 'createPet.list-while-creating',
  title: 'Lists sent while animals are being created show only Pets, each with its id; concurrent creates get distinct ids',
  phase: 'createPet',
  operation: 'listPets',
  rules: ['LIST-RESPONSE', 'LIST-LIMIT-HONOURED', 'LIST-STATUS-FILTER', 'CREATE-RESPONSE', 'CREATE-ECHO', 'CREATE-ID-UNIQUE'],
  gaps: CREATE_GAPS,
  async run(ctx) {
    const categoryId = ctx.store.categories[0] ?? 1n;
    const creates: Task[] = CREATES.map((status, i) => ({
      create: { name: ctx.settings.names.name(`concurrent ${i}`), categoryId, ...(status === undefined ? {} : { status }) },
    }));
    // Pages the store provably fills (counted before the creates): each holds as many animals whether it shows the new ones or not, so the run's tallies do not depend on timing.
    const full = [undefined, ...PET_STATUSES]
      .map((status): ListQuery => ({ limit: Math.min(100, provenMatches(ctx.store, status)), ...(status === undefined ? {} : { status }) }))
      .filter((q) => q.limit! > 0);
    const lists: Task[] = [...full, ...full].map((query) => ({ list: query }));
    const done = await ctx.parallel([...creates, ...lists], async (task): Promise<Done> =>
      'create' in task
        ? { created: await createAndJudge(ctx, ctx.send, task.create, ctx.store, ctx.settings.names) }
        : { listed: await ctx.send(listPets(task.list)), query: task.list },
    );
    const apart = new StoreState();
    for (const result of done) {
      if ('listed' in result) judgeList(ctx, result.listed, result.query, apart, 0, 'later');
      else if (result.created.pet)
        ctx.store.addCreated({ sent: result.created.sent, pet: result.created.pet, exchange: result.created.exchange });
    }
  },
});

export const concurrencyChecks = [listWhileCreating] as const;
