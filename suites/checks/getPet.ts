/** getPet: `GET /pets/{petId}`, deprecated (Endpoints › getPet; Errors; Versioning). */
import fc from 'fast-check';
import { INT64_MAX, INT64_MIN } from '../../core/json.js';
import { defineCheck } from '../check.js';
import { bodyNotRead, describeResponse, JUDGE_GAPS, jsonOf, judgeFetched, petView } from '../judge.js';
import { getPet } from '../requests.js';
import { readBackAll } from '../visibility.js';

/** Animals fetched back by the round-trip check, at most. */
export const ROUND_TRIP_MAX = 128;

/** "200 — Pet": every animal the suite created comes back as created. */
export const roundTrip = defineCheck({
  kind: 'example',
  id: 'getPet.round-trip',
  title: 'GET /pets/{id} of each animal the suite created returns it as created',
  phase: 'getPet',
  operation: 'getPet',
  rules: ['GET-RESPONSE'],
  gaps: [...JUDGE_GAPS, 'GAP-READ-AFTER-WRITE'],
  async run(ctx) {
    const created = ctx.store.created.slice(0, ROUND_TRIP_MAX);
    const exchanges = await readBackAll(
      ctx,
      created.map((c) => c.pet.id),
    );
    exchanges.forEach((x, i) => judgeFetched(ctx, x, created[i]!.sent, created[i]!.pet.id, created[i]!.exchange, ctx.store));
  },
});

/** Random ids tried for 404. The chance that a store holds all of them is nil. */
export const UNKNOWN_ID_SAMPLES = 12;

/** "404 — Error (the requested resource could not be found)". */
export const unknownIds = defineCheck({
  kind: 'example',
  id: 'getPet.unknown-ids',
  title: 'GET /pets/{id} of ids no animal has is answered 404',
  phase: 'getPet',
  operation: 'getPet',
  rules: ['GET-NOT-FOUND'],
  async run(ctx) {
    // Uniform over int64 (no bias towards small values, which a store may well hold), magnitudes above 2^32.
    const random = fc.sample(
      fc.noBias(fc.bigInt({ min: INT64_MIN, max: INT64_MAX })).filter((id) => id > 2n ** 32n || id < -(2n ** 32n)),
      { seed: ctx.settings.seed, numRuns: UNKNOWN_ID_SAMPLES },
    );
    const ids = [...new Set([INT64_MAX, INT64_MIN, ...random])].filter((id) => !ctx.store.ids.has(id));
    const exchanges = await ctx.sendAll(ids.map((id) => getPet(id)));
    let existing = 0;
    exchanges.forEach((x, i) => {
      const id = ids[i]!;
      const status = x.response?.status;
      if (status === 404) return ctx.pass('GET-NOT-FOUND');
      // A 200 may be that very animal (an id the suite has not seen yet): only the body tells.
      if (status === 200 && bodyNotRead(ctx, ['GET-NOT-FOUND'], x, 'object')) return;
      const pet = status === 200 ? petView(jsonOf(x) ?? null) : undefined;
      if (pet?.id === id) {
        existing++;
        ctx.store.ids.add(id);
        return;
      }
      const received = pet ? `200 with animal ${pet.id}` : describeResponse(x);
      ctx.fail('GET-NOT-FOUND', { code: 'UNKNOWN_ID_ANSWERED', args: { id: `${id}`, received } }, [x], `status ${status ?? 'none'}`, {
        kind: 'status',
        rule: 'GET-NOT-FOUND',
        expected: [404],
        what: `id ${id}`,
      });
    });
    if (ids.length > 0 && existing === ids.length) {
      ctx.fail('GET-NOT-FOUND', { code: 'EVERY_ID_EXISTS', args: { count: ids.length } }, exchanges.slice(0, 3), 'every id exists');
    }
  },
});

/** petId is an int64; what other values get is not shown. */
export const malformedIds = defineCheck({
  kind: 'example',
  id: 'getPet.malformed-ids',
  title: 'GET /pets/{petId} with a petId that is not an int64',
  phase: 'getPet',
  operation: 'getPet',
  rules: [],
  gaps: ['GAP-PET-ID-FORMAT'],
  async run(ctx) {
    const values = ['abc', '1.5', '9223372036854775808', '-9223372036854775809', '18446744073709551616', '0x1A', '%20', 'null'];
    const exchanges = await ctx.sendAll(values.map((v) => getPet(v)));
    exchanges.forEach((x, i) =>
      ctx.observe(
        'GAP-PET-ID-FORMAT',
        'getPet',
        `petId ${values[i]}: ${x.response ? x.response.status : `no response (${x.error?.message})`}`,
        x,
      ),
    );
  },
});

export const getPetChecks = [roundTrip, unknownIds, malformedIds] as const;
