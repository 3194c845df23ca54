/**
 * Cheats as fixtures (issue 21): proxies in front of the reference that answer
 * the suite correctly and everyone else wrongly, each recognising the suite by
 * another tell of its traffic (test/fixtures/cheats/). None may be certified,
 * and the reasons name a rule; the honest pass-through on the same forwarding
 * core is certified. Each cheat is first shown to cheat: an ordinary client
 * (Node's fetch, a curl User-Agent) gets a wrong answer where the honest proxy
 * gives the right one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type Certification, certify } from '../../../certification/certify.js';
import { startReference } from '../../../reference/server.js';
import { rules } from '../../../spec/rules.js';
import { type Cheat, honest, startProxy } from '../../fixtures/cheats/forward.js';
import { cheats } from '../../fixtures/cheats/index.js';
import { burstCheat } from '../../fixtures/cheats/burst.js';
import { learnerCheat } from '../../fixtures/cheats/learner.js';
import { DISTINCTIVE_KEY, pool } from '../../helpers.js';
import { within } from '../../starvation.js';

const PRODUCT = { name: 'Acme Petstore', version: '2.4.1', contact: 'certification@acme.example' };
const HONEST: Cheat = { name: 'honest', tell: 'none: every request forwarded', handle: () => honest };
/**
 * Certifications run one at a time: each proxy shares this process's event loop with the suite, and two side by side
 * took as long in all (76 s against 77 s for the seven) while stretching the load profile's latencies.
 */
const AT_ONCE = 1;
/**
 * What one certification behind a proxy may take here. Behind an honest proxy ~7 s alone on an idle machine; behind a
 * cheat the run also waits out what the cheat answers wrongly (header-shape: 74 s on an idle machine, its process
 * using 0.05 cores: waiting, not working), ~200 s for all eight. Three times the slowest, so only a stall reaches it.
 */
const CERTIFY_BOUND_MS = 240_000;

/** The last answer an ordinary client got creating and reading back an animal, before and after the suite's run, and what certify made of the run. */
interface Outcome {
  ordinary: { status: number; body: string };
  ordinaryAfter: { status: number; body: string };
  certification: Certification;
}

/**
 * An ordinary client creates an animal and reads it back: Node's fetch under a curl User-Agent, as any integration
 * would. Where an honest store answers 201 and 200 with the name it was given, a cheat answers otherwise.
 */
async function ordinaryCreate(url: string): Promise<Outcome['ordinary']> {
  const headers = {
    'User-Agent': 'curl/8.5.0',
    Accept: '*/*',
    'Content-Type': 'application/json',
    Authorization: `Bearer ${DISTINCTIVE_KEY}`,
  };
  const created = await fetch(`${url}/pets`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'Biscuit', categoryId: 1, status: 'available' }),
  });
  const body = await created.text();
  const id = created.status === 201 ? /"id":(-?\d+)/.exec(body)?.[1] : undefined;
  if (id === undefined) return { status: created.status, body };
  const read = await fetch(`${url}/pets/${id}`, { headers });
  return { status: read.status, body: await read.text() };
}

/** A fresh reference behind a fresh `cheat`: the ordinary client, certify, the ordinary client again. */
async function certifyBehind(cheat: Cheat): Promise<Outcome> {
  const reference = await startReference({ apiKey: DISTINCTIVE_KEY });
  const proxy = await startProxy(reference.url, cheat.handle());
  try {
    const ordinary = await ordinaryCreate(proxy.url);
    const certification = await certify({ baseUrl: proxy.url, apiKey: DISTINCTIVE_KEY, product: PRODUCT });
    return { ordinary, certification, ordinaryAfter: await ordinaryCreate(proxy.url) };
  } finally {
    await proxy.close();
    await reference.close();
  }
}

const outcomes = new Map<string, Outcome>();
const ruleIds = new RegExp(`\\b(${rules.map((r) => r.id).join('|')})\\b`);
/** What an honest store answers the ordinary client: 201, then 200 for the read, with the name it was given. */
const createdAsAsked = (ordinary: Outcome['ordinary']) => ordinary.status === 200 && JSON.parse(ordinary.body).name === 'Biscuit';

beforeAll(
  async () => {
    const all = [HONEST, ...cheats];
    // Each certification has its own bound: one the machine starved says so ("starved: …"), instead of the whole hook timing out.
    const runs = pool(
      all.map(
        (cheat) => async () =>
          outcomes.set(cheat.name, await within(CERTIFY_BOUND_MS, `certify behind ${cheat.name}`, certifyBehind(cheat))),
      ),
      AT_ONCE,
    );
    const failed = (await Promise.allSettled(runs)).filter((r) => r.status === 'rejected');
    if (failed.length > 0) throw (failed[0] as PromiseRejectedResult).reason;
  },
  Math.ceil((cheats.length + 1) / AT_ONCE) * CERTIFY_BOUND_MS + 10_000,
);

describe('cheating proxies', () => {
  it('the honest pass-through on the same forwarding core is certified, and answers the ordinary client right', () => {
    const { ordinary, ordinaryAfter, certification } = outcomes.get(HONEST.name)!;
    expect(createdAsAsked(ordinary), ordinary.body).toBe(true);
    expect(createdAsAsked(ordinaryAfter), ordinaryAfter.body).toBe(true);
    expect(certification.manifest.reasons).toEqual([]);
    expect(certification.manifest.certified).toBe(true);
  });

  it('there are at least five cheats, each keyed on a tell of its own', () => {
    expect(cheats.length).toBeGreaterThanOrEqual(5);
    expect(new Set(cheats.map((c) => c.tell)).size).toBe(cheats.length);
  });

  for (const cheat of cheats) {
    it(`${cheat.name} (${cheat.tell}) cheats an ordinary client, and is not certified`, () => {
      const { ordinary, ordinaryAfter, certification } = outcomes.get(cheat.name)!;
      // The fixture really cheats: where the honest proxy created Biscuit, this one did not, or says otherwise.
      expect(createdAsAsked(ordinary), `${ordinary.status} ${ordinary.body}`).toBe(false);
      // The cheat still cheats after the run: the suite's traffic taught the learner nothing (no tell left to learn from).
      if (cheat === learnerCheat) expect(createdAsAsked(ordinaryAfter), `${ordinaryAfter.status} ${ordinaryAfter.body}`).toBe(false);
      expect(certification.manifest.certified, `${cheat.name} was certified`).toBe(false);
      expect(certification.manifest.reasons.join('\n')).toMatch(ruleIds);
    });
  }

  it(
    `${burstCheat.name} (${burstCheat.tell}) cheats an ordinary client's filtered listing, and is not certified`,
    async () => {
      // Its own certification (not beside the others: the ordinary client it cheats lists by status, not creates).
      const reference = await startReference({ apiKey: DISTINCTIVE_KEY });
      const proxy = await startProxy(reference.url, burstCheat.handle());
      try {
        const headers = { 'User-Agent': 'curl/8.5.0', Accept: '*/*', Authorization: `Bearer ${DISTINCTIVE_KEY}` };
        await fetch(`${proxy.url}/pets`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Biscuit', categoryId: 1, status: 'available' }),
        });
        const listed = await (await fetch(`${proxy.url}/pets?status=available`, { headers })).text();
        expect(listed).toContain('"status":null');
        const certification = await within(
          CERTIFY_BOUND_MS,
          'certify behind burst',
          certify({ baseUrl: proxy.url, apiKey: DISTINCTIVE_KEY, product: PRODUCT }),
        );
        expect(certification.manifest.certified, 'burst was certified').toBe(false);
        expect(certification.manifest.reasons.join('\n')).toMatch(ruleIds);
      } finally {
        await proxy.close();
        await reference.close();
      }
    },
    CERTIFY_BOUND_MS,
  );

  it("the learner does learn: after one request in the tool's own shape, it answers an ordinary client right", async () => {
    const reference = await startReference({ apiKey: DISTINCTIVE_KEY });
    const proxy = await startProxy(reference.url, learnerCheat.handle());
    try {
      expect(createdAsAsked(await ordinaryCreate(proxy.url))).toBe(false);
      const suiteLike = await fetch(`${proxy.url}/pets?limit=1`, {
        headers: { 'user-agent': 'petstore-conformance', accept: 'application/json', authorization: `Bearer ${DISTINCTIVE_KEY}` },
      });
      expect(suiteLike.status).toBe(200);
      expect(createdAsAsked(await ordinaryCreate(proxy.url))).toBe(true);
    } finally {
      await proxy.close();
      await reference.close();
    }
  });
});
