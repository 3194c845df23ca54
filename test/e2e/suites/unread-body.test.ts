/**
 * Bodies longer than the suite reads (1 MiB): what they hold is not judged, so
 * a store full of long names never fails a correct target, while what the
 * status and headers say still does.
 */
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../../core/http.js';
import { MAX_JSON_TOKENS, stringifyJson, type Json } from '../../../core/json.js';
import type { Handler } from '../../../reference/handler.js';
import { startReference } from '../../../reference/server.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult } from '../../../result/model.js';
import { DISTINCTIVE_KEY, withServer } from '../../helpers.js';
import { expectNotStarved } from '../../starvation.js';
import { notAsked } from '../../../result/policy.js';

// A test runs the suite against bodies of megabytes (1.8 MB nested 900 000 deep): up to 13 s on a quiet two-core machine,
// ×6 for a runner that shares its cores.
vi.setConfig({ testTimeout: 80_000 });

const NOT_READ =
  /longer than the suite reads of a response \(maxBodyBytes, 1 MiB unless the run set another bound\), so what it holds could not be judged/;

const run = (baseUrl: string) => runConformance({ baseUrl, apiKey: DISTINCTIVE_KEY, seed: 20241205, numRuns: 10, load: 'none' });

/** The messages of a rule's findings of `outcome`. */
function messages(result: ConformanceResult, rule: string, outcome: 'fail' | 'inconclusive'): string[] {
  return (result.rules.find((r) => r.id === rule)?.checks ?? []).flatMap((c) =>
    c.findings.filter((f) => f.outcome === outcome).map((f) => f.message),
  );
}

describe('a body longer than the suite reads', () => {
  it('leaves the rules that rest on it inconclusive: a correct store of long names stays conformant', async () => {
    const server = await startReference({ apiKey: DISTINCTIVE_KEY });
    try {
      // Four "sold" animals of 300 KB names: any page that lists them is longer than the bound.
      for (let i = 0; i < 4; i++) {
        const created = await fetch(`${server.url}/pets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${DISTINCTIVE_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `${i}`.repeat(300_000), categoryId: 1, status: 'sold' }),
        });
        expect(created.status).toBe(201);
      }
      const result = await run(server.url);
      expect(result.rules.filter((r) => r.outcome === 'fail').map((r) => r.id)).toEqual([]);
      expect(result.summary.verdict).toBe('conformant');
      for (const rule of ['LIST-RESPONSE', 'LIST-STATUS-FILTER', 'LIST-STATUS-COMPLETE', 'LIST-LIMIT-BOUNDS', 'PET-SCHEMA'])
        expect(messages(result, rule, 'inconclusive').join('\n'), rule).toMatch(NOT_READ);
    } finally {
      await server.close();
    }
  });

  it('still fails a wrong status answered with a body longer than the bound', async () => {
    // Invalid bodies answered 422, not 400, with an Error too long to read.
    const huge =
      (inner: Handler): Handler =>
      async (request) => {
        const response = await inner(request);
        if (request.method !== 'POST' || response.status !== 400) return response;
        return {
          status: 422,
          headers: { 'content-type': 'application/json' },
          body: { code: 'invalid', message: 'x'.repeat(2 * DEFAULT_MAX_BODY_BYTES), status: 422 },
        };
      };
    const result = await withServer({ wrap: huge }, (url) => run(url));
    expect(result.summary.verdict).toBe('non-conformant');
    expect(result.rules.find((r) => r.id === 'CREATE-REJECT-MISSING')?.outcome).toBe('fail');
    expect(messages(result, 'CREATE-REJECT-MISSING', 'fail').join('\n')).toMatch(
      /Expected 400 .* Received 422 \(application\/json\), a body longer than \d+ bytes \(not read to its end\)/,
    );
    expect(messages(result, 'ERROR-SCHEMA', 'inconclusive').join('\n')).toMatch(NOT_READ);
    expect(messages(result, 'ERROR-SCHEMA', 'fail')).toEqual([]);
  });
});

describe('a body nested deeper, or holding more JSON, than the suite parses', () => {
  /** getPet's 200 answers rewritten by `body` (given the Pet's JSON text). */
  const getPetAnswers =
    (body: (pet: string) => string) =>
    (inner: Handler): Handler =>
    async (request) => {
      const response = await inner(request);
      return request.method === 'GET' && /^\/pets\/\d+$/.test(request.path) && response.status === 200
        ? { ...response, body: body(stringifyJson(response.body as Json)) }
        : response;
    };
  /** A read bound that takes in the 1.8 MB bodies below. */
  const deepRun = (baseUrl: string) =>
    runConformance({ baseUrl, apiKey: DISTINCTIVE_KEY, seed: 20241205, numRuns: 10, load: 'none', maxBodyBytes: 4 * 1024 * 1024 });
  const NESTED = 900_000;

  it('1.8 MB of arrays nested 900 000 deep where a Pet belongs: parsed to the depth bound in linear time, failed as no Pet, and the run goes on', async () => {
    const result = await withServer({ wrap: getPetAnswers(() => `${'['.repeat(NESTED)}${']'.repeat(NESTED)}`) }, deepRun);
    expectNotStarved(result.summary.reason);
    expect(result.summary.reason).not.toMatch(/stopped answering/);
    expect(
      result.rules
        .filter((r) => r.outcome === 'fail')
        .map((r) => r.id)
        .sort(),
    ).toEqual(['GET-RESPONSE', 'PET-SCHEMA']);
    expect(messages(result, 'GET-RESPONSE', 'fail').join('\n')).toMatch(/a body that is not a Pet: \/ must be object/);
  });

  it('a Pet whose extra member nests 1.8 MB deep is a Pet: what is not parsed is nothing the interface constrains', async () => {
    const history = `${'{"a":'.repeat(NESTED / 3)}1${'}'.repeat(NESTED / 3)}`;
    const result = await withServer({ wrap: getPetAnswers((pet) => `${pet.slice(0, -1)},"history":${history}}`) }, deepRun);
    expectNotStarved(result.summary.reason);
    expect(result.summary.reason).not.toMatch(/stopped answering/);
    expect(result.rules.filter((r) => r.outcome !== 'pass' && !notAsked(r)).map((r) => `${r.id} ${r.outcome}`)).toEqual([]);
    expect(result.summary.verdict).toBe('conformant');
  });

  it(`a body of more than ${MAX_JSON_TOKENS} tokens is not parsed: inconclusive, unless what comes before the bound already is no Pet`, async () => {
    const numbers = `[${'1,'.repeat(MAX_JSON_TOKENS)}1]`;
    const extra = await withServer({ wrap: getPetAnswers((pet) => `${pet.slice(0, -1)},"history":${numbers}}`) }, run);
    expect(extra.rules.filter((r) => r.outcome === 'fail').map((r) => r.id)).toEqual([]);
    for (const rule of ['GET-RESPONSE', 'PET-SCHEMA'])
      expect(messages(extra, rule, 'inconclusive').join('\n'), rule).toMatch(
        /holds more JSON than the suite parses of a response \(more than 100000 brackets, commas and colons\), so what it holds could not be judged/,
      );
    const array = await withServer({ wrap: getPetAnswers(() => numbers) }, run);
    expect(array.rules.filter((r) => r.outcome === 'fail').map((r) => r.id)).toEqual(['GET-RESPONSE']);
  });
});
