/**
 * Decoding views: a text as it is and decoded up to {@link MAX_LAYERS} layers
 * deep (escapes, percent-encoding, NULs between characters, in any order), each unit of a view mapped
 * back to the characters of the original that encode it, so a match in a view
 * replaces exactly those.
 */
import { isUtf8 } from 'node:buffer';
import { isHexChar } from './encoded.js';

/** Where each UTF-16 unit of a decoded view came from in the original: unit j from `start[j]` to `end[j]` (exclusive). */
export interface Offsets {
  start: Int32Array;
  end: Int32Array;
}

/**
 * A decoded view of a text: `text`, and where each of its UTF-16 units came
 * from in the original. The offsets are worked out only when a match in the
 * view needs them: matches are rare, and the offsets of a long body take four
 * times its text (a sampled page of animals, under load, many times a second).
 */
export interface View {
  text: string;
  /** Undefined for the identity view. */
  offsets?: () => Offsets;
}

/** Layers of encoding undone, one inside another, at most: `%2551` (percent twice), `\\u0051` (a JSON escape inside a JSON string), and a mix. */
const MAX_LAYERS = 3;

/**
 * The text as it is, and decoded one, two and up to {@link MAX_LAYERS} layers
 * deep, in every order of the two layers (escapes, percent): a key holding a
 * literal "%41" still shows in a JSON-escaped echo, a percent-encoded JSON
 * escape is found, and so is a JSON escape written inside a JSON string. A
 * layer is decoded only where the text holds one of its sequences and kept
 * only where decoding changed it, so a text without escapes costs one view.
 */
export function decodedViews(text: string): View[] {
  const views: View[] = [{ text }];
  const seen = new Set([text]);
  let frontier = views;
  for (let depth = 0; depth < MAX_LAYERS && frontier.length > 0; depth++) {
    const next: View[] = [];
    for (const view of frontier) {
      for (const layer of LAYERS) {
        if (!(layer === 'escapes' ? mayBeEscaped(view.text) : layer === 'percent' ? mayBePercent(view.text) : view.text.includes('\0')))
          continue;
        const decoded = decodeView(view.text, layer);
        if (seen.has(decoded.text)) continue;
        seen.add(decoded.text);
        next.push(view.offsets ? within(view, decoded) : decoded);
      }
    }
    views.push(...next);
    frontier = next;
  }
  return views;
}

/** Whether a text holds anything {@link decodeView} would decode as an escape. */
function mayBeEscaped(text: string): boolean {
  return /[\\&~]/.test(text);
}

/** Whether a text holds a percent sequence. */
function mayBePercent(text: string): boolean {
  return /%[0-9a-fA-F]{2}/.test(text);
}

/** The unit each one-letter escape after a backslash stands for. */
const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  '"': 0x22,
  '\\': 0x5c,
  '/': 0x2f,
  "'": 0x27,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
};

const ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", sol: '/', bsol: '\\', plus: '+', equals: '=' };

const LAYERS = ['escapes', 'percent', 'nul'] as const;
type Layer = (typeof LAYERS)[number];

/**
 * One layer decoded, for searching: `escapes` (JSON and `\x` escapes, HTML
 * character references, JSON Pointer escapes), `percent` (sequences decoded
 * as UTF-8 where they form it, else as Latin-1) or `nul` (a NUL and the
 * character after it stand for that character: text in UTF-16, either byte
 * order, read a byte a character, and text a server interleaved with NULs,
 * which a terminal or a browser shows as the text). Every decoded unit keeps
 * the span of the original characters that encoded it ({@link View.offsets}).
 */
function decodeView(text: string, layer: Layer): View {
  // The text: the runs between encoded sequences as they are, each sequence by the units it stands for.
  const parts: string[] = [];
  let at = 0;
  scanLayer(text, layer, (unit, s, e) => {
    if (s > at) parts.push(text.slice(at, s));
    parts.push(String.fromCharCode(unit));
    at = e;
  });
  if (at < text.length) parts.push(text.slice(at));
  return { text: parts.join(''), offsets: () => layerOffsets(text, layer) };
}

/** Where each unit of {@link decodeView}'s text came from: a character between sequences from itself, a decoded unit from its whole sequence. */
function layerOffsets(text: string, layer: Layer): Offsets {
  // A sequence is never shorter than the units it decodes to: the view is at most as long as the text.
  const start = new Int32Array(text.length);
  const end = new Int32Array(text.length);
  let k = 0;
  let at = 0;
  const same = (upTo: number) => {
    for (; at < upTo; at++, k++) {
      start[k] = at;
      end[k] = at + 1;
    }
  };
  scanLayer(text, layer, (_unit, s, e) => {
    same(s);
    start[k] = s;
    end[k] = e;
    k++;
    at = Math.max(at, e);
  });
  same(text.length);
  return { start: start.subarray(0, k), end: end.subarray(0, k) };
}

/**
 * Finds the encoded sequences of one layer in `text`, in order, and calls
 * `emit` with each UTF-16 unit one stands for and the sequence's span (twice
 * with the same span for a code point beyond U+FFFF). Characters between
 * sequences stand for themselves.
 */
function scanLayer(text: string, layer: Layer, emit: (unit: number, start: number, end: number) => void): void {
  const n = text.length;
  const emitCodePoint = (cp: number, s: number, e: number) => {
    if (cp > 0xffff) {
      const v = cp - 0x10000;
      emit(0xd800 + (v >> 10), s, e);
      emit(0xdc00 + (v & 0x3ff), s, e);
    } else emit(cp, s, e);
  };
  const hexAt = (at: number, count: number): number | undefined => {
    if (at + count > n) return undefined;
    for (let k = 0; k < count; k++) if (!isHexChar(text.charCodeAt(at + k))) return undefined;
    return parseInt(text.slice(at, at + count), 16);
  };
  // Only these characters can start a sequence of the layer: the characters between them stand for themselves, so
  // the scan jumps from one to the next (a page of a hundred animals holds few).
  const starts = layer === 'percent' ? /%/g : layer === 'nul' ? /\0/g : /[\\&~]/g;
  let i = 0;
  while (i < n) {
    starts.lastIndex = i;
    if (!starts.test(text)) return;
    i = starts.lastIndex - 1;
    const c = text.charCodeAt(i);
    if (layer === 'nul') {
      if (i + 1 < n && text.charCodeAt(i + 1) !== 0) {
        emit(text.charCodeAt(i + 1), i, i + 2);
        i += 2;
        continue;
      }
    } else if (layer === 'percent') {
      if (c === 0x25 && hexAt(i + 1, 2) !== undefined) {
        const bytes: number[] = [];
        let j = i;
        while (j + 2 < n && text.charCodeAt(j) === 0x25 && hexAt(j + 1, 2) !== undefined) {
          bytes.push(hexAt(j + 1, 2)!);
          j += 3;
        }
        let k = 0;
        while (k < bytes.length) {
          const len = utf8Length(bytes, k);
          if (len > 1) {
            const cp = Buffer.from(bytes.slice(k, k + len))
              .toString('utf8')
              .codePointAt(0)!;
            emitCodePoint(cp, i + 3 * k, i + 3 * (k + len));
            k += len;
          } else {
            emit(bytes[k]!, i + 3 * k, i + 3 * k + 3);
            k++;
          }
        }
        i = j;
        continue;
      }
    } else if (c === 0x5c && i + 1 < n) {
      const d = text[i + 1]!;
      if (d === 'u' || d === 'U') {
        const unit = hexAt(i + 2, 4);
        if (unit !== undefined) {
          emit(unit, i, i + 6);
          i += 6;
          continue;
        }
      } else if (d === 'x' || d === 'X') {
        const byte = hexAt(i + 2, 2);
        if (byte !== undefined) {
          emit(byte, i, i + 4);
          i += 4;
          continue;
        }
      } else {
        const simple = SIMPLE_ESCAPES[d];
        if (simple !== undefined) {
          emit(simple, i, i + 2);
          i += 2;
          continue;
        }
      }
    } else if (c === 0x26) {
      // As an HTML parser reads a character reference: leading zeros, and a numeric one without its `;` (a parse error
      // a browser forgives, and shows the character).
      const m = /^&(?:#[xX]0*([0-9a-fA-F]{1,6});?|#0*([0-9]{1,7});?|([a-zA-Z]{2,6});)/.exec(text.slice(i, i + 40));
      if (m) {
        const cp =
          m[1] !== undefined ? parseInt(m[1], 16) : m[2] !== undefined ? parseInt(m[2], 10) : ENTITIES[m[3]!.toLowerCase()]?.codePointAt(0);
        if (cp !== undefined && cp <= 0x10ffff) {
          emitCodePoint(cp, i, i + m[0].length);
          i += m[0].length;
          continue;
        }
      }
    } else if (c === 0x7e && i + 1 < n && (text[i + 1] === '0' || text[i + 1] === '1')) {
      emit(text[i + 1] === '0' ? 0x7e : 0x2f, i, i + 2);
      i += 2;
      continue;
    }
    i++;
  }
}

/** Length of the well-formed UTF-8 sequence at `k` (1 when there is none). */
function utf8Length(bytes: readonly number[], k: number): number {
  const lead = bytes[k]!;
  const len = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 1;
  if (len === 1 || k + len > bytes.length) return 1;
  for (let m = 1; m < len; m++) if ((bytes[k + m]! & 0xc0) !== 0x80) return 1;
  return isUtf8(Uint8Array.from(bytes.slice(k, k + len))) ? len : 1;
}

/** A view of a view, its offsets in the original (worked out when asked for, as a view's own). */
function within(outer: View, inner: View): View {
  return {
    text: inner.text,
    offsets: () => {
      const o = outer.offsets!();
      const i = inner.offsets!();
      const start = new Int32Array(inner.text.length);
      const end = new Int32Array(inner.text.length);
      for (let j = 0; j < inner.text.length; j++) {
        start[j] = o.start[i.start[j]!]!;
        end[j] = o.end[i.end[j]! - 1]!;
      }
      return { start, end };
    },
  };
}
