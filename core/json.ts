/**
 * Lossless JSON: every number keeps the exact text it was written with, so int64
 * values beyond 2^53 are compared and re-sent exactly. Node 20 has no
 * `JSON.parse` source-text access, hence lossless-json.
 *
 * **Bounded.** A server's body is parsed only within bounds, measured first by
 * a linear scan (core/json-prefix.ts `measureJson`): parsing costs with the
 * number of values and with depth (a 1.8 MB `[[[…]]]` took 0.4 s, and
 * overflowed the stack on the way), and a run's own deadlines pass meanwhile.
 * Containers nested deeper than {@link MAX_JSON_DEPTH} are checked by the
 * scan, then each stands as the string {@link DEEPER_NOT_PARSED}: every
 * constraint of the interface's schemas sits within three levels (a page, a
 * Pet, its members), so what is judged is the same whatever they held. A text
 * of more than {@link MAX_JSON_TOKENS} tokens is not parsed at all
 * ({@link JsonTooLargeError}), like a body past the read bound.
 *
 * **Members are data.** Parsed objects have no prototype: `__proto__`,
 * `constructor` or `toString` are members like any other, own properties
 * when present, absent (`undefined`, not `in`) when not.
 */
import { isUtf8 } from 'node:buffer';
import { LosslessNumber, isLosslessNumber, parse, stringify } from 'lossless-json';
import { excerpt } from './excerpt.js';
import { measureJson, scanJson } from './json-prefix.js';

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
 * Nesting parsed, at most: the interface's shapes need three (a page, a Pet,
 * a member); a container deeper than this stands as {@link DEEPER_NOT_PARSED}.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Structural tokens (`[`, `{`, `,`, `:` outside strings; one or two per value)
 * of a text parsed, at most: a page of 100 Pets has about 900; 100 000 is a
 * page of 11 000 Pets, or 100 000 numbers (about 0.1 s to parse losslessly).
 */
export const MAX_JSON_TOKENS = 100_000;

/** What stands for a container nested deeper than {@link MAX_JSON_DEPTH} in a parsed value. */
export const DEEPER_NOT_PARSED = `(nested deeper than ${MAX_JSON_DEPTH} levels: not parsed)`;

/** A JSON text with more than {@link MAX_JSON_TOKENS} tokens: not parsed. */
export class JsonTooLargeError extends Error {
  constructor(
    /** Where the text passed the bound (a string index). */
    readonly at: number,
  ) {
    super(`more than ${MAX_JSON_TOKENS} JSON tokens (not parsed)`);
    this.name = 'JsonTooLargeError';
  }
}

/**
 * Parses JSON text losslessly, within bounds (the module comment): objects
 * without prototype, numbers as {@link LosslessNumber}s, containers deeper
 * than {@link MAX_JSON_DEPTH} as {@link DEEPER_NOT_PARSED}. A duplicate key
 * keeps its last value, as `JSON.parse` does. Throws `SyntaxError` on invalid
 * JSON, {@link JsonTooLargeError} past {@link MAX_JSON_TOKENS}.
 *
 * Valid text takes a fast path: `JSON.parse` (native, several times faster than
 * a parser written in JavaScript). Where no number is written with a fraction
 * or an exponent (the measuring scan saw none) and every one is an integer a
 * double holds exactly (not `-0`), each
 * number's text is the shortest one of its value: that parse is the answer.
 * Otherwise the text is parsed again with each number written as a marked
 * string holding its exact text, the markers then replaced by the numbers. The first parse checks the text: the token rewrite is only sound on
 * valid JSON, and a second native parse costs less than proving it sound on
 * any text. lossless-json parses the rest: invalid text (its error messages
 * are the ones reports quote), and text that could hold a marker of its own.
 */
export function parseJson(source: string): Json {
  const measured = measureJson(source, MAX_JSON_DEPTH, MAX_JSON_TOKENS);
  if (measured.over !== undefined) throw new JsonTooLargeError(measured.over);
  const text = measured.deep.length > 0 ? withoutDeep(source, measured.deep) : source;
  const parsed = text.includes(MARK_ESCAPE) ? NOT_JSON : parseOrNot(text);
  if (parsed !== NOT_JSON) {
    if (!measured.fractional) {
      const plain = settlePlain(parsed);
      if (plain !== NOT_PLAIN) return plain;
    }
    // Natively, without a call per token: the text up to each number (strings whole) kept, the number marked; the
    // sentinel number at the end makes every match end at a number, so the last one takes the tail in one pass.
    const marked = `${text}${SENTINEL}`.replace(UP_TO_A_NUMBER, `$1"${MARK_ESCAPE}$2"`);
    return settle(JSON.parse(marked.slice(0, -MARKED_SENTINEL.length)) as unknown, true);
  }
  return settle(parse(text, null, { onDuplicateKey: ({ newValue }) => newValue }), false);
}

/** `text` with each of the `deep` containers, once the scan found it whole and valid, written as {@link DEEPER_NOT_PARSED}. */
function withoutDeep(text: string, deep: readonly [number, number][]): string {
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of deep) {
    if (scanJson(text, 'json', start, end) !== 'complete')
      throw new SyntaxError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is not valid (the value at position ${start})`);
    parts.push(text.slice(at, start), PLACEHOLDER);
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

const PLACEHOLDER = JSON.stringify(DEEPER_NOT_PARSED);

/** U+0001 as a JSON escape: raw, it cannot be in valid JSON text, so a string starting with it is a marker. */
const MARK_ESCAPE = '\\u0001';
const MARK = '\u0001';
/**
 * In valid JSON text, what comes before a number (strings whole, and characters that are neither a quote, a digit nor
 * a minus: outside strings only a number holds those), then the number. On valid JSON (it is only used on text
 * `JSON.parse` took) every match succeeds on its first way through: the star stops at a number's first character,
 * never inside a string; the literals hold no digit.
 */
const UP_TO_A_NUMBER = /((?:"[^"\\]*(?:\\.[^"\\]*)*"|[^"\d-]+)*)(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
/** A number after the text, so that the text's tail ends a match; marked, it is cut off again. */
const SENTINEL = ' 0';
const MARKED_SENTINEL = ` "${MARK_ESCAPE}0"`;

const NOT_JSON: unique symbol = Symbol('not JSON');
const NOT_PLAIN: unique symbol = Symbol('a number not written as its shortest text');

function parseOrNot(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/**
 * Like {@link settle}, for a text whose numbers are written without fraction or
 * exponent: each number as a {@link LosslessNumber} of its shortest text, which
 * is the text it was written with when it is an integer a double holds exactly
 * and not `-0`; {@link NOT_PLAIN} at the first that is not (arrays already
 * settled are left half done: the caller parses the text again).
 */
function settlePlain(value: unknown): Json | typeof NOT_PLAIN {
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && !Object.is(value, -0) ? new LosslessNumber(String(value)) : NOT_PLAIN;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = settlePlain(value[i]);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      value[i] = item;
    }
    return value as Json[];
  }
  if (value === null || typeof value !== 'object') return value as Json;
  const object = value as Record<string, unknown>;
  const out = jsonObject();
  for (const key of Object.keys(object)) {
    const item = settlePlain(object[key]);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
}

/**
 * A parsed value made final: each marker replaced by a {@link LosslessNumber}
 * of the number it holds (when `marked`; lossless-json's values have none),
 * each object copied into one without
 * prototype. Both parsers made every key an own property (`__proto__` too);
 * on an object without prototype, plain assignment sets that property, as no
 * `__proto__` setter is inherited. Depth is bounded by {@link MAX_JSON_DEPTH}.
 */
function settle(value: unknown, marked: boolean): Json {
  if (typeof value === 'string') return marked && value.startsWith(MARK) ? new LosslessNumber(value.slice(1)) : value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = settle(value[i], marked);
    return value as Json[];
  }
  if (value === null || typeof value !== 'object' || isLosslessNumber(value)) return value as Json;
  const object = value as Record<string, unknown>;
  const out = jsonObject();
  for (const key of Object.keys(object)) out[key] = settle(object[key], marked);
  return out;
}

/** An empty JSON object: no prototype, so no member name (`__proto__`, `constructor`, `toString`) means anything but a member. */
export function jsonObject(): JsonObject {
  return Object.create(null) as JsonObject;
}

/**
 * Serialises a value to JSON text. `bigint` and {@link LosslessNumber} are
 * written digit for digit; everything else as `JSON.stringify` would (with
 * `indent`, on lines indented by that many spaces, as `JSON.stringify` does).
 */
export function stringifyJson(value: unknown, indent?: number): string {
  const text = stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? new LosslessNumber(v.toString()) : v), indent);
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
  if (typeof value !== 'object' || value === null) return value;
  if (isLosslessNumber(value)) return Number(value.value);
  if (Array.isArray(value)) return value.map(toPlain);
  // No prototype: `out.__proto__ = …` would otherwise set one, and a validator would find the members it holds.
  const out = Object.create(null) as Record<string, unknown>;
  // A parsed object has no prototype: `for … in` walks its own members, in order, without an array of entries.
  for (const key in value) out[key] = toPlain(value[key]!);
  return out;
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
    // Never String() an object: one without prototype (a parsed one) has no toString.
    return excerpt(typeof value === 'object' && value !== null ? Object.prototype.toString.call(value) : String(value), max);
  }
  return excerpt(text, max, { mode: 'json' });
}
