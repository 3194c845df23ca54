/**
 * Linear scans of JSON text that never build a value, for bodies the suite
 * must not or cannot parse whole. {@link mayBeginJson}: whether the first bytes
 * of a body, all the suite read of it, can still begin a JSON text (RFC 8259
 * §2): a body longer than the read bound is judged on what its start already
 * rules out, and nothing else. {@link measureJson}: how deep and how large a
 * text is, before core/json.ts parses it (the bounds are there).
 */

/** What the first value of the text must be: an object, an array, or any value. */
export type JsonShape = 'object' | 'array' | 'json';

/** What may come next in the text. */
const enum Next {
  Value,
  ValueOrClose,
  Key,
  KeyOrClose,
  Colon,
  CommaOrClose,
  End,
}

const isWhitespace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const ESCAPED = new Set([...'"\\/bfnrtu'].map((c) => c.charCodeAt(0)));
const LITERALS = ['true', 'false', 'null'].map((word) => [...word].map((c) => c.charCodeAt(0)));

/**
 * True when some JSON text whose first value has `shape` begins with `bytes`
 * (after an optional UTF-8 BOM); true for bytes that are all whitespace.
 * Bytes of non-ASCII characters are taken as they come inside strings (a cut
 * may split one) and refused outside them.
 */
export function mayBeginJson(bytes: Uint8Array, shape: JsonShape): boolean {
  const from = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  // One character per byte: the scan reads only ASCII, and takes every byte above it alike.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return scanJson(text, shape, from, text.length) !== 'invalid';
}

/** What a token scan returns when the text ended inside the token. */
const CUT = -2;

/**
 * Scans `source` from `from` to `to` (a JSON text, or a value within one):
 * `invalid` when no JSON text whose first value has `shape` begins with it,
 * `complete` when it is one whole value (whitespace around it allowed),
 * `prefix` otherwise. Characters above U+007F are taken as they come inside
 * strings and refused outside them. Linear, and without recursion: any depth.
 */
export function scanJson(source: string, shape: JsonShape, from = 0, to = source.length): 'invalid' | 'prefix' | 'complete' {
  // The open containers, `{` or `[` each, in a byte stack that grows as needed (a text may nest a million deep).
  let containers = new Uint8Array(64);
  let depth = 0;
  let next: Next = Next.Value;
  let first = true;
  let i = from;

  /** After a value: what its container (or the end of the text) allows. */
  const afterValue = () => (depth === 0 ? Next.End : Next.CommaOrClose);
  /** Scans a string from its opening quote: the index past it, -1 when invalid, {@link CUT} when the text ends in it. */
  const string = (from: number): number => {
    let j = from + 1;
    while (j < to) {
      const c = source.charCodeAt(j);
      if (c === 0x22) return j + 1;
      if (c < 0x20) return -1;
      if (c !== 0x5c) {
        j++;
        continue;
      }
      if (j + 1 >= to) return CUT;
      const escaped = source.charCodeAt(j + 1);
      if (!ESCAPED.has(escaped)) return -1;
      if (escaped !== 0x75) {
        j += 2;
        continue;
      }
      for (let k = j + 2; k < j + 6; k++) {
        if (k >= to) return CUT;
        if (!isHex(source.charCodeAt(k))) return -1;
      }
      j += 6;
    }
    return CUT;
  };
  /** Scans a number (`-? (0 | [1-9]\d*) (. \d+)? ([eE] [+-]? \d+)?`); as {@link string} (a number whole at the end is whole). */
  const number = (from: number): number => {
    let j = from;
    if (source.charCodeAt(j) === 0x2d) j++;
    const digits = (): boolean | undefined => {
      if (j >= to) return undefined;
      if (!isDigit(source.charCodeAt(j))) return false;
      while (j < to && isDigit(source.charCodeAt(j))) j++;
      return true;
    };
    if (j >= to) return CUT;
    if (source.charCodeAt(j) === 0x30) j++;
    else if (!digits()) return -1;
    if (j < to && source.charCodeAt(j) === 0x2e) {
      j++;
      const fraction = digits();
      if (fraction !== true) return fraction === undefined ? CUT : -1;
    }
    if (j < to && (source.charCodeAt(j) === 0x65 || source.charCodeAt(j) === 0x45)) {
      j++;
      if (j < to && (source.charCodeAt(j) === 0x2b || source.charCodeAt(j) === 0x2d)) j++;
      const exponent = digits();
      if (exponent !== true) return exponent === undefined ? CUT : -1;
    }
    return j;
  };
  /** Scans `true`, `false` or `null`; as {@link string}. */
  const literal = (from: number): number => {
    const word = LITERALS.find((w) => w[0] === source.charCodeAt(from));
    if (!word) return -1;
    for (let k = 1; k < word.length; k++) {
      if (from + k >= to) return CUT;
      if (source.charCodeAt(from + k) !== word[k]) return -1;
    }
    return from + word.length;
  };

  while (i < to) {
    const c = source.charCodeAt(i);
    if (isWhitespace(c)) {
      i++;
      continue;
    }
    if (next === Next.End) return 'invalid';
    if (next === Next.Colon) {
      if (c !== 0x3a) return 'invalid';
      next = Next.Value;
      i++;
      continue;
    }
    if (next === Next.CommaOrClose || next === Next.ValueOrClose || next === Next.KeyOrClose) {
      const open = containers[depth - 1];
      if (c === (open === 0x7b ? 0x7d : 0x5d)) {
        depth--;
        next = afterValue();
        i++;
        continue;
      }
      if (next === Next.CommaOrClose) {
        if (c !== 0x2c) return 'invalid';
        next = open === 0x7b ? Next.Key : Next.Value;
        i++;
        continue;
      }
    }
    if (next === Next.Key || next === Next.KeyOrClose) {
      if (c !== 0x22) return 'invalid';
      i = string(i);
      if (i === CUT) return 'prefix';
      if (i < 0) return 'invalid';
      next = Next.Colon;
      continue;
    }
    // A value.
    if (first && ((shape === 'object' && c !== 0x7b) || (shape === 'array' && c !== 0x5b))) return 'invalid';
    first = false;
    if (c === 0x7b || c === 0x5b) {
      if (depth === containers.length) {
        const grown = new Uint8Array(depth * 2);
        grown.set(containers);
        containers = grown;
      }
      containers[depth++] = c;
      next = c === 0x7b ? Next.KeyOrClose : Next.ValueOrClose;
      i++;
      continue;
    }
    i = c === 0x22 ? string(i) : c === 0x2d || isDigit(c) ? number(i) : literal(i);
    if (i === CUT) return 'prefix';
    if (i < 0) return 'invalid';
    next = afterValue();
  }
  return next === Next.End ? 'complete' : 'prefix';
}

/** How deep and how large a JSON text is, as far as {@link measureJson} went. */
export interface JsonMeasure {
  /** Containers that open deeper than `maxDepth`, outermost only: `[start, end)` (to the end of the text when never closed). */
  deep: [number, number][];
  /** Where the text passed `maxTokens` (outside the deep containers): the index of the token that did; absent when it did not. */
  over?: number;
  /**
   * Present when a number is written with a fraction or an exponent (a `.` outside strings, or an `e`/`E` after a
   * digit: the literals' `e` follows a letter), in a text measured to its end. Absent, every number is an integer as
   * written (core/json.ts parses such a text once).
   */
  fractional?: true;
}

/**
 * Measures a JSON text without parsing it, in one linear pass that tracks
 * strings and brackets (it does not check the grammar; {@link scanJson} does):
 * the containers that open deeper than `maxDepth` (a root value is at depth
 * 1), and where the text passes `maxTokens` structural tokens (`[`, `{`, `,`
 * and `:` outside strings, one or two per value) outside them. Stops there.
 * Notes, on the way, a number with a fraction or an exponent.
 */
export function measureJson(text: string, maxDepth: number, maxTokens: number): JsonMeasure {
  const deep: [number, number][] = [];
  let depth = 0;
  let deepFrom = 0;
  let tokens = 0;
  let fractional = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: one not preceded by an odd run of backslashes.
      for (let j = text.indexOf('"', i + 1); ; j = text.indexOf('"', j + 1)) {
        if (j < 0) return { deep: depth > maxDepth ? [...deep, [deepFrom, text.length]] : deep };
        let slashes = 0;
        while (text.charCodeAt(j - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) {
          i = j;
          break;
        }
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth === maxDepth + 1) deepFrom = i;
      if (depth <= maxDepth && ++tokens > maxTokens) return { deep, over: i };
    } else if (c === 0x5d || c === 0x7d) {
      if (depth === maxDepth + 1) deep.push([deepFrom, i + 1]);
      if (depth > 0) depth--;
    } else if ((c === 0x2c || c === 0x3a) && depth <= maxDepth && ++tokens > maxTokens) {
      return { deep, over: i };
    } else if (c === 0x2e || ((c === 0x65 || c === 0x45) && isDigit(text.charCodeAt(i - 1)))) {
      fractional = true;
    }
  }
  return { deep: depth > maxDepth ? [...deep, [deepFrom, text.length]] : deep, ...(fractional ? { fractional: true as const } : {}) };
}
