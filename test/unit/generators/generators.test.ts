import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN, stringifyJson } from '../../../core/json.js';
import {
  int64,
  invalidNewPet,
  listQuery,
  MAX_NAME_CODE_POINTS,
  MAX_NAME_UTF8_BYTES,
  newPet,
  newPetMissingField,
  ordinaryPetName,
  otherCase,
  outsideRepertoire,
  petName,
  scalarValue,
  toBody,
} from '../../../generators/index.js';
import { newPetDefect } from '../../../suites/checks/createPet.js';

const prefix = 'pctest-0000 ';

describe('generators', () => {
  it('int64 stays within int64 and reaches past 2^53', () => {
    const values = fc.sample(int64(), { seed: 1, numRuns: 500 });
    for (const v of values) expect(v >= INT64_MIN && v <= INT64_MAX).toBe(true);
    expect(values.some((v) => v > 2n ** 53n || v < -(2n ** 53n))).toBe(true);
    expect(values).toContain(INT64_MAX);
  });

  it('petName keeps the prefix, at most 32 UTF-16 units and 64 UTF-8 bytes, and well-formed Unicode', () => {
    fc.assert(
      fc.property(petName({ prefix }), (name) => {
        expect(name.startsWith(prefix)).toBe(true);
        expect(name.length).toBeLessThanOrEqual(MAX_NAME_CODE_POINTS);
        expect(Buffer.byteLength(name)).toBeLessThanOrEqual(64);
        expect(name.isWellFormed()).toBe(true);
      }),
      { seed: 2, numRuns: 300 },
    );
  });

  // petName's unit: fast-check's 'binary' unit made arithmetically, so that no run holds fast-check's 80 MB table of it.
  it("scalarValue generates, shrinks and recognises exactly what fast-check's binary unit does", () => {
    const binary = (maxLength: number) => fc.string({ unit: 'binary', minLength: 1, maxLength });
    const scalar = (maxLength: number) => fc.string({ unit: scalarValue(), minLength: 1, maxLength });
    for (const maxLength of [1, 8, 20]) {
      for (let seed = 0; seed < 40; seed++)
        expect(fc.sample(scalar(maxLength), { seed, numRuns: 20 })).toEqual(fc.sample(binary(maxLength), { seed, numRuns: 20 }));
    }
    // Shrinking walks the same path, from a generated value and from a given example (no context: the unmapper's work).
    const astral = (s: string) => [...s].some((c) => c.codePointAt(0)! >= 0x10000);
    for (let seed = 0; seed < 20; seed++) {
      const run = (arbitrary: fc.Arbitrary<string>) =>
        fc.check(
          fc.property(arbitrary, (s) => !astral(s) && !s.includes('\u0000')),
          { seed, numRuns: 50, examples: [['tab\there\u0000 \u{1F415}\uFEFF\u202E"\\']] },
        );
      const [a, b] = [run(scalar(40)), run(binary(40))];
      expect([a.counterexample, a.numShrinks, a.counterexamplePath]).toEqual([b.counterexample, b.numShrinks, b.counterexamplePath]);
    }
    for (const value of [
      '',
      'a',
      '\u0000',
      '\uD7FF',
      '\uD800',
      '\uDFFF',
      '\uE000',
      '\uD83D\uDE00',
      'ab',
      '\u{10FFFF}',
      '\uD800a',
      5,
      null,
      undefined,
    ]) {
      expect(fc.string({ unit: scalarValue(), minLength: 1, maxLength: 1 }).canShrinkWithoutContext(value), String(value)).toBe(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).canShrinkWithoutContext(value),
      );
    }
    // Thousands of fast-check runs: 2 to 3 s of one core on a quiet machine, ×10 for a shared one.
  }, 30_000);

  it('petName refuses a prefix that leaves no room', () => {
    expect(() => petName({ prefix: 'x'.repeat(40) })).toThrow(/petName/);
  });

  it('names of ordinary printable characters of any script must be accepted; only controls, format and private-use characters, noncharacters, unpaired surrogates, other spaces, unassigned or recent code points and spaces at the ends may be refused', () => {
    const ordinary = [
      'Nguyễn Văn',
      'Ștefan',
      'Олексій і Ганна',
      'Հայկ',
      'தமிழ்',
      'สมชาย',
      'ნინო',
      'Ἀθηνᾶ',
      'ǅemal ǈ',
      '李小龙',
      '한국',
      'שלום',
      'مرحبا ٣',
      'नमस्ते',
      'Rex 🐕 😃',
      '€5 — «ok» ½ ∑ →',
      'e\u0301',
    ];
    for (const name of ordinary) expect(outsideRepertoire(`${prefix}${name}`), name).toBeUndefined();
    const refusable: [string, RegExp][] = [
      ['tab\there', /U\+0009, a control character/],
      ['del\u007f', /U\+007F, a control character/],
      ['nel\u0085', /U\+0085, a control character/],
      ['lone\ud800', /U\+D800, an unpaired surrogate/],
      ['non\ufdd0', /U\+FDD0, a noncharacter/],
      ['non\u{1fffe}', /U\+1FFFE, a noncharacter/],
      ['zwj\u200d', /U\+200D, a format character/],
      ['\ufeffbom', /U\+FEFF, a format character/],
      ['private\ue000', /U\+E000, a private-use character/],
      ['no\u00a0break', /U\+00A0, a space other than U\+0020/],
      ['gap\u0378', /U\+0378, an unassigned code point/],
      ['guide dog \u{1f9ae}', /U\+1F9AE, a character assigned after Unicode 6\.0/],
      ['bitcoin \u20bf', /U\+20BF, a character assigned after Unicode 6\.0/],
      ['trailing ', /a space at one end/],
    ];
    for (const [name, why] of refusable) expect(outsideRepertoire(`${prefix}${name}`), JSON.stringify(name)).toMatch(why);
    expect(outsideRepertoire(' leading')).toMatch(/a space at one end/);
  });

  it('ordinaryPetName draws from many scripts, every name ordinary and within the bounds of petName', () => {
    const names = fc.sample(ordinaryPetName({ prefix }), { seed: 5, numRuns: 500 });
    const scripts = new Set<string>();
    for (const name of names) {
      expect(name.startsWith(prefix)).toBe(true);
      expect(outsideRepertoire(name), JSON.stringify(name)).toBeUndefined();
      expect(name.length).toBeLessThanOrEqual(MAX_NAME_CODE_POINTS);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_NAME_UTF8_BYTES);
      for (const script of [
        'Latin',
        'Greek',
        'Cyrillic',
        'Armenian',
        'Hebrew',
        'Arabic',
        'Devanagari',
        'Tamil',
        'Thai',
        'Georgian',
        'Han',
        'Hangul',
        'Ethiopic',
        'Cherokee',
      ]) {
        if (new RegExp(`\\p{Script=${script}}`, 'u').test(name.slice(prefix.length))) scripts.add(script);
      }
    }
    expect(scripts.size).toBeGreaterThanOrEqual(8);
    expect(names.some((name) => /\S \S/u.test(name.slice(prefix.length)))).toBe(true);
  });

  it('newPet bodies are valid NewPets', () => {
    fc.assert(
      fc.property(newPet({ prefix }), (pet) => {
        expect(newPetDefect(stringifyJson(toBody(pet)))).toBeUndefined();
      }),
      { seed: 3, numRuns: 200 },
    );
  });

  it('defective bodies are invalid NewPets, judged on their exact bytes', () => {
    for (const arbitrary of [invalidNewPet({ prefix }), newPetMissingField({ prefix })]) {
      fc.assert(
        fc.property(arbitrary, ({ body }) => {
          expect(newPetDefect(stringifyJson(body))).toBeDefined();
        }),
        { seed: 4, numRuns: 300 },
      );
    }
  });

  // RFC 8259 §8.3: member names compare code unit by code unit; Go's encoding/json matches them case-insensitively.
  it('missing-field bodies sometimes hold the missing member under another case of its name, never under the name itself', () => {
    const required = ['name', 'categoryId'];
    const bodies = fc.sample(newPetMissingField({ prefix }), { seed: 6, numRuns: 300 });
    const respelt = bodies.filter(({ body }) =>
      Object.keys(body).some((key) => !required.includes(key) && required.some((f) => f.toLowerCase() === key.toLowerCase())),
    );
    expect(respelt.length).toBeGreaterThan(30);
    for (const { body, defect } of respelt) {
      expect(
        required.some((f) => !(f in body)),
        defect,
      ).toBe(true);
      expect(defect).toMatch(/given as "/);
    }
    const spellings = new Set(
      required.flatMap((field) => fc.sample(otherCase(field), { seed: 7, numRuns: 200 }).map((s) => `${field}:${s}`)),
    );
    for (const entry of spellings) {
      const [field, spelling] = entry.split(':') as [string, string];
      expect(spelling).not.toBe(field);
      expect(spelling.toLowerCase()).toBe(field.toLowerCase());
    }
    for (const expected of ['name:NAME', 'name:Name', 'categoryId:categoryid', 'categoryId:CATEGORYID'])
      expect(spellings).toContain(expected);
  });

  it('listQuery gives limits in 1..100 and PetStatus values', () => {
    for (const q of fc.sample(listQuery(), { seed: 5, numRuns: 200 })) {
      if (q.limit !== undefined) expect(q.limit >= 1 && q.limit <= 100).toBe(true);
      if (q.status !== undefined) expect(['available', 'pending', 'sold']).toContain(q.status);
    }
  });

  // No regression: a dependency bump must not silently change what a seed generates.
  it('generates the same data for a fixed seed', () => {
    const sample = {
      newPet: fc.sample(newPet({ prefix }), { seed: 42, numRuns: 5 }).map((p) => stringifyJson(toBody(p))),
      invalid: fc.sample(invalidNewPet({ prefix }), { seed: 42, numRuns: 5 }).map((d) => `${d.defect}: ${stringifyJson(d.body)}`),
      query: fc.sample(listQuery(), { seed: 42, numRuns: 5 }),
    };
    expect(sample).toMatchSnapshot();
  });
});
