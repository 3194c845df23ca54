import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SampledGrams } from '../../../core/grams.js';
import { redactorFor } from '../../../core/redact.js';
import { separatorUnits, skeleton } from '../../../core/redact/gaps.js';

/** `text` with its letters a–f in random case, as hex may come back. */
const recase = (text: string, upper: boolean[]) => [...text].map((ch, i) => (upper[i % upper.length] ? ch.toUpperCase() : ch)).join('');

describe('SampledGrams', { timeout: 30_000 }, () => {
  it('never rules out a text that holds one of the strings, wherever it is, whatever surrounds it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 4, maxLength: 40, unit: 'binary' }), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        fc.string({ unit: 'binary', maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 60 }),
        (strings, pick, before, after) => {
          const s = strings[pick % strings.length]!;
          expect(new SampledGrams(strings).mayHold(before + s + after)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('asked of a text without its separators, never rules out one that holds a string there, and never says yes where no gram of one is', () => {
    const separated = fc.string({ unit: fc.constantFrom('a', 'b', 'K', '7', ' ', '-', '"', ',', '\u200b', '\u00ad', '\n'), maxLength: 40 });
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'k', '7'), minLength: 4, maxLength: 12 }), { minLength: 1, maxLength: 4 }),
        separated,
        fc.array(fc.constantFrom(' ', '-', '\u200b', '","'), { minLength: 1 }),
        separated,
        (strings, before, cuts, after) => {
          const grams = new SampledGrams(strings);
          const spelt = [...strings[0]!].map((ch, i) => `${ch}${cuts[i % cuts.length]}`).join('');
          expect(grams.mayHoldWithout(before + spelt + after, separatorUnits())).toBe(true);
          const text = before + after;
          // Yes only where a gram of a string is in the text without separators, and always where `mayHold` says yes there.
          const bare = skeleton(text);
          if (grams.mayHold(bare)) expect(grams.mayHoldWithout(text, separatorUnits())).toBe(true);
          if (
            !strings.some((s) =>
              [...Array(Math.max(0, s.length - 3)).keys()].some((i) => bare.toLowerCase().includes(s.slice(i, i + 4).toLowerCase())),
            )
          )
            expect(grams.mayHoldWithout(text, separatorUnits())).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('finds hex in either case, letter by letter', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 2, maxLength: 30 }),
        fc.array(fc.boolean(), { minLength: 1 }),
        fc.string({ maxLength: 30 }),
        (bytes, upper, before) => {
          const hex = Buffer.from(bytes).toString('hex');
          expect(new SampledGrams([hex]).mayHold(before + recase(hex, upper))).toBe(true);
        },
      ),
    );
  });

  it('rules out texts without any of their pieces, and says yes to anything when a string is shorter than a piece', () => {
    const grams = new SampledGrams(['Zq9-DISTINCTIVE-key', 'WnE5LURJU1RJTkNUSVZF']);
    expect(grams.mayHold('{"id":12,"name":"Rex","status":"available"}'.repeat(50))).toBe(false);
    expect(grams.mayHold('')).toBe(false);
    expect(new SampledGrams(['abc', 'Zq9-DISTINCTIVE-key']).mayHold('nothing here')).toBe(true);
    expect(new SampledGrams([]).mayHold('anything')).toBe(false);
  });

  it('says no to a text holding grams of a string but not the string (the digits of a page against the hex of a key)', () => {
    const grams = new SampledGrams(['3132333435363738']);
    expect(grams.mayHold('3132333435363738')).toBe(true);
    expect(grams.mayHold('{"id":3132,"categoryId":3334353,"n":63738,"m":31323334_35363738}')).toBe(false);
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{8,20}$/), fc.stringMatching(/^[0-9,:"{}]{0,80}$/), (s, filler) => {
        // Every gram of `s`, each where a sampled place may fall, but `s` itself broken by a comma each time.
        const text = `${filler}${[...s.slice(1)].map((_, i) => `${s.slice(0, i + 1)},${s.slice(i + 1)}`).join(filler)}`;
        fc.pre(!text.includes(s));
        expect(new SampledGrams([s]).mayHold(text)).toBe(false);
      }),
    );
  });
});

describe('the redactor behind its sampled grams', () => {
  it('finds a piece of the base64 of the key in any letter case (a header name folds it), whatever surrounds it', () => {
    const key = 'Zq9-DISTINCTIVE-key-7781xyzW';
    const r = redactorFor(key);
    const base64 = Buffer.from(key).toString('base64');
    fc.assert(
      fc.property(
        fc.string({ maxLength: 100 }),
        fc.string({ maxLength: 100 }),
        fc.nat(base64.length - 20),
        fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
        (before, after, from, upper) => {
          // Ten characters: what eight characters of the key, encoded, always decide (core/redact/needles.ts).
          const piece = [...base64.slice(from, from + 10)].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join('');
          expect(r.leaks(before + piece + after)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds the key and its pieces wherever they are in a long text', () => {
    const key = 'Zq9-DISTINCTIVE-key-7781xyzW';
    const r = redactorFor(key);
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300 }),
        fc.string({ maxLength: 300 }),
        fc.nat(key.length - 8),
        fc.integer({ min: 8, max: key.length }),
        (before, after, from, length) => {
          const piece = key.slice(from, Math.min(key.length, from + length));
          fc.pre(piece.length >= 8);
          expect(r.leaks(before + piece + after)).toBe(true);
          expect(r.leaks(before + Buffer.from(`Bearer ${key}`).toString('base64') + after)).toBe(true);
          expect(r.leaks(before + Buffer.from(key).toString('hex').toUpperCase() + after)).toBe(true);
          // Nested encodings, each found in a view decoded more than once; and base64 of the Basic header, a secret of its own.
          expect(r.leaks(before + encodeURIComponent(encodeURIComponent(piece)) + after)).toBe(true);
          expect(
            r.leaks(
              before + JSON.stringify(JSON.stringify(piece).replace(/[a-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)) + after,
            ),
          ).toBe(true);
          expect(
            r.leaks(before + Buffer.from(`Basic ${Buffer.from(`conformance:${key}`).toString('base64')}`).toString('base64') + after),
          ).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
