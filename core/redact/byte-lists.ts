/**
 * Bytes written as numbers, read as the text they encode: lists of decimal
 * or hex byte values (`115,107,95`, `73:6b:5f`) and text in UTF-16 written
 * in hex (`73006b00`). One pass each, no backtracking.
 */
import { isHexChar } from './encoded.js';

/**
 * Fewest numbers in a row read as bytes: a byte written as a number in a list
 * of them, decimal (`115,107,95`, as Node writes a Buffer in JSON, `[115, 107,
 * 95]`, `115 107 95`), or two hex digits apart (`73:6b:5f`, `73 6b 5f`, `0x73,
 * 0x6b`, as dumps and fingerprints are written).
 */
export const MIN_LISTED_BYTES = 4;

/**
 * Text in UTF-16 written in hex (.NET's `Encoding.Unicode` bytes, a dump): a
 * character of Latin-1 in four digits, `73006b00` (little-endian) or
 * `0073006b` (big-endian); four characters at least.
 */
export const UTF16_HEX_RUN = /(?:[0-9a-fA-F]{2}00){4,}|(?:00[0-9a-fA-F]{2}){4,}/g;

/**
 * Two numbers of up to three digits (or hex pairs) each between separators,
 * as in every list of {@link MIN_LISTED_BYTES} bytes: one pass for both
 * lists' layers, starting at a separator (cheaper than at a digit, which a
 * page of ids is full of), its answer kept for the text it was asked about.
 */
const LIST_HINT = /[\s,;:-](?:0x)?[0-9a-fA-F]{1,3}[\s,;:-]+(?:0x)?[0-9a-fA-F]{1,3}[\s,;:-]/;
let hinted: { text: string; holds: boolean } = { text: '', holds: false };
export function listHint(text: string): boolean {
  if (hinted.text !== text) hinted = { text, holds: LIST_HINT.test(text) };
  return hinted.holds;
}

/**
 * The bytes of each list of {@link MIN_LISTED_BYTES} numbers or more, each as
 * the unit of its value: a number and the separator before it (a comma or
 * semicolon, whitespace; for hex also `:` and `-`) stand for its byte, so the
 * bytes of a list read as one run of text. One pass, no backtracking.
 */
export function scanByteLists(
  text: string,
  layer: 'decimal bytes' | 'hex bytes',
  emit: (unit: number, start: number, end: number) => void,
): void {
  const n = text.length;
  const hex = layer === 'hex bytes';
  const isDigit = (at: number) => at < n && text.charCodeAt(at) >= 0x30 && text.charCodeAt(at) <= 0x39;
  const isWord = (at: number) => {
    if (at < 0 || at >= n) return false;
    const c = text.charCodeAt(at) | 0x20;
    return (c >= 0x61 && c <= 0x7a) || isDigit(at) || text.charCodeAt(at) === 0x2e;
  };
  const isSeparator = (at: number) => {
    if (at >= n) return false;
    const c = text.charCodeAt(at);
    return c === 0x20 || c === 0x2c || c === 0x3b || (c >= 0x09 && c <= 0x0d) || (hex && (c === 0x3a || c === 0x2d));
  };
  /** The number at `at` and where it ends, or undefined. */
  const itemAt = (at: number): { value: number; end: number } | undefined => {
    if (isWord(at - 1)) return undefined;
    if (hex) {
      const from = text.startsWith('0x', at) ? at + 2 : at;
      if (from + 2 > n || !isHexChar(text.charCodeAt(from)) || !isHexChar(text.charCodeAt(from + 1)) || isWord(from + 2)) return undefined;
      return { value: parseInt(text.slice(from, from + 2), 16), end: from + 2 };
    }
    let end = at;
    while (isDigit(end) && end - at < 4) end++;
    if (end === at || end - at > 3 || isWord(end)) return undefined;
    const value = Number(text.slice(at, end));
    return value <= 255 ? { value, end } : undefined;
  };
  let i = 0;
  while (i < n) {
    const first = hex ? isHexChar(text.charCodeAt(i)) : isDigit(i);
    const head = first ? itemAt(i) : undefined;
    if (!head) {
      i++;
      continue;
    }
    // The run's numbers: each one's value, and the span that stands for it (the separator before it included).
    const values = [head.value];
    const froms = [i];
    const ends = [head.end];
    for (let at = head.end; ;) {
      let next = at;
      while (isSeparator(next)) next++;
      const item = next > at ? itemAt(next) : undefined;
      if (!item) break;
      values.push(item.value);
      froms.push(at);
      ends.push(item.end);
      at = item.end;
    }
    if (values.length >= MIN_LISTED_BYTES) for (let k = 0; k < values.length; k++) emit(values[k]!, froms[k]!, ends[k]!);
    i = values.length >= MIN_LISTED_BYTES ? ends[ends.length - 1]! : head.end;
  }
}

/** Each character of every run of {@link UTF16_HEX_RUN}, from its four digits. */
export function scanUtf16Hex(text: string, emit: (unit: number, start: number, end: number) => void): void {
  UTF16_HEX_RUN.lastIndex = 0;
  for (let run = UTF16_HEX_RUN.exec(text); run; run = UTF16_HEX_RUN.exec(text)) {
    const littleEndian = run[0].endsWith('00') && !run[0].startsWith('00');
    for (let at = run.index; at + 4 <= run.index + run[0].length; at += 4) {
      const [high, low] = littleEndian
        ? [text.slice(at + 2, at + 4), text.slice(at, at + 2)]
        : [text.slice(at, at + 2), text.slice(at + 2, at + 4)];
      emit(parseInt(high + low, 16), at, at + 4);
    }
  }
}
