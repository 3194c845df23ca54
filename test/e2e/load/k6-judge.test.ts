/**
 * The k6 export judges every answer (suites/load/export/k6-judge.ts): the
 * judgement is cut out of an exported script and run here on real answers, of
 * the reference (every check passes) and of variants that break what the load
 * phase judges (each fails the check that names it). k6 itself is not run:
 * it is not a dependency, and the script type-checks against @types/k6 in
 * export-load.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { renderK6 } from '../../../suites/load/export/k6.js';
import { JUDGE_BEGIN, JUDGE_END } from '../../../suites/load/export/k6-judge.js';
import { builtinProfiles, parseThreshold } from '../../../suites/load/profiles.js';
import type { Handler } from '../../../reference/handler.js';
import { DISTINCTIVE_KEY, withServer } from '../../helpers.js';

type Asked = { limit?: number | null; status?: string | null; id?: string; sent?: string };
type Judge = (op: string, probe: boolean, asked: Asked, status: number, text: string) => Record<string, boolean>;

/** The judgement of an exported smoke script, as k6 would run it. */
function judgeOfScript(): Judge {
  const profile = builtinProfiles.smoke;
  const { script } = renderK6({
    profile,
    thresholds: profile.thresholds.map((t) => parseThreshold(t, 'smoke')),
    command: 'export-load --profile smoke --format k6',
  });
  expect(script).toMatch(/"checks": \[\s*"rate==1"\s*\]/);
  const body = script.slice(script.indexOf(JUDGE_BEGIN), script.indexOf(JUDGE_END));
  return new Function(`${body}\nreturn judgeAnswer;`)() as Judge;
}

/** What one request of each kind gets from the server at `url`, judged. */
async function judgeAnswers(url: string): Promise<Record<string, boolean>> {
  const judge = judgeOfScript();
  const keyed = { authorization: `Bearer ${DISTINCTIVE_KEY}`, 'content-type': 'application/json' };
  const sent = JSON.stringify({ name: 'k6 judge 1', categoryId: 1, status: 'pending' });
  const created = await fetch(`${url}/pets`, { method: 'POST', headers: keyed, body: sent });
  const createdText = await created.text();
  const id = /"id"\s*:\s*(-?\d+)/.exec(createdText)?.[1];
  const list = await fetch(`${url}/pets?limit=5&status=pending`, { headers: keyed });
  const fetched = await fetch(`${url}/pets/${id}`, { headers: keyed });
  const probe = await fetch(`${url}/pets`, {});
  return {
    ...judge('createPet', false, { sent }, created.status, createdText),
    ...judge('listPets', false, { limit: 5, status: 'pending' }, list.status, await list.text()),
    ...judge('getPet', false, { id: id! }, fetched.status, await fetched.text()),
    ...judge('listPets', true, {}, probe.status, await probe.text()),
  };
}

/** A variant answering createPet with `rewrite` of what the reference answered. */
const createdAs =
  (rewrite: (status: number, body: Record<string, unknown>) => { status: number; body: unknown }): ((inner: Handler) => Handler) =>
  (inner) =>
  async (request) => {
    const answer = await inner(request);
    if (request.method !== 'POST' || answer.status !== 201) return answer;
    return { ...answer, ...rewrite(answer.status, answer.body as Record<string, unknown>) };
  };

describe('the k6 export checks each answer as the load phase judges it', () => {
  it('every check passes on the reference', async () => {
    const checks = await withServer({}, judgeAnswers);
    expect(Object.keys(checks).length).toBeGreaterThanOrEqual(7);
    expect(Object.entries(checks).filter(([, ok]) => !ok)).toEqual([]);
  });

  it.each([
    ['createPet answered 200', createdAs((_, body) => ({ status: 200, body })), 'createPet: 201 with a Pet'],
    ['"status": null', createdAs((status, body) => ({ status, body: { ...body, status: null } })), 'createPet: 201 with a Pet'],
    ['an extra enum value', createdAs((status, body) => ({ status, body: { ...body, status: 'adopted' } })), 'createPet: 201 with a Pet'],
    [
      'an id beyond int64',
      createdAs((status, body) => ({
        status,
        body: `{"id":9223372036854775808,"name":${JSON.stringify(body.name)},"categoryId":1,"status":"pending"}`,
      })),
      'createPet: 201 with a Pet',
    ],
    [
      'another name',
      createdAs((status, body) => ({ status, body: { ...body, name: 'someone else' } })),
      'createPet: the name, category and status sent',
    ],
  ])('fails on %s', async (_, wrap, failing) => {
    const checks = await withServer({ wrap }, judgeAnswers);
    expect(checks[failing]).toBe(false);
  });

  it('fails a listing past its limit, and a 401 without an Error body', async () => {
    const wrap =
      (inner: Handler): Handler =>
      async (request) => {
        if (request.method === 'GET' && request.path === '/pets' && !request.headers.authorization)
          return { status: 401, headers: { 'www-authenticate': 'Bearer' }, body: 'no' };
        const answer = await inner(request);
        if (request.method === 'GET' && request.path === '/pets') {
          const pet = { id: 1n, name: 'a', categoryId: 1n, status: 'pending' };
          return { ...answer, body: Array.from({ length: 6 }, () => pet) };
        }
        return answer;
      };
    const checks = await withServer({ wrap }, judgeAnswers);
    expect(checks['listPets: at most the limit (20 when absent)']).toBe(false);
    expect(checks['without a key: 401 with an Error body']).toBe(false);
    expect(checks['createPet: 201 with a Pet']).toBe(true);
  });
});
