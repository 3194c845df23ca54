/**
 * Whether the first bytes of a body, all the suite read of it, can still begin
 * a JSON text (RFC 8259 §2): a body longer than the read bound is judged on
 * what its start already rules out, and nothing else.
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
const LITERALS = ['true', 'false', 'null'].map((word) => Buffer.from(word));

/**
 * True when some JSON text whose first value has `shape` begins with `bytes`
 * (after an optional UTF-8 BOM); true for bytes that are all whitespace.
 * Bytes of non-ASCII characters are taken as they come inside strings (a cut
 * may split one) and refused outside them.
 */
export function mayBeginJson(bytes: Uint8Array, shape: JsonShape): boolean {
  const containers: number[] = [];
  let next: Next = Next.Value;
  let first = true;
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;

  /** After a value: what its container (or the end of the text) allows. */
  const afterValue = () => (containers.length === 0 ? Next.End : Next.CommaOrClose);
  /** Scans a string from its opening quote; the index past it, or -1 when invalid, or the length when cut. */
  const string = (at: number): number => {
    let j = at + 1;
    while (j < bytes.length) {
      const c = bytes[j]!;
      if (c === 0x22) return j + 1;
      if (c < 0x20) return -1;
      if (c !== 0x5c) {
        j++;
        continue;
      }
      const escaped = bytes[j + 1];
      if (escaped === undefined) return bytes.length;
      if (!ESCAPED.has(escaped)) return -1;
      if (escaped !== 0x75) {
        j += 2;
        continue;
      }
      for (let k = j + 2; k < j + 6; k++) {
        if (k >= bytes.length) return bytes.length;
        if (!isHex(bytes[k]!)) return -1;
      }
      j += 6;
    }
    return bytes.length;
  };
  /** Scans a number (`-? (0 | [1-9]\d*) (. \d+)? ([eE] [+-]? \d+)?`); as {@link string}. */
  const number = (at: number): number => {
    let j = at;
    if (bytes[j] === 0x2d) j++;
    const digits = (): boolean | undefined => {
      if (j >= bytes.length) return undefined;
      if (!isDigit(bytes[j]!)) return false;
      while (j < bytes.length && isDigit(bytes[j]!)) j++;
      return true;
    };
    if (j >= bytes.length) return bytes.length;
    if (bytes[j] === 0x30) j++;
    else if (!digits()) return -1;
    if (bytes[j] === 0x2e) {
      j++;
      const fraction = digits();
      if (fraction !== true) return fraction === undefined ? bytes.length : -1;
    }
    if (bytes[j] === 0x65 || bytes[j] === 0x45) {
      j++;
      if (bytes[j] === 0x2b || bytes[j] === 0x2d) j++;
      const exponent = digits();
      if (exponent !== true) return exponent === undefined ? bytes.length : -1;
    }
    return j;
  };
  /** Scans `true`, `false` or `null`; as {@link string}. */
  const literal = (at: number): number => {
    const word = LITERALS.find((w) => w[0] === bytes[at]);
    if (!word) return -1;
    for (let k = 1; k < word.length; k++) {
      if (at + k >= bytes.length) return bytes.length;
      if (bytes[at + k] !== word[k]) return -1;
    }
    return at + word.length;
  };

  while (i < bytes.length) {
    const c = bytes[i]!;
    if (isWhitespace(c)) {
      i++;
      continue;
    }
    if (next === Next.End) return false;
    if (next === Next.Colon) {
      if (c !== 0x3a) return false;
      next = Next.Value;
      i++;
      continue;
    }
    if (next === Next.CommaOrClose || next === Next.ValueOrClose || next === Next.KeyOrClose) {
      const open = containers[containers.length - 1];
      if (c === (open === 0x7b ? 0x7d : 0x5d)) {
        containers.pop();
        next = afterValue();
        i++;
        continue;
      }
      if (next === Next.CommaOrClose) {
        if (c !== 0x2c) return false;
        next = open === 0x7b ? Next.Key : Next.Value;
        i++;
        continue;
      }
    }
    if (next === Next.Key || next === Next.KeyOrClose) {
      if (c !== 0x22) return false;
      i = string(i);
      if (i < 0) return false;
      next = Next.Colon;
      continue;
    }
    // A value.
    if (first && ((shape === 'object' && c !== 0x7b) || (shape === 'array' && c !== 0x5b))) return false;
    first = false;
    if (c === 0x7b || c === 0x5b) {
      containers.push(c);
      next = c === 0x7b ? Next.KeyOrClose : Next.ValueOrClose;
      i++;
      continue;
    }
    i = c === 0x22 ? string(i) : c === 0x2d || isDigit(c) ? number(i) : literal(i);
    if (i < 0) return false;
    next = afterValue();
  }
  return true;
}
