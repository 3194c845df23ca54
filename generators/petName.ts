import fc from 'fast-check';
import { scalarValue } from './scalarValue.js';

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
    // fast-check's 'binary' unit, without the 80 MB table fast-check keeps for it (see scalarValue).
    fc.string({ unit: scalarValue(), minLength: 1, maxLength: room }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.max(1, Math.floor(room / 8)) }),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: room }),
  );
  return suffix.map((s) => prefix + s).filter((name) => name.length <= MAX_NAME_CODE_POINTS && Buffer.byteLength(name) <= MAX_NAME_UTF8_BYTES);
}

/**
 * The ordinary printable repertoire: code points every target must accept in a
 * short name. Letters, marks, digits, punctuation, symbols and emoji of many
 * scripts, each range assigned since Unicode 6.1 (2012) at the latest, so a
 * target validating with an older Unicode database still knows them. Inner
 * spaces are U+0020 only. A name outside it (controls, format characters,
 * noncharacters, private use, unassigned or recent code points, other spaces,
 * whitespace at either end) may be refused with a 400 Error (GAP-NAME-REPERTOIRE).
 */
export const ORDINARY_RANGES: readonly (readonly [number, number])[] = [
  [0x21, 0x7e], // Basic Latin, printable
  [0xa1, 0xac], // Latin-1 punctuation and symbols (U+00AD, a format character, left out)
  [0xae, 0xff], // Latin-1 symbols and letters
  [0x100, 0x17f], // Latin Extended-A
  [0x300, 0x36f], // Combining Diacritical Marks
  [0x391, 0x3a1], // Greek capitals (U+03A2 is unassigned)
  [0x3a3, 0x3c9], // Greek
  [0x410, 0x44f], // Cyrillic
  [0x5d0, 0x5ea], // Hebrew letters
  [0x621, 0x63a], // Arabic letters
  [0x660, 0x669], // Arabic-Indic digits
  [0x905, 0x939], // Devanagari letters
  [0x2010, 0x2027], // General Punctuation (dashes, quotes, bullets)
  [0x20a0, 0x20b5], // Currency symbols
  [0x2190, 0x21ff], // Arrows
  [0x2200, 0x22ff], // Mathematical Operators
  [0x3041, 0x3094], // Hiragana
  [0x30a1, 0x30fa], // Katakana
  [0x4e00, 0x9fa5], // CJK Unified Ideographs (Unicode 1.1)
  [0xac00, 0xd7a3], // Hangul syllables
  [0x1f400, 0x1f43e], // Animal emoji (Unicode 6.0)
  [0x1f600, 0x1f640], // Faces (Unicode 6.1)
];

function ordinaryCodePoint(cp: number): boolean {
  return ORDINARY_RANGES.some(([lo, hi]) => cp >= lo && cp <= hi);
}

/**
 * Why a target may refuse `name` (GAP-NAME-REPERTOIRE), or undefined when it is
 * a name of ordinary printable characters that must be accepted.
 */
export function outsideRepertoire(name: string): string | undefined {
  const control = /[\u0000-\u001f\u007f-\u009f]/.exec(name)?.[0];
  if (control !== undefined) return `it holds U+${control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}, a control character`;
  if (/^ | $/.test(name)) return 'it has a space at one end';
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x20 || ordinaryCodePoint(cp)) continue;
    return `it holds U+${cp.toString(16).toUpperCase().padStart(4, '0')}, outside the ordinary printable repertoire`;
  }
  return undefined;
}

/**
 * Names of ordinary printable characters of many scripts ({@link ORDINARY_RANGES}),
 * with inner spaces, after `prefix`: the names every target must accept. Same
 * bounds as {@link petName}.
 */
export function ordinaryPetName({ prefix }: PetNameConstraints): fc.Arbitrary<string> {
  const room = MAX_NAME_CODE_POINTS - [...prefix].length;
  if (room < 2) throw new RangeError(`ordinaryPetName: prefix "${prefix}" leaves no room in ${MAX_NAME_CODE_POINTS} code points`);
  const weights = ORDINARY_RANGES.map(([lo, hi]) => ({ arbitrary: fc.integer({ min: lo, max: hi }), weight: 1 }));
  const char = fc.oneof(...weights, { arbitrary: fc.constant(0x20), weight: 2 }).map((cp) => String.fromCodePoint(cp));
  return fc
    .array(char, { minLength: 1, maxLength: room })
    .map((chars) => chars.join('').trim())
    .filter((suffix) => suffix.length > 0 && !/^\p{M}/u.test(suffix))
    .map((suffix) => prefix + suffix)
    .filter((name) => name.length <= MAX_NAME_CODE_POINTS && Buffer.byteLength(name) <= MAX_NAME_UTF8_BYTES);
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
