/**
 * Views of a text with characters left out, each unit mapped back to the
 * characters of the original it came from:
 * - without its separators (every character but letters and digits: white
 *   space, punctuation, symbols, invisible characters, combining marks), so a
 *   secret written with spaces, dashes, zero-width spaces, soft hyphens or a
 *   strike through each character between its characters, or spelt out as a
 *   JSON array of characters, reads whole. The scanner also looks for each
 *   secret's own {@link skeleton} (core/redact/needles.ts): a key its own
 *   separators cut into short runs is still found there. Runs of encoded
 *   characters are not where they were (a word joins the base64 run after
 *   it), so only whole forms and pieces are looked for in such a view, and a
 *   match counts only where {@link cutApart} says it is spelt as a secret is;
 * - without the line breaks inside a run of base64 (MIME and Python's
 *   `encodebytes` wrap it at 76 characters), so a secret's base64 cut by one
 *   is one run again.
 */
import type { Joined, Offsets, View } from './types.js';

let separators: Uint8Array | undefined;
let gaps: RegExp | undefined;

/**
 * A byte per UTF-16 unit, 1 for a separator: neither a letter nor a digit
 * (Unicode's L and N), surrogates aside (an astral letter stays whole). Made
 * at the first ask (about a millisecond).
 */
export function separatorUnits(): Uint8Array {
  if (separators) return separators;
  // Every unit of the Basic Multilingual Plane in one string (surrogates as a letter), its separators marked by one pass.
  const units = new Uint16Array(0x10000);
  for (let u = 0; u < 0x10000; u++) units[u] = u >= 0xd800 && u <= 0xdfff ? 0x41 : u;
  const marked = Buffer.from(units.buffer)
    .toString('utf16le')
    .replace(/[^\p{L}\p{N}]/gu, '\0');
  const table = new Uint8Array(0x10000);
  for (let u = 0; u < 0x10000; u++) if (marked.charCodeAt(u) === 0) table[u] = 1;
  separators = table;
  return table;
}

/** Runs of separators ({@link separatorUnits}), as one class: a replace by pattern is many times a loop's speed. */
function gapPattern(): RegExp {
  if (gaps) return gaps;
  const table = separatorUnits();
  const unit = (c: number) => `\\u${c.toString(16).padStart(4, '0')}`;
  let ranges = '';
  for (let u = 0; u < 0x10000; u++) {
    if (table[u] !== 1) continue;
    let to = u;
    while (to + 1 < 0x10000 && table[to + 1] === 1) to++;
    ranges += to === u ? unit(u) : `${unit(u)}-${unit(to)}`;
    u = to;
  }
  gaps = new RegExp(`[${ranges}]+`, 'g');
  return gaps;
}

/** Line breaks between two base64 characters. */
const WRAPS = /(?<=[A-Za-z0-9+/_-])(?:\r?\n)+(?=[A-Za-z0-9+/_-])/g;

/** The separators of ASCII: the table and the pattern of a text that holds nothing else, made at once. */
const ASCII_SEPARATORS = Uint8Array.from({ length: 0x80 }, (_, c) => (/[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 0 : 1));
const ASCII_GAPS = /[^A-Za-z0-9]+/g;
const NOT_ASCII = /[^\u0000-\u007f]/;

/**
 * The separator table for `text` ({@link separatorUnits}): ASCII's alone for a
 * text of ASCII only (request paths and headers, most bodies), so the table of
 * every unit is made only once a text needs it, not before a run's first request.
 */
export function separatorsOf(text: string): Uint8Array {
  return NOT_ASCII.test(text) ? separatorUnits() : ASCII_SEPARATORS;
}

/** `text` without its separators. */
export function skeleton(text: string): string {
  return text.replace(NOT_ASCII.test(text) ? gapPattern() : ASCII_GAPS, '');
}

/** `view` without its separators; undefined when it holds none, or fewer than `min` other units. */
export function gapView(view: View, min: number): View | undefined {
  return without(view, NOT_ASCII.test(view.text) ? gapPattern() : ASCII_GAPS, min, true);
}

/** `view` without the line breaks inside its base64 runs; undefined when it holds none. */
export function unwrappedView(view: View): View | undefined {
  return view.text.includes('\n') ? without(view, WRAPS, 0, false) : undefined;
}

/** What lies between two characters of a secret spelt out, not between words: invisible characters, or a line break alone. */
const SPELLING_CUT = /^(?:[\p{Cf}\p{M}\u115f\u1160\u180e\u2800\u3164\uffa0]+|[ \t]*\r?\n[ \t]*)$/u;

/** Characters between two cuts of a secret spelt out, at most: one at a time, or in groups (`pk_l ive_ 9fQ2`). */
const LONGEST_GROUP = 4;

/**
 * Whether units `[s, e)` of a gap view are cut apart in the view it was made
 * from as a secret spelt out is, not as words and data are: by invisible
 * characters or a line break alone, or at two places at least with no more
 * than {@link LONGEST_GROUP} characters between two cuts (one, where a cut
 * holds a quote: a JSON array of characters, not JSON's own structure).
 * `--secret-header`, `"doggie","category"`, `"secret","api_key"` and
 * `[1234,5678]` are words and data; `Sekr3\r\nt-KEY`, `p k _ l i v e`,
 * `["p","k"]` and `p\u200bk` are secrets.
 */
export function cutApart(joined: Joined, s: number, e: number): boolean {
  const at = joined.positions();
  let cuts = 0;
  let group = 1;
  let widest = 0;
  let quoted = false;
  for (let j = s + 1; j < e; j++) {
    if (at[j]! === at[j - 1]! + 1) {
      group++;
      continue;
    }
    const cut = joined.source.slice(at[j - 1]! + 1, at[j]!);
    if (SPELLING_CUT.test(cut)) return true;
    quoted ||= cut.includes('"') || cut.includes("'");
    // The characters before the first cut may be the end of a longer run: only a group between two cuts is bounded.
    if (cuts > 0) widest = Math.max(widest, group);
    cuts++;
    group = 1;
  }
  return cuts >= 2 && widest <= (quoted ? 1 : LONGEST_GROUP);
}

/** `view` without what `pattern` (global) matches, its offsets worked out when a match needs them. */
function without(view: View, pattern: RegExp, min: number, joined: boolean): View | undefined {
  const text = view.text.replace(pattern, '');
  if (text.length === view.text.length || text.length < min) return undefined;
  let kept: Int32Array | undefined;
  /** Where each unit of the text is in the view's. */
  const positions = (): Int32Array => {
    if (kept) return kept;
    kept = new Int32Array(text.length);
    let j = 0;
    let at = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(view.text); m; m = pattern.exec(view.text)) {
      for (let i = at; i < m.index; i++) kept[j++] = i;
      at = m.index + m[0].length;
    }
    for (let i = at; i < view.text.length; i++) kept[j++] = i;
    return kept;
  };
  return {
    text,
    ...(joined ? { joined: { source: view.text, positions } } : {}),
    offsets: (): Offsets => {
      const outer = view.offsets?.();
      const at = positions();
      const start = new Int32Array(text.length);
      const end = new Int32Array(text.length);
      for (let j = 0; j < text.length; j++) {
        start[j] = outer ? outer.start[at[j]!]! : at[j]!;
        end[j] = outer ? outer.end[at[j]!]! : at[j]! + 1;
      }
      return { start, end };
    },
  };
}
