/** Authentication: bearer key on every operation (Authentication; Endpoints; Errors). */
import { defineCheck, type CheckContext, type SendOptions } from '../check.js';
import type { AuthVariant } from '../credentials.js';
import { describeResponse } from '../judge.js';
import { createPet, getPet, listPets, listStoreOrders } from '../requests.js';
import type { OperationId } from '../../result/model.js';

type Auth = Pick<SendOptions, 'auth' | 'authorization'>;

/** One request per operation, carrying `auth`. getPet asks for an animal that exists, so a 404 cannot stand in for a 401. */
function everyOperation(ctx: CheckContext, auth: Auth): SendOptions[] {
  const existing = ctx.store.created[0]?.pet.id;
  const requests: SendOptions[] = [
    listPets({}, auth),
    createPet({ name: ctx.settings.names.name('auth', auth.auth), categoryId: 1n, status: 'available' }, auth),
    listStoreOrders(auth),
  ];
  if (existing !== undefined) requests.splice(2, 0, getPet(existing, auth));
  return requests;
}

function asAuth(variant: AuthVariant): Auth {
  return { auth: variant.kind, ...(variant.authorization === undefined ? {} : { authorization: variant.authorization }) };
}

/**
 * Every operation under each credential of `cases` must be answered 401. All
 * of them are sent at once (they do not depend on one another: a run far from
 * its target waits one round trip, not one per credential), then judged in
 * the order given, as if sent one credential after another.
 */
async function expect401(
  ctx: CheckContext,
  rule: 'AUTH-REQUIRED' | 'AUTH-INVALID-KEY' | 'AUTH-SCHEME',
  cases: readonly { label: string; auth: Auth }[],
): Promise<void> {
  const each = cases.map(({ label, auth }) => ({ label, requests: everyOperation(ctx, auth) }));
  const all = await ctx.sendAll(each.flatMap((c) => c.requests));
  let at = 0;
  for (const { label, requests } of each) {
    const exchanges = all.slice(at, (at += requests.length));
    exchanges.forEach((x, i) => {
      const operation: OperationId = requests[i]!.operation;
      if (x.response?.status === 401) ctx.pass(rule);
      else
        ctx.fail(
          rule,
          { code: 'WRONG_STATUS', args: { status: '401', request: `${operation} with ${label}`, received: describeResponse(x) } },
          [x],
          `${operation} ${label}`,
          { kind: 'status', rule, expected: [401], what: `${operation} with ${label}` },
        );
    });
    if (ctx.store.created.length === 0) ctx.inconclusive(rule, { code: 'NO_ANIMAL_TO_GET', args: {} });
  }
}

/** Authentication 2–3: "The scheme applies to every operation. When the key is missing … 401". */
export const missingKey = defineCheck({
  kind: 'example',
  id: 'auth.missing-key',
  title: 'Every operation without an Authorization header is answered 401',
  phase: 'auth',
  operation: 'listPets',
  rules: ['AUTH-REQUIRED'],
  run: (ctx) => expect401(ctx, 'AUTH-REQUIRED', [{ label: 'no Authorization header', auth: { auth: 'none' } }]),
});

/** Authentication 3: "When the key is … invalid, the response is 401". */
export const invalidKey = defineCheck({
  kind: 'example',
  id: 'auth.invalid-key',
  title: 'Every operation with a wrong bearer token is answered 401',
  phase: 'auth',
  operation: 'listPets',
  rules: ['AUTH-INVALID-KEY'],
  run: (ctx) =>
    expect401(
      ctx,
      'AUTH-INVALID-KEY',
      ctx.authVariants.invalid.map((v) => ({ label: v.label, auth: asAuth(v) })),
    ),
});

/** Authentication 1: "in the form `Authorization: Bearer <API_KEY>`". */
export const wrongScheme = defineCheck({
  kind: 'example',
  id: 'auth.wrong-scheme',
  title: 'Every operation with the key in another form than "Bearer <key>" is answered 401',
  phase: 'auth',
  operation: 'listPets',
  rules: ['AUTH-SCHEME'],
  run: (ctx) =>
    expect401(
      ctx,
      'AUTH-SCHEME',
      ctx.authVariants.otherScheme.map((v) => ({ label: v.label, auth: asAuth(v) })),
    ),
});

/** @see RFC 9110 §11.1: "It uses a case-insensitive token to identify the authentication scheme". */
export const schemeCase = defineCheck({
  kind: 'example',
  id: 'auth.scheme-case',
  title: 'The key under "bearer" and "BEARER" is accepted',
  phase: 'auth',
  operation: 'listPets',
  rules: ['AUTH-SCHEME-CASE'],
  async run(ctx) {
    // Sent at once, judged in order: one round trip, not one per variant.
    const variants = ctx.authVariants.schemeCase;
    const exchanges = await ctx.sendAll(variants.map((variant) => listPets({}, asAuth(variant))));
    for (const [i, variant] of variants.entries()) {
      const x = exchanges[i]!;
      if (x.response !== undefined && x.response.status !== 401) ctx.pass('AUTH-SCHEME-CASE');
      else
        ctx.fail(
          'AUTH-SCHEME-CASE',
          { code: 'NOT_ACCEPTED', args: { request: `the key under ${variant.label}`, received: describeResponse(x) } },
          [x],
          variant.label,
          { kind: 'not-status', rule: 'AUTH-SCHEME-CASE', refused: [401], what: `the key under ${variant.label}` },
        );
    }
  },
});

/**
 * Authentication 3: "When the key is missing or invalid, the response is 401
 * with an Error body", unconditionally: whatever else is wrong with the request.
 * Every kind of invalid input, sent without a key, with a wrong key and under
 * another scheme: a 400, 404 or 422 means the request was validated first.
 */
export const beforeValidation = defineCheck({
  kind: 'example',
  id: 'auth.before-validation',
  title: 'Invalid requests without a valid key are answered 401, not 400, 404 or 422',
  phase: 'auth',
  operation: 'createPet',
  rules: ['AUTH-BEFORE-VALIDATION'],
  async run(ctx) {
    // A name per request: a certification does not send one name over and over (a plain run's is the same for all).
    const nameFor = (auth: Auth, what: string) => ctx.settings.names.name('auth', `${what} ${auth.auth}`);
    const invalid: [string, (auth: Auth, name: string) => SendOptions][] = [
      ['a create body that is not JSON', (auth) => createPet('{', auth)],
      ['an empty create body', (auth) => createPet(undefined, auth)],
      ['a create body missing every field', (auth) => createPet({}, auth)],
      ['a create body missing categoryId', (auth, name) => createPet({ name }, auth)],
      ['a create body whose categoryId is a string', (auth, name) => createPet({ name, categoryId: '1' }, auth)],
      ['a create body with status "adopted"', (auth, name) => createPet({ name, categoryId: 1n, status: 'adopted' }, auth)],
      ['a create body that is a JSON array', (auth) => createPet('[]', auth)],
      ['a create body with bytes after the object', (auth, name) => createPet(`{"name":${JSON.stringify(name)},"categoryId":1} x`, auth)],
      ['limit=0', (auth) => listPets('?limit=0', auth)],
      ['limit=101', (auth) => listPets('?limit=101', auth)],
      ['limit=abc', (auth) => listPets('?limit=abc', auth)],
      ['status=adopted', (auth) => listPets('?status=adopted', auth)],
      ['an id no animal has', (auth) => getPet(-4242n, auth)],
      ['a petId that is not an integer', (auth) => getPet('abc', auth)],
      ['a petId beyond int64', (auth) => getPet('9223372036854775808', auth)],
    ];
    const credentials: [string, Auth][] = [
      ['without a key', { auth: 'none' }],
      ...ctx.authVariants.invalid.slice(0, 1).map((v): [string, Auth] => [`with ${v.label}`, asAuth(v)]),
      ...ctx.authVariants.otherScheme.slice(0, 1).map((v): [string, Auth] => [`with ${v.label}`, asAuth(v)]),
    ];
    const probes = credentials.flatMap(([how, auth]) =>
      invalid.map(([what, build]): [string, SendOptions] => [`${what} ${how}`, build(auth, nameFor(auth, what))]),
    );
    const exchanges = await ctx.sendAll(probes.map(([, request]) => request));
    exchanges.forEach((x, i) => {
      const what = probes[i]![0];
      if (x.response?.status === 401) ctx.pass('AUTH-BEFORE-VALIDATION');
      else
        ctx.fail(
          'AUTH-BEFORE-VALIDATION',
          { code: 'KEY_CHECKED_LATE', args: { request: what, received: describeResponse(x) } },
          [x],
          what,
          { kind: 'status', rule: 'AUTH-BEFORE-VALIDATION', expected: [401], what },
        );
    });
  },
});

export const authChecks = [missingKey, invalidKey, wrongScheme, schemeCase, beforeValidation] as const;
