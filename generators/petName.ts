import fc from 'fast-check';

/**
 * Longest name valid bodies use, in code points, UTF-16 code units and UTF-8
 * bytes alike: maximum lengths are not shown by the document, so a server may
 * count in any of them; longer names are only observed (GAP-NAME-LENGTH).
 */
export const MAX_NAME_CODE_POINTS = 32;
/** Longest name valid bodies use in UTF-8 bytes. */
export const MAX_NAME_UTF8_BYTES = 64;

/** Constraints of {@link petName}. */
export interface PetNameConstraints {
  /** Every name starts with it, so animals the suite created can be found in a shared store. */
  prefix: string;
}

/**
 * Names as hostile as a string can be while staying valid: any Unicode scalar
 * value (controls, NUL, astral planes, combining marks, right-to-left text) or
 * whole graphemes (emoji sequences), after `prefix`, at most 32 UTF-16 code
 * units and 64 UTF-8 bytes in all. No lone surrogates: they are not Unicode text.
 */
export function petName({ prefix }: PetNameConstraints): fc.Arbitrary<string> {
  const room = MAX_NAME_CODE_POINTS - [...prefix].length;
  if (room < 1) throw new RangeError(`petName: prefix "${prefix}" leaves no room in ${MAX_NAME_CODE_POINTS} code points`);
  const suffix = fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: room }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.max(1, Math.floor(room / 8)) }),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: room }),
  );
  return suffix.map((s) => prefix + s).filter((name) => name.length <= MAX_NAME_CODE_POINTS && Buffer.byteLength(name) <= MAX_NAME_UTF8_BYTES);
}

/**
 * Suffixes where name handling usually breaks, used before any generated
 * name: whitespace at the ends (trimming), a decomposed sequence (Unicode
 * normalisation), control characters and NUL (filtering, C strings), astral
 * characters (UTF-16 truncation), a byte-order mark, right-to-left text,
 * quotes and backslashes (escaping).
 */
export const HOSTILE_NAME_SUFFIXES: readonly string[] = [
  '  padded  ',
  'Cafe\u0301 (NFD)',
  'tab\there\u0000nul\u001fus',
  '\u{1F415}\u{1F408}\u{1F9AE}',
  '\uFEFFbom',
  '\u05E9\u05DC\u05D5\u05DD \u202Ertl',
  'quote" back\\slash \'',
  '\r\n',
];
