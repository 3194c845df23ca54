/**
 * Decoding views: a text as it is and decoded up to {@link MAX_LAYERS} layers
 * deep (escapes, CSS escapes among them, percent-encoding, quoted-printable,
 * compatibility characters, NULs between characters, in any order), bytes
 * written as numbers (byte-lists.ts), and each view without the line breaks
 * inside its base64 runs (gaps.ts), each unit of a view mapped
 * back to the characters of the original that encode it, so a match in a view
 * replaces exactly those.
 */
import { isUtf8 } from 'node:buffer';
import { scanByteLists, scanUtf16Hex, listHint } from './byte-lists.js';
import { isHexChar } from './encoded.js';
import { unwrappedView } from './gaps.js';
import type { Offsets, View } from './types.js';

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
  let frontier = [...views];
  for (let depth = 0; depth < MAX_LAYERS && frontier.length > 0; depth++) {
    const next: View[] = [];
    for (const view of frontier) {
      for (const layer of LAYERS) {
        // Bytes written as numbers are read in the text as it is only, and not decoded further: a hostile body
        // mixing every layer would otherwise multiply its views (seconds of a loop for a megabyte).
        if (BYTE_LAYERS.has(layer) && depth > 0) continue;
        if (!MAY_HOLD[layer](view.text)) continue;
        const decoded = decodeView(view.text, layer);
        if (seen.has(decoded.text)) continue;
        seen.add(decoded.text);
        const found = view.offsets ? within(view, decoded) : decoded;
        if (BYTE_LAYERS.has(layer)) views.push(found);
        else next.push(found);
      }
    }
    views.push(...next);
    frontier = next;
  }
  // Each view without the line breaks inside its base64 runs (gaps.ts).
  for (const view of views.slice()) {
    const cut = unwrappedView(view);
    if (cut && !seen.has(cut.text)) {
      seen.add(cut.text);
      views.push(cut);
    }
  }
  return views;
}

/** Whether a text holds anything of a layer, cheaply: most texts hold none, and cost one view. */
const MAY_HOLD: Readonly<Record<Layer, (text: string) => boolean>> = {
  escapes: (text) => /[\\&~]/.test(text),
  percent: (text) => /%(?:[0-9a-fA-F]{2}|[uU][0-9a-fA-F]{4})/.test(text),
  'quoted-printable': (text) => /(?:=[0-9a-fA-F]{2}){2}/.test(text),
  compat: (text) => COMPAT_BLOCKS.test(text),
  nul: (text) => text.includes('\0'),
  'decimal bytes': listHint,
  'hex bytes': listHint,
  // Three zero bytes a character apart: a literal start, found faster than any class (one in four digits of a page's ids).
  'utf-16 hex': (text) => /00[0-9a-fA-F]{2}00[0-9a-fA-F]{2}00/.test(text),
};

/**
 * Compatibility characters of letters and digits: Latin-1's superscripts and ordinals, modifier letters (`ᵖ`, `ʷ`),
 * super- and subscripts, letter-like and enclosed symbols, squared Latin, ligatures, full- and half-width forms,
 * mathematical alphanumerics (U+1D400…).
 */
const COMPAT_BLOCKS =
  /[\u00aa\u00b2\u00b3\u00b5\u00b9\u00ba\u02b0-\u02b8\u02e0-\u02e4\u1d2c-\u1dbf\u2070-\u24ff\u3250-\u33ff\ufb00-\ufb06\uff01-\uffee]|\ud835[\udc00-\udfff]/;

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

const ENTITIES: Record<string, string> = {
  quot: '"',
  amp: '&',
  lt: '<',
  gt: '>',
  apos: "'",
  sol: '/',
  bsol: '\\',
  plus: '+',
  equals: '=',
  // Spaces and invisible characters a server may spell a secret out with.
  nbsp: '\u00a0',
  shy: '\u00ad',
  ensp: '\u2002',
  emsp: '\u2003',
  thinsp: '\u2009',
  zwnj: '\u200c',
  zwj: '\u200d',
  lrm: '\u200e',
  rlm: '\u200f',
  newline: '\n',
  tab: '\t',
};

const LAYERS = ['escapes', 'percent', 'quoted-printable', 'compat', 'nul', 'decimal bytes', 'hex bytes', 'utf-16 hex'] as const;
/** The layers of bytes written as numbers: read in the original text only ({@link decodedViews}). */
const BYTE_LAYERS: ReadonlySet<Layer> = new Set(['decimal bytes', 'hex bytes', 'utf-16 hex']);
type Layer = (typeof LAYERS)[number];

/**
 * One layer decoded, for searching: `escapes` (JSON, `\x` and CSS escapes,
 * HTML character references, JSON Pointer escapes), `percent` and
 * `quoted-printable` (sequences decoded as UTF-8 where they form it, else as
 * Latin-1), `compat` (compatibility characters as NFKC folds them) or `nul` (a NUL and the
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
  if (layer === 'decimal bytes' || layer === 'hex bytes') return scanByteLists(text, layer, emit);
  if (layer === 'utf-16 hex') return scanUtf16Hex(text, emit);
  if (layer === 'compat') return scanCompat(text, emitCodePoint);
  // Only these characters can start a sequence of the layer: the characters between them stand for themselves, so
  // the scan jumps from one to the next (a page of a hundred animals holds few).
  const starts = layer === 'percent' ? /%/g : layer === 'quoted-printable' ? /=/g : layer === 'nul' ? /\0/g : /[\\&~]/g;
  // Bytes as `%73` (percent-encoding) or `=73` (quoted-printable, RFC 2045).
  const intro = layer === 'quoted-printable' ? 0x3d : 0x25;
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
    } else if (layer === 'percent' || layer === 'quoted-printable') {
      // `%u0073`: a UTF-16 unit, as JavaScript's escape() writes one.
      const wide = c === 0x25 && (text[i + 1] === 'u' || text[i + 1] === 'U') ? hexAt(i + 2, 4) : undefined;
      if (wide !== undefined) {
        emit(wide, i, i + 6);
        i += 6;
        continue;
      }
      if (c === intro && hexAt(i + 1, 2) !== undefined) {
        const bytes: number[] = [];
        let j = i;
        while (j + 2 < n && text.charCodeAt(j) === intro && hexAt(j + 1, 2) !== undefined) {
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
      // `\u{73}`: a code point, as JavaScript, Rust and Swift write one.
      const braced = d === 'u' && text[i + 2] === '{' ? /^\{0*([0-9a-fA-F]{1,6})\}/.exec(text.slice(i + 2, i + 16)) : null;
      // `\163` is a byte in octal, but `\0061 ` and `\000061` are CSS escapes (four hex digits or more).
      const octal =
        /[0-3]/.test(d) && !/^[0-9a-fA-F]{4}/.test(text.slice(i + 1, i + 5)) ? /^[0-3][0-7]{2}/.exec(text.slice(i + 1, i + 4)) : null;
      if (braced && parseInt(braced[1]!, 16) <= 0x10ffff) {
        emitCodePoint(parseInt(braced[1]!, 16), i, i + 2 + braced[0].length);
        i += 2 + braced[0].length;
        continue;
      } else if (octal) {
        // `\163`: a byte in octal, as C, Python's bytes and PHP write one.
        emit(parseInt(octal[0], 8), i, i + 4);
        i += 4;
        continue;
      } else if (d === 'u' || d === 'U') {
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
        // `\6b `: a code point in one to six hex digits and an optional white space, as CSS writes one (`\b` and `\f`
        // stay JSON's).
        const css = isHexChar(d.charCodeAt(0)) && SIMPLE_ESCAPES[d] === undefined ? CSS_ESCAPE.exec(text.slice(i + 1, i + 9)) : null;
        if (css && parseInt(css[1]!, 16) <= 0x10ffff) {
          emitCodePoint(parseInt(css[1]!, 16), i, i + 1 + css[0].length);
          i += 1 + css[0].length;
          continue;
        }
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

const CSS_ESCAPE = /^([0-9a-fA-F]{1,6})(?:\r\n|[ \t\n\r\f])?/;

/** Compatibility characters NFKC folds to no more units than they take (a character's own view is never longer). */
const compatible = new Map<number, string | null>();

/**
 * Each compatibility character of a letter or digit as its NFKC form (`ｋ`,
 * `𝐤`, `ⓚ` as `k`), where that form is no longer than the character: a key
 * spelt in full-width or mathematical letters reads as itself.
 */
function scanCompat(text: string, emitCodePoint: (cp: number, start: number, end: number) => void): void {
  // Only the blocks MAY_HOLD names hold such characters: the scan jumps from one to the next.
  const candidates = new RegExp(COMPAT_BLOCKS.source, 'g');
  for (let m = candidates.exec(text); m; m = candidates.exec(text)) {
    const i = m.index;
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    let folded = compatible.get(cp);
    if (folded === undefined) {
      const char = String.fromCodePoint(cp);
      const nfkc = char.normalize('NFKC');
      folded = nfkc !== char && nfkc.length <= width ? nfkc : null;
      if (compatible.size < 4096) compatible.set(cp, folded);
    }
    if (folded !== null) for (const unit of folded) emitCodePoint(unit.codePointAt(0)!, i, i + width);
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
