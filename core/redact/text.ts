/**
 * Shaping redacted text: escaping and cutting take {@link Redacted} text and
 * give it, so text is never cut or escaped before it was redacted (the
 * compiler keeps the order); and excerpts (core/excerpt.ts) are rendered in
 * that order: each redacted whole, then escaped, then cut.
 */
import { EXCERPT_CLOSE, EXCERPT_OPEN, EXCERPT_SEP } from '../excerpt.js';
import { parseJson, stringifyJson } from '../json.js';
import type { Redacted } from './types.js';

/** Redacted text as a JSON string literal. */
export function escapeJson(text: Redacted): Redacted {
  return JSON.stringify(text) as Redacted;
}

/** Redacted text cut to `max` characters, `marker` appended when cut (or when `force`d). Never cuts a surrogate pair in two. */
export function truncate(text: Redacted, max: number, marker = '…', force = false): Redacted {
  if (text.length <= max) return (force ? `${text}${marker}` : text) as Redacted;
  let cut = max;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return `${text.slice(0, cut)}${marker}` as Redacted;
}

/** A redacted JSON string literal cut to about `max` characters of its content, still a closed literal; never inside an escape. */
function truncateQuoted(quoted: Redacted, max: number, force: boolean): Redacted {
  const inner = quoted.slice(1, -1);
  if (inner.length <= max && !force) return quoted;
  let cut = Math.min(max, inner.length);
  // Back off out of an escape sequence (`\n`, `\uXXXX`) the cut lands in.
  const back = inner.lastIndexOf('\\', cut - 1);
  if (back >= 0 && back >= cut - 6) {
    const escapeLength = inner[back + 1] === 'u' ? 6 : 2;
    let slashes = 0;
    for (let k = back; k >= 0 && inner[k] === '\\'; k--) slashes++;
    if (slashes % 2 === 1 && back + escapeLength > cut) cut = back;
  }
  return `"${inner.slice(0, cut)}…"` as Redacted;
}

/** Redacted texts joined. */
export function joinRedacted(parts: readonly Redacted[], separator = ''): Redacted {
  return parts.join(separator) as Redacted;
}

/** Code points as `U+0065 U+0301`, at most `max` of them. */
function codePointList(text: string, max: number, more: boolean): string {
  const all = [...text].map((ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  return all.length > max || more ? `${all.slice(0, max).join(' ')} …` : all.join(' ') || '(nothing)';
}

/** Excerpt modes, by their letter (core/excerpt.ts). */
type Mode = 't' | 'q' | 'j' | 'u' | 'd';

/** Redacts a text: `complete: false` when it was cut from a longer one (see `Redactor.redact`). */
export type Replace = (text: string, complete: boolean) => string;

/** Renders a text holding excerpts: the text between them redacted; each excerpt redacted whole, then escaped, then cut. */
export function renderExcerpts(text: string, replace: Replace): Redacted {
  let out = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf(EXCERPT_OPEN, at);
    const sep = open < 0 ? -1 : text.indexOf(EXCERPT_SEP, open);
    const close = sep < 0 ? -1 : text.indexOf(EXCERPT_CLOSE, sep);
    if (open < 0 || sep < 0 || close < 0) {
      out += replace(text.slice(at).replace(/[\uFDD0-\uFDD2]/g, '\uFFFD'), true);
      return out as Redacted;
    }
    out += replace(text.slice(at, open), true);
    const header = /^([tqjud])([cp])(\d+)$/.exec(text.slice(open + 1, sep));
    const raw = text.slice(sep + 1, close);
    out += header ? renderExcerpt(raw, header[1] as Mode, header[2] === 'c', Number(header[3]), replace) : replace(raw, true);
    at = close + 1;
  }
}

function renderExcerpt(raw: string, mode: Mode, complete: boolean, max: number, replace: Replace): string {
  if (mode === 'u') return codePointList(replace(raw, complete), max, !complete);
  if (mode === 'd') {
    let pair: unknown;
    try {
      pair = JSON.parse(raw);
    } catch {
      pair = undefined;
    }
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') return replace(raw, true);
    const a = [...replace(pair[0], true)];
    const b = [...replace(pair[1], true)];
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    return `from code point ${i + 1}: received ${codePointList(a.slice(i).join(''), max, false)}, sent ${codePointList(b.slice(i).join(''), max, false)}`;
  }
  if (mode === 'j') {
    // A JSON value: its strings and member names redacted, then written out again (escaped), then cut.
    let value: unknown;
    try {
      value = parseJson(raw);
    } catch {
      value = undefined;
    }
    if (value !== undefined && complete) {
      // Written out again, and scanned once more: a number can hold the hex of a key.
      const written = replace(stringifyJson(redactValue(value, replace)), true) as Redacted;
      return truncate(written, max);
    }
    return truncate(replace(raw, complete) as Redacted, max, '…', !complete);
  }
  const redacted = replace(raw, complete) as Redacted;
  if (mode === 'q') return truncateQuoted(escapeJson(redacted), max, !complete);
  return truncate(redacted, max, '…', !complete);
}

/** A parsed JSON value with its strings and member names redacted. */
function redactValue(value: unknown, replace: Replace): unknown {
  if (typeof value === 'string') return replace(value, true);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, replace));
  // Parsed JSON objects have no prototype (core/json.ts); the copy has none either, so a `__proto__` member stays one.
  if (value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)) {
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[replace(k, true)] = redactValue(v, replace);
    return out;
  }
  return value;
}
