import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN, stringifyJson } from '../../core/json.js';
import { int64, invalidNewPet, listQuery, MAX_NAME_CODE_POINTS, newPet, newPetMissingField, petName, scalarValue, toBody } from '../../generators/index.js';
import { newPetDefect } from '../../suites/checks/createPet.js';

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
  it('scalarValue generates, shrinks and recognises exactly what fast-check\'s binary unit does', () => {
    const binary = (maxLength: number) => fc.string({ unit: 'binary', minLength: 1, maxLength });
    const scalar = (maxLength: number) => fc.string({ unit: scalarValue(), minLength: 1, maxLength });
    for (const maxLength of [1, 8, 20]) {
      for (let seed = 0; seed < 40; seed++) expect(fc.sample(scalar(maxLength), { seed, numRuns: 20 })).toEqual(fc.sample(binary(maxLength), { seed, numRuns: 20 }));
    }
    // Shrinking walks the same path, from a generated value and from a given example (no context: the unmapper's work).
    const astral = (s: string) => [...s].some((c) => c.codePointAt(0)! >= 0x10000);
    for (let seed = 0; seed < 20; seed++) {
      const run = (arbitrary: fc.Arbitrary<string>) => fc.check(fc.property(arbitrary, (s) => !astral(s) && !s.includes('\u0000')), { seed, numRuns: 50, examples: [['tab\there\u0000 \u{1F415}\uFEFF\u202E"\\']] });
      const [a, b] = [run(scalar(40)), run(binary(40))];
      expect([a.counterexample, a.numShrinks, a.counterexamplePath]).toEqual([b.counterexample, b.numShrinks, b.counterexamplePath]);
    }
    for (const value of ['', 'a', '\u0000', '\uD7FF', '\uD800', '\uDFFF', '\uE000', '\uD83D\uDE00', 'ab', '\u{10FFFF}', '\uD800a', 5, null, undefined]) {
      expect(fc.string({ unit: scalarValue(), minLength: 1, maxLength: 1 }).canShrinkWithoutContext(value), String(value)).toBe(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).canShrinkWithoutContext(value));
    }
  });

  it('petName refuses a prefix that leaves no room', () => {
    expect(() => petName({ prefix: 'x'.repeat(40) })).toThrow(/petName/);
  });

  it('newPet bodies are valid NewPets', () => {
    fc.assert(fc.property(newPet({ prefix }), (pet) => {
        expect(newPetDefect(stringifyJson(toBody(pet)))).toBeUndefined();
      }), { seed: 3, numRuns: 200 });
  });

  it('defective bodies are invalid NewPets, judged on their exact bytes', () => {
    for (const arbitrary of [invalidNewPet({ prefix }), newPetMissingField({ prefix })]) {
      fc.assert(fc.property(arbitrary, ({ body }) => {
        expect(newPetDefect(stringifyJson(body))).toBeDefined();
      }), { seed: 4, numRuns: 300 });
    }
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
