import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Pieces } from '../../../core/redact/pieces.js';

/** Every window a full scan finds: each start `stride` apart hashed and looked up, as Pieces did before it sampled grams. */
function everyWindow(pieces: Pieces, owners: ReadonlyMap<string, string>, v: string, stride: number, fold: boolean) {
  const hits: [number, number, string][] = [];
  const windows = new Set(pieces.windows());
  for (let i = 0; i + pieces.size <= v.length; i += stride) {
    const window = v.slice(i, i + pieces.size);
    const key = fold ? window.replace(/[A-Z]/g, (c) => c.toLowerCase()) : window;
    if (windows.has(key)) hits.push([i, i + pieces.size, owners.get(key)!]);
  }
  return hits;
}

/** Text in which pieces of the secrets do occur: random runs, and slices of a secret in random letter case. */
const textOf = (secrets: readonly string[]) =>
  fc
    .array(
      fc.oneof(
        fc.string({ unit: fc.constantFrom(...'gHqz \\\n\u00e9\u4e2d\ud83d\ude00~'), maxLength: 30 }),
        fc.string({ unit: fc.constantFrom(...'abcdefABCDEF0123456789"{}:,'), maxLength: 30 }),
        fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.boolean()).map(([which, from, length, upper]) => {
          const secret = secrets[which % secrets.length]!;
          const start = from % secret.length;
          const slice = secret.slice(start, start + 4 + (length % 20));
          return upper ? slice.toUpperCase() : slice;
        }),
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join(''));

// Each case scans about 1000 texts, and the first also warms fast-check up: seconds on a busy machine of 2 cores.
describe('Pieces', { timeout: 30_000 }, () => {
  for (const [size, stride, fold] of [
    [8, 1, false],
    [8, 3, true],
    [12, 4, true],
    [4, 1, false],
    [5, 2, true],
  ] as const)
    it(`finds exactly the windows a scan of every start finds, in order (size ${size}, stride ${stride}${fold ? ', either case' : ''})`, () => {
      fc.assert(
        fc.property(
          fc.array(fc.string({ unit: fc.constantFrom(...'abcdefXYZ-0123_+/\\%é"'), minLength: size, maxLength: 40 }), {
            minLength: 1,
            maxLength: 3,
          }),
          fc.context(),
          (secrets, ctx) => {
            const pieces = new Pieces({ size, stride, foldAscii: fold });
            const owners = new Map<string, string>();
            secrets.forEach((secret, k) => {
              pieces.add(secret, `<SECRET_${k}>`);
              const folded = fold ? secret.replace(/[A-Z]/g, (c) => c.toLowerCase()) : secret;
              for (let i = 0; i + size <= folded.length; i++)
                if (!owners.has(folded.slice(i, i + size))) owners.set(folded.slice(i, i + size), `<SECRET_${k}>`);
            });
            fc.assert(
              fc.property(textOf(secrets), (v) => {
                ctx.log(JSON.stringify(v));
                const found: [number, number, string][] = [];
                pieces.find(v, (s, e, owner) => found.push([s, e, owner]));
                expect(found).toEqual(everyWindow(pieces, owners, v, stride, fold));
              }),
              { numRuns: 25 },
            );
          },
        ),
        { numRuns: 40 },
      );
    });

  it('refuses a window shorter than the gram it samples', () => {
    expect(() => new Pieces({ size: 3 })).toThrow(RangeError);
  });
});
