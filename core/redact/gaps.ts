/**
 * Views of a text with characters left out, each unit mapped back to the
 * characters of the original it came from:
 * - without its separators (white space, punctuation, invisible characters),
 *   so a secret written with spaces, dashes, zero-width spaces or soft hyphens
 *   between its characters, or spelt out as a JSON array of characters, reads
 *   whole. The scanner also looks for each secret's own {@link skeleton}
 *   (core/redact/needles.ts): a key its own separators cut into short runs is
 *   still found there. Runs of encoded characters are not where they were
 *   (a word joins the base64 run after it), so only whole forms and pieces
 *   are looked for in such a view (`joined`);
 * - without the line breaks inside a run of base64 (MIME and Python's
 *   `encodebytes` wrap it at 76 characters), so a secret's base64 cut by one
 *   is one run again.
 */
import type { Offsets, View } from './types.js';

/**
 * Separators: ASCII other than letters and digits, Latin-1 punctuation and
 * symbols, and the blocks of spaces, punctuation and invisible characters
 * (general punctuation, CJK punctuation, variation selectors, the byte order
 * mark). Letters and digits of any script stay.
 */
const SEPARATOR_RANGES: readonly (readonly [number, number])[] = [
  [0x00, 0x2f],
  [0x3a, 0x40],
  [0x5b, 0x60],
  [0x7b, 0xa9],
  [0xab, 0xb4],
  [0xb6, 0xb9],
  [0xbb, 0xbf],
  [0xd7, 0xd7],
  [0xf7, 0xf7],
  [0x34f, 0x34f],
  [0x2000, 0x206f],
  [0x2e00, 0x2e7f],
  [0x3000, 0x303f],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
];

const unit = (c: number) => `\\u${c.toString(16).padStart(4, '0')}`;
const GAPS = new RegExp(`[${SEPARATOR_RANGES.map(([from, to]) => `${unit(from)}-${unit(to)}`).join('')}]+`, 'g');

let separators: Uint8Array | undefined;
/** A byte per UTF-16 unit, 1 for a separator (core/grams.ts `mayHoldWithout`), made at the first ask. */
export function separatorUnits(): Uint8Array {
  if (!separators) {
    separators = new Uint8Array(0x10000);
    for (const [from, to] of SEPARATOR_RANGES) separators.fill(1, from, to + 1);
  }
  return separators;
}

/** Line breaks between two base64 characters. */
const WRAPS = /(?<=[A-Za-z0-9+/_-])(?:\r?\n)+(?=[A-Za-z0-9+/_-])/g;

/** `text` without its separators. */
export function skeleton(text: string): string {
  return text.replace(GAPS, '');
}

/** `view` without its separators; undefined when it holds none, or fewer than `min` other units. */
export function gapView(view: View, min: number): View | undefined {
  return without(view, GAPS, min, true);
}

/** Separators a word holds: one of them alone between two runs cuts words, not secrets. */
const WORD_SEPARATORS = new Set([' ', '-', '_', '.', '/']);

/**
 * Whether units `[s, e)` of a gap view of `text` (its offsets in `text`) are
 * cut apart there as a secret written with separators is, not as words are:
 * at two places or more, or at one by anything but a single space, hyphen,
 * underscore, dot or slash. `--secret-header` is not a secret `SecretHeader…`
 * spelt out; `Sekr3\r\nt-KEY`, `p k _ l i v e` and `["p","k"]` are.
 */
export function cutApart(text: string, offsets: Offsets, s: number, e: number): boolean {
  let cuts = 0;
  for (let j = s + 1; j < e; j++) {
    const gap = offsets.start[j]! - offsets.end[j - 1]!;
    if (gap <= 0) continue;
    if (gap > 1 || !WORD_SEPARATORS.has(text[offsets.end[j - 1]!]!) || ++cuts >= 2) return true;
  }
  return false;
}

/** `view` without the line breaks inside its base64 runs; undefined when it holds none. */
export function unwrappedView(view: View): View | undefined {
  return view.text.includes('\n') ? without(view, WRAPS, 0, false) : undefined;
}

/** `view` without what `pattern` (global) matches, its offsets worked out when a match needs them. */
function without(view: View, pattern: RegExp, min: number, joined: boolean): View | undefined {
  const text = view.text.replace(pattern, '');
  if (text.length === view.text.length || text.length < min) return undefined;
  return {
    text,
    ...(joined ? { joined } : {}),
    offsets: (): Offsets => {
      const outer = view.offsets?.();
      const start = new Int32Array(text.length);
      const end = new Int32Array(text.length);
      let j = 0;
      const keep = (from: number, to: number) => {
        for (let i = from; i < to; i++, j++) {
          start[j] = outer ? outer.start[i]! : i;
          end[j] = outer ? outer.end[i]! : i + 1;
        }
      };
      let at = 0;
      pattern.lastIndex = 0;
      for (let m = pattern.exec(view.text); m; m = pattern.exec(view.text)) {
        keep(at, m.index);
        at = m.index + m[0].length;
      }
      keep(at, view.text.length);
      return { start, end };
    },
  };
}
