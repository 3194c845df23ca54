/**
 * Lossless JSON: every number keeps the exact text it was written with, so int64
 * values beyond 2^53 are compared and re-sent exactly. Node 20 has no
 * `JSON.parse` source-text access, hence lossless-json.
 */
import { isUtf8 } from 'node:buffer';
import { LosslessNumber, isLosslessNumber, parse, stringify } from 'lossless-json';
import { excerpt } from './excerpt.js';

export { LosslessNumber, isLosslessNumber };

/** A parsed JSON value whose numbers are {@link LosslessNumber}s. */
export type Json = null | boolean | string | LosslessNumber | Json[] | { [key: string]: Json };

/** A JSON object (not an array, not null). */
export type JsonObject = { [key: string]: Json };

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * Decodes bytes as strict UTF-8 (RFC 8259 §8.1); `undefined` when they are not.
 * A leading BOM is dropped, as a decoder does, unless `keepBom` (text that must
 * give back the very bytes). Validated natively, then decoded by Buffer: several
 * times faster than a fatal TextDecoder, and this runs on every body.
 */
export function decodeUtf8(bytes: Uint8Array, options: { keepBom?: boolean } = {}): string | undefined {
  if (!isUtf8(bytes)) return undefined;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return !options.keepBom && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Parses JSON text losslessly. A duplicate key keeps its last value, as
 * `JSON.parse` does. Throws `SyntaxError` on invalid JSON.
 *
 * Valid text takes a fast path: `JSON.parse` (native, several times faster than
 * a parser written in JavaScript) of the text with each number written as a
 * marked string holding its index, the markers then replaced by the numbers'
 * exact text. The text is checked first: the token rewrite is only sound on
 * valid JSON, and a second native parse costs less than proving it sound on
 * any text. lossless-json parses the rest: invalid text (its error messages
 * are the ones reports quote), and text that could hold a marker of its own.
 */
export function parseJson(text: string): Json {
  if (!text.includes(MARK_ESCAPE) && isJson(text)) {
    const numbers: string[] = [];
    const marked = text.replace(STRING_OR_NUMBER, (token) => (token.charCodeAt(0) === 0x22 ? token : `"${MARK_ESCAPE}${numbers.push(token) - 1}"`));
    return unmark(JSON.parse(marked) as unknown, numbers);
  }
  return parse(text, null, {
    onDuplicateKey: ({ newValue }) => newValue,
  }) as Json;
}

/** U+0001 as a JSON escape: raw, it cannot be in valid JSON text, so a string starting with it is a marker. */
const MARK_ESCAPE = '\\u0001';
const MARK = '\u0001';
/** In valid JSON text, the string and number tokens in order (the literals hold no digit). */
const STRING_OR_NUMBER = /"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** `value` with each marker replaced, in place, by a {@link LosslessNumber} of the number it stands for. */
function unmark(value: unknown, numbers: readonly string[]): Json {
  if (typeof value === 'string') return value.startsWith(MARK) ? new LosslessNumber(numbers[Number(value.slice(1))]!) : value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = unmark(value[i], numbers);
  } else if (value !== null && typeof value === 'object') {
    // JSON.parse made every key an own property (`__proto__` too), so plain assignment sets that property.
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) object[key] = unmark(object[key], numbers);
  }
  return value as Json;
}

/**
 * Serialises a value to JSON text. `bigint` and {@link LosslessNumber} are
 * written digit for digit; everything else as `JSON.stringify` would.
 */
export function stringifyJson(value: unknown): string {
  const text = stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? new LosslessNumber(v.toString()) : v));
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

const NUMBER_SYNTAX = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** An integer written without fraction, exponent or leading zeros, short enough to materialise. */
const PLAIN_INTEGER = /^-?(?:0|[1-9]\d{0,39})$/;

/** Integers this large cannot be int64; past it we stop computing the exact value. */
const MAX_DIGITS = 40;

/**
 * The exact integer a JSON number denotes, from its source text: `1e3` and
 * `1.0` are integers (JSON Schema counts mathematical value), `1.5` is not.
 * Returns `undefined` for non-integers, and `'huge'` for integers with more than
 * 40 digits (certainly outside int64, not worth materialising).
 */
export function exactInteger(value: LosslessNumber | string): bigint | 'huge' | undefined {
  const raw = typeof value === 'string' ? value : value.value;
  // Plain integers (nearly every number a target writes) need no more than this.
  if (PLAIN_INTEGER.test(raw)) return BigInt(raw);
  const match = NUMBER_SYNTAX.exec(raw);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  const digits = (whole + fraction).replace(/^0+(?=\d)/, '');
  const shift = exponent - fraction.length;
  if (digits === '0' || /^0+$/.test(digits)) return 0n;
  if (shift >= 0) {
    if (digits.length + shift > MAX_DIGITS) return 'huge';
    return BigInt(sign + digits + '0'.repeat(shift));
  }
  const kept = digits.length + shift;
  const dropped = digits.slice(Math.max(kept, 0));
  if (!/^0*$/.test(dropped)) return undefined;
  if (kept <= 0) return 0n;
  if (kept > MAX_DIGITS) return 'huge';
  return BigInt(sign + digits.slice(0, kept));
}

/** True when `value` is a JSON number denoting an integer in the int64 range. */
export function isInt64(value: unknown): boolean {
  if (!isLosslessNumber(value)) return false;
  const n = exactInteger(value);
  return typeof n === 'bigint' && n >= INT64_MIN && n <= INT64_MAX;
}

/** The int64 a JSON value holds, or `undefined` when it holds none. */
export function int64Of(value: unknown): bigint | undefined {
  if (!isLosslessNumber(value)) return undefined;
  const n = exactInteger(value);
  return typeof n === 'bigint' && n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
}

/** True for a JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

/**
 * A plain-JavaScript copy for schema validators, numbers as doubles. Types and
 * integer-ness survive (every double past 2^53 is integral); exact ranges are
 * judged separately on the lossless value.
 */
export function toPlain(value: Json): unknown {
  if (isLosslessNumber(value)) return Number(value.value);
  if (Array.isArray(value)) return value.map(toPlain);
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = toPlain(item);
    return out;
  }
  return value;
}

/**
 * A short, exact rendering of a JSON value for messages (numbers as written),
 * at most `max` characters. The value is put in whole, as an excerpt
 * (core/excerpt.ts): it is redacted, written out and cut only when the message
 * is redacted, so a key in it is never cut in two first.
 */
export function show(value: unknown, max = 200): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : stringifyJson(value);
  } catch {
    return excerpt(String(value), max);
  }
  return excerpt(text, max, { mode: 'json' });
}
