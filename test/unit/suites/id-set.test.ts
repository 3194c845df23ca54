/**
 * The set of ids the run knows of (suites/id-set.ts): exact, whatever the ids (in sequence, scattered, negative, at
 * and beyond the signed 64-bit range), as a `Set<bigint>` is; and what StoreState keeps them in, with no object per id
 * (a load profile adds every created id to it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StoreState } from '../../../suites/check.js';
import { IdSet } from '../../../suites/id-set.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Ids as targets hand them out: small and in sequence, near the int64 edges, anywhere in int64, beyond it. */
const id = fc.oneof(
  fc.bigInt({ min: 0n, max: 300n }),
  fc.bigInt({ min: -130n, max: 130n }),
  fc.bigInt({ min: INT64_MAX - 130n, max: INT64_MAX + 3n }),
  fc.bigInt({ min: INT64_MIN - 3n, max: INT64_MIN + 130n }),
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
);

describe('IdSet', () => {
  it('answers has and size as a Set<bigint> given the same ids', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), id), { maxLength: 400 }), (operations) => {
        const ids = new IdSet();
        const model = new Set<bigint>();
        for (const [add, value] of operations) {
          if (add) {
            ids.add(value);
            model.add(value);
          } else expect(ids.has(value)).toBe(model.has(value));
          expect(ids.size).toBe(model.size);
        }
        for (const [, value] of operations) expect(ids.has(value)).toBe(model.has(value));
      }),
      { numRuns: 300 },
    );
  });

  it('holds many ids, in sequence and scattered, and no other', () => {
    const ids = new IdSet();
    for (let i = 0n; i < 50_000n; i++) ids.add(1_000n + i);
    for (let i = 0n; i < 5_000n; i++) ids.add(i * 7_919_999_977n - 2n ** 62n);
    expect(ids.size).toBe(55_000);
    expect(ids.has(999n)).toBe(false);
    expect(ids.has(1_000n)).toBe(true);
    expect(ids.has(50_999n)).toBe(true);
    expect(ids.has(51_000n)).toBe(false);
    expect(ids.has(4_999n * 7_919_999_977n - 2n ** 62n)).toBe(true);
    expect(ids.has(4_999n * 7_919_999_977n - 2n ** 62n + 1n)).toBe(false);
  });

  it('is what StoreState keeps its ids in: no object per id, however long a load profile runs', () => {
    expect(new StoreState().ids).toBeInstanceOf(IdSet);
  });
});
