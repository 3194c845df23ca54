/**
 * Natural names (issue 21): what a certification run names its animals, so
 * that no constant part tells a target the suite's animals from others. The
 * vocabulary and the names drawn from it stay within the ordinary repertoire;
 * two runs of different seeds share no marker; a plain run keeps its prefix.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { naturalName, PET_NAME_VOCABULARY } from '../../../generators/names.js';
import { MAX_NAME_CODE_POINTS, MAX_NAME_UTF8_BYTES, outsideRepertoire } from '../../../generators/petName.js';
import { naturalNamesFor, runConformance } from '../../../suites/engine.js';
import type { ConformanceResult } from '../../../result/model.js';
import { DISTINCTIVE_KEY, reportErrors, withServer } from '../../helpers.js';

/** Within the bounds every valid body keeps to (generators/petName.ts). */
const withinBounds = (name: string) =>
  [...name].length <= MAX_NAME_CODE_POINTS && name.length <= MAX_NAME_CODE_POINTS && Buffer.byteLength(name) <= MAX_NAME_UTF8_BYTES;

/** The scripts a name is written in, by Unicode script property. */
const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Arabic',
  'Hebrew',
  'Devanagari',
  'Thai',
  'Georgian',
  'Armenian',
  'Tamil',
] as const;
const scriptsOf = (name: string) => SCRIPTS.filter((script) => new RegExp(`\\p{Script=${script}}`, 'u').test(name));

/** The words the suite's names carried before natural names, and their stems: none may appear in a certification's. */
const MARKERS = [
  'pctest',
  'pc-',
  'petconf',
  'suite-',
  'auth',
  'plain name',
  'load ',
  'concurrent',
  'extra',
  'encoding',
  'rejected',
  'padded',
  '(NFD)',
  'bom',
  'rtl',
  'back\\slash',
];

/** Runs the suite against the reference and returns the result and every name a create body carried. */
async function namesSent(options: {
  seed: number;
  natural: boolean;
}): Promise<{ result: ConformanceResult; names: string[]; bodies: string[] }> {
  const names: string[] = [];
  const bodies: string[] = [];
  const result = await withServer({}, (baseUrl) =>
    runConformance({
      baseUrl,
      apiKey: DISTINCTIVE_KEY,
      seed: options.seed,
      numRuns: 10,
      load: 'none',
      ...(options.natural ? { names: 'natural' as const } : {}),
      onExchange: (x) => {
        if (x.request.method !== 'POST' || !x.request.body) return;
        const body = Buffer.from(x.request.body).toString('utf8');
        bodies.push(body);
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          return; // a malformed body the suite sends on purpose
        }
        const name = (parsed as { name?: unknown } | null)?.name;
        if (typeof name === 'string') names.push(name);
      },
    }),
  );
  return { result, names, bodies };
}

/** Substrings of `length` code points of `text`. */
function pieces(text: string, length: number): Set<string> {
  const chars = [...text];
  return new Set(chars.slice(0, Math.max(0, chars.length - length + 1)).map((_, i) => chars.slice(i, i + length).join('')));
}

describe('natural names', () => {
  it('the vocabulary is ordinary animal names of many scripts: every entry within the ordinary repertoire and the bounds of a valid name', () => {
    const entries = Object.values(PET_NAME_VOCABULARY).flat();
    expect(entries.filter((name) => outsideRepertoire(name) !== undefined || !withinBounds(name) || name.trim() !== name)).toEqual([]);
    expect(new Set(entries.flatMap(scriptsOf)).size).toBeGreaterThanOrEqual(12);
    for (const name of fc.sample(naturalName(), { seed: 7, numRuns: 500 }))
      expect(outsideRepertoire(name) === undefined && withinBounds(name), JSON.stringify(name)).toBe(true);
  });

  it('what a run names its animals for a purpose is derived from the seed: ordinary and within bounds, the hostile ones within bounds, none holding a form of the key', () => {
    const key = 'Bella-Luna-Max-Milo-Coco';
    for (const seed of [1, 2, 3, 20_301_205]) {
      const names = naturalNamesFor(seed, key);
      expect(naturalNamesFor(seed, key).name('auth')).toBe(names.name('auth'));
      const ordinary = [names.name('auth'), names.name('load 3'), names.stem('extra').trimEnd(), ...names.ordinary('create')];
      for (const name of ordinary) expect(outsideRepertoire(name) === undefined && withinBounds(name), JSON.stringify(name)).toBe(true);
      const hostile = names.hostile('store');
      expect(hostile).toHaveLength(8);
      for (const name of hostile) expect(withinBounds(name), JSON.stringify(name)).toBe(true);
      expect(hostile.filter((name) => outsideRepertoire(name) !== undefined).length).toBeGreaterThanOrEqual(6);
      // The key is made of vocabulary words: no drawn name holds a piece of it that would be withheld.
      for (const name of [...ordinary, ...hostile]) expect(name.toLowerCase()).not.toContain('bella-luna');
    }
    expect(new Set([1, 2, 3, 4, 5].map((seed) => naturalNamesFor(seed, key).name('auth'))).size).toBeGreaterThan(1);
  });

  it('in a natural-names run no name carries a marker: two seeds share no piece of 4 code points across all their names, which span many scripts; the replay of a seed sends the same names', async () => {
    const [a, b, again] = await Promise.all([
      namesSent({ seed: 11, natural: true }),
      namesSent({ seed: 12, natural: true }),
      namesSent({ seed: 11, natural: true }),
    ]);
    // The same names, whichever order their answers came back in (requests in flight at once end in any order).
    expect(again.names.toSorted()).toEqual(a.names.toSorted());
    for (const { result, names } of [a, b]) {
      expect(result.summary.verdict, result.summary.reason).toBe('conformant');
      expect(result).not.toHaveProperty('namePrefix');
      expect(result.options.names).toBe('natural');
      expect(reportErrors(result)).toEqual([]);
      expect(names.length).toBeGreaterThan(50);
      expect(new Set(names.flatMap(scriptsOf)).size).toBeGreaterThanOrEqual(8);
      // Most names are ordinary, as customers' are; the hostile ones are the few the repertoire checks need.
      expect(names.filter((name) => outsideRepertoire(name) === undefined).length).toBeGreaterThan(names.length / 2);
    }
    const all = [...a.names, ...b.names];
    for (const marker of MARKERS)
      expect(
        all.filter((name) => name.toLowerCase().includes(marker.toLowerCase())),
        marker,
      ).toEqual([]);
    // Bodies that are not JSON (sent on purpose) carry no marker either.
    for (const marker of ['pctest', 'rejected', 'plain name', 'concurrent', 'encoding'])
      expect(
        [...a.bodies, ...b.bodies].filter((body) => body.toLowerCase().includes(marker)),
        marker,
      ).toEqual([]);
    const shortest = all.reduce((x, y) => ([...x].length <= [...y].length ? x : y));
    const common = [...pieces(shortest, 4)].filter((piece) => all.every((name) => name.includes(piece)));
    expect(common).toEqual([]);
    // Nor is one piece in many names: a constant part of the generated names (most of them) would be.
    const counts = new Map<string, number>();
    for (const name of all) for (const piece of pieces(name, 4)) counts.set(piece, (counts.get(piece) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > all.length / 10)).toEqual([]);
    // Nor does any word (a run of letters) of 4 or more appear in every name of both runs.
    const words = new Set(all.flatMap((name) => name.match(/\p{L}{4,}/gu) ?? []));
    expect([...words].filter((word) => all.every((name) => name.includes(word)))).toEqual([]);
  }, 120_000);

  it('a plain run keeps its prefix: every name starts with it, and the report says so', async () => {
    const { result, names } = await namesSent({ seed: 11, natural: false });
    expect(result.namePrefix).toMatch(/^pctest-[0-9a-f]{4} $/);
    expect(result.options).not.toHaveProperty('names');
    expect(names.length).toBeGreaterThan(50);
    expect(names.filter((name) => !name.startsWith(result.namePrefix!))).toEqual([]);
  }, 60_000);
});
