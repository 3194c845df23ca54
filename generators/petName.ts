import fc from 'fast-check';
import { ASSIGNED_BY, ASSIGNED_RANGES } from './assigned-by-unicode.js';
import { scalarValue } from './scalarValue.js';

/**
 * Longest name valid bodies use, in code points, UTF-16 code units and UTF-8
 * bytes alike: maximum lengths are not shown by the document, so a server may
 * count in any of them; longer names are only observed (GAP-NAME-LENGTH).
 */
export const MAX_NAME_CODE_POINTS = 32;
/** Longest name valid bodies use in UTF-8 bytes. */
export const MAX_NAME_UTF8_BYTES = 64;

/**
 * What a generated name follows: one text for every name (a plain run's
 * `pctest-xxxx `), or texts drawn with the name (a certification run's natural
 * names, each a whole name followed by a space: generators/names.ts), so that
 * no part is common to every name.
 */
export type NamePrefix = string | fc.Arbitrary<string>;

/** Constraints of {@link petName}. */
export interface PetNameConstraints {
  /** Every name starts with it (or one of its draws). */
  prefix: NamePrefix;
}

/**
 * Names as hostile as a string can be while staying valid: any Unicode scalar
 * value (controls, NUL, astral planes, combining marks, right-to-left text) or
 * whole graphemes (emoji sequences), after `prefix`, at most 32 UTF-16 code
 * units and 64 UTF-8 bytes in all. No lone surrogates: they are not Unicode text.
 */
export function petName({ prefix }: PetNameConstraints): fc.Arbitrary<string> {
  if (typeof prefix !== 'string') return prefix.chain((drawn) => petName({ prefix: drawn }));
  const room = MAX_NAME_CODE_POINTS - [...prefix].length;
  if (room < 1) throw new RangeError(`petName: prefix "${prefix}" leaves no room in ${MAX_NAME_CODE_POINTS} code points`);
  const suffix = fc.oneof(
    // fast-check's 'binary' unit, without the 80 MB table fast-check keeps for it (see scalarValue).
    fc.string({ unit: scalarValue(), minLength: 1, maxLength: room }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.max(1, Math.floor(room / 8)) }),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: room }),
  );
  return suffix
    .map((s) => prefix + s)
    .filter((name) => name.length <= MAX_NAME_CODE_POINTS && Buffer.byteLength(name) <= MAX_NAME_UTF8_BYTES);
}

/**
 * Code points assigned by Unicode 6.0 (2010), as ranges. The ordinary
 * repertoire stops there: a target validating names with an older Unicode
 * database (Java 7, Python 3.3 and ICU 4.6 know 6.0 or 6.1) may refuse a
 * character assigned since as unassigned, and this runtime's database, much
 * newer, cannot tell which are; so anything later may be refused, and ordinary
 * names never hold it.
 */
const ASSIGNED: readonly (readonly [number, number])[] = ASSIGNED_RANGES.flatMap((line) =>
  line.split(' ').map((range) => range.split('-').map((hex) => parseInt(hex, 16)) as [number, number]),
);

function assignedLongAgo(cp: number): boolean {
  let [lo, hi] = [0, ASSIGNED.length - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [from, to] = ASSIGNED[mid]!;
    if (cp < from) hi = mid - 1;
    else if (cp > to) lo = mid + 1;
    else return true;
  }
  return false;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/**
 * True for a code point every target must accept in a short name: a letter,
 * mark, digit, punctuation or symbol of any script, emoji included, assigned
 * by Unicode {@link ASSIGNED_BY}. U+0020 is ordinary too, inside a name only.
 */
export function ordinaryCodePoint(cp: number): boolean {
  return assignedLongAgo(cp) && PRINTABLE.test(String.fromCodePoint(cp));
}

/** What a code point outside the ordinary repertoire is, for the observation. */
function kindOf(ch: string): string {
  if (/\p{Cc}/u.test(ch)) return 'a control character';
  if (/\p{Cs}/u.test(ch)) return 'an unpaired surrogate';
  if (/\p{Noncharacter_Code_Point}/u.test(ch)) return 'a noncharacter';
  if (/\p{Cf}/u.test(ch)) return 'a format character';
  if (/\p{Co}/u.test(ch)) return 'a private-use character';
  if (/\p{Z}/u.test(ch)) return 'a space other than U+0020';
  if (/\p{Cn}/u.test(ch)) return 'an unassigned code point';
  return `a character assigned after Unicode ${ASSIGNED_BY}, which an older Unicode database does not know`;
}

/**
 * Why a target may refuse `name` (GAP-NAME-REPERTOIRE): it holds a control,
 * format, private-use or unassigned code point, a noncharacter, an unpaired
 * surrogate, a space other than U+0020, a character newer than Unicode
 * {@link ASSIGNED_BY}, or a space at either end. Undefined when it is a name of
 * ordinary printable characters ({@link ordinaryCodePoint}), which must be accepted.
 */
export function outsideRepertoire(name: string): string | undefined {
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (cp !== 0x20 && !ordinaryCodePoint(cp)) return `it holds U+${cp.toString(16).toUpperCase().padStart(4, '0')}, ${kindOf(ch)}`;
  }
  return /^ | $/.test(name) ? 'it has a space at one end' : undefined;
}

/**
 * Names of ordinary printable characters ({@link ordinaryCodePoint}) drawn
 * from every script Unicode {@link ASSIGNED_BY} has (a range of assigned code
 * points first, so small scripts come up as often as CJK), with inner spaces,
 * after `prefix`: the names every target must accept. Short enough for the
 * bounds of {@link petName} even when every character is astral.
 */
export function ordinaryPetName({ prefix }: PetNameConstraints): fc.Arbitrary<string> {
  if (typeof prefix !== 'string') return prefix.chain((drawn) => ordinaryPetName({ prefix: drawn }));
  const room = Math.min(
    Math.floor((MAX_NAME_CODE_POINTS - prefix.length) / 2),
    Math.floor((MAX_NAME_UTF8_BYTES - Buffer.byteLength(prefix)) / 4),
  );
  if (room < 2) throw new RangeError(`ordinaryPetName: prefix "${prefix}" leaves no room in ${MAX_NAME_CODE_POINTS} code points`);
  const printable = fc
    .integer({ min: 0, max: ASSIGNED.length - 1 })
    .chain((i) => fc.integer({ min: ASSIGNED[i]![0], max: ASSIGNED[i]![1] }))
    .filter(ordinaryCodePoint);
  const char = fc
    .oneof({ arbitrary: printable, weight: 8 }, { arbitrary: fc.constant(0x20), weight: 1 })
    .map((cp) => String.fromCodePoint(cp));
  return fc
    .array(char, { minLength: 1, maxLength: room })
    .map((chars) => chars.join('').trim())
    .filter((suffix) => suffix.length > 0 && !/^\p{M}/u.test(suffix))
    .map((suffix) => prefix + suffix);
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

/**
 * Ordinary names of many scripts, tried before any generated one so that every
 * run sends them whatever the seed: a target that refuses a script (Latin
 * beyond ASCII, Cyrillic, Thai, Georgian, Armenian, Tamil, Greek, emoji) fails
 * CREATE-RESPONSE. Each fits the bounds of {@link petName} after a prefix of 12.
 */
export const ORDINARY_NAME_SUFFIXES: readonly string[] = ['Ștefan Олексій і', 'สมชาย ნინო', 'Nguyễn Հայկ', 'தமிழ் Ἀθηνᾶ 🐕'];
