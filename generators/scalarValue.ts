import fc from 'fast-check';

/** Code points below the surrogates (U+0000 to U+D7FF). */
const BELOW_SURROGATES = 0xd800;
/** The surrogates, U+D800 to U+DFFF: not Unicode scalar values. */
const SURROGATES = 0x800;
/** Unicode scalar values in all: 1 112 064. */
const SCALAR_VALUES = 0x110000 - SURROGATES;

let unit: fc.Arbitrary<string> | undefined;

/**
 * One Unicode scalar value (any code point but a surrogate) as a string, the
 * unit of a hostile name. It is fast-check's `unit: 'binary'` made
 * arithmetically: the same index (`nat` up to 1 112 063) maps to the same
 * character, and a character maps back to the same index, so a seed generates
 * and shrinks exactly what `fc.string({ unit: 'binary' })` does. fast-check
 * builds that unit from a table it inverts into a Map of all 1 112 064
 * characters the first time a string of it is made (about 80 MB of heap, kept
 * for the life of the process); this one holds nothing. Built once, so
 * fast-check's per-unit caches (the slices of a string) stay warm.
 */
export function scalarValue(): fc.Arbitrary<string> {
  unit ??= fc.nat({ max: SCALAR_VALUES - 1 }).map(
    (index) => String.fromCodePoint(index < BELOW_SURROGATES ? index : index + SURROGATES),
    (value) => {
      // As fast-check's table: exactly one scalar value, else not a value this arbitrary makes (it throws, as the table's lookup does).
      const codePoint = typeof value === 'string' ? value.codePointAt(0) : undefined;
      if (
        codePoint === undefined ||
        String.fromCodePoint(codePoint) !== value ||
        (codePoint >= BELOW_SURROGATES && codePoint < BELOW_SURROGATES + SURROGATES)
      ) {
        throw new Error('scalarValue: not one Unicode scalar value');
      }
      return codePoint < BELOW_SURROGATES ? codePoint : codePoint - SURROGATES;
    },
  );
  return unit;
}
