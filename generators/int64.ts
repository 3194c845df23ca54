import fc from 'fast-check';
import { INT64_MAX, INT64_MIN } from '../core/json.js';

const TWO_53 = 2n ** 53n;

/** Values where int64 handling usually breaks: the ends of the range and both sides of 2^53. */
export const INT64_EDGES: readonly bigint[] = [
  INT64_MIN,
  INT64_MIN + 1n,
  -TWO_53 - 1n,
  -TWO_53,
  -1n,
  0n,
  1n,
  TWO_53 - 1n,
  TWO_53,
  TWO_53 + 1n,
  INT64_MAX - 1n,
  INT64_MAX,
];

/**
 * Any int64, as a bigint: the edges above, small values, and the whole range
 * (most of which lies beyond 2^53, where a JavaScript double loses digits).
 * Shrinks towards 0.
 */
export function int64(): fc.Arbitrary<bigint> {
  return fc.oneof(
    { arbitrary: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), weight: 3 },
    { arbitrary: fc.constantFrom(...INT64_EDGES), weight: 2 },
    { arbitrary: fc.bigInt({ min: -1000n, max: 1000n }), weight: 1 },
  );
}
