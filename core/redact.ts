/**
 * Keeps the API key, and every credential the suite derives from it, out of
 * everything it writes.
 *
 * One order everywhere: decode → redact the whole text → escape → truncate.
 * {@link Redactor.redact} is the only way to make a {@link Redacted} string;
 * {@link escapeJson} and {@link truncate} take one and give one, so text is
 * never cut or escaped before it was redacted (the compiler keeps the order),
 * and report fields that require `Redacted` cannot be filled with raw text.
 *
 * The scanner finds a secret in the forms a server may echo it in, each mapped
 * back to the exact characters of the text that encode it:
 * - plain (and the UTF-8 bytes of a Latin-1 key read as Latin-1);
 * - escaped: JSON (`\/`, `\"`, `\uXXXX` in either case, mixed with plain
 *   characters), `\xHH`, percent-encoding (either case; UTF-8 or Latin-1 bytes),
 *   HTML character references, JSON Pointer (`~0`, `~1`), and up to three
 *   such layers one inside another (`%2551`, a `\\u0051` inside a JSON string);
 * - base64 and base64url of any text holding it (`Bearer <key>`,
 *   `conformance:<key>`, `user:<key>`…), at any of the three byte alignments,
 *   UTF-8 or Latin-1: the whole base64 run is replaced; and so of any text
 *   holding the Basic credentials the suite sends ({@link basicCredentials},
 *   registered as a secret of their own), such as a whole `Basic …` header;
 * - hex of its bytes, either case.
 * It uses `indexOf` and one linear pass per view, never a pattern built from
 * the key, so a key of {@link MAX_KEY_LENGTH} characters costs what a short
 * one does.
 *
 * Server text may be put into a message whole, as an *excerpt* ({@link excerpt}):
 * it is redacted, escaped and cut only when the message is redacted.
 */
import { isUtf8 } from 'node:buffer';
import { UsageError } from './errors.js';
import { EXCERPT_CLOSE, EXCERPT_OPEN, EXCERPT_SEP } from './excerpt.js';
import { SampledGrams } from './grams.js';
import { decodeUtf8, parseJson, stringifyJson } from './json.js';
import { setting, type Wording, wording } from './wording.js';

export { excerpt, holdsExcerpt } from './excerpt.js';

/** Placeholder for the API key in evidence; curl commands use the shell variable instead. */
export const KEY_PLACEHOLDER = '<API_KEY>';

/** The environment variable the CLI reads the key from; replay commands expand it. */
export const KEY_ENV = 'PETSTORE_API_KEY';

/**
 * What `verify` runs the suite with when the recorded key had no letters (its
 * letter-case-swapped variant was never sent): a placeholder without letters
 * either, so the recomputation sends exactly the recorded requests.
 */
export const LETTERLESS_STAND_IN = '<0#1!2-3=4+5*6>';

/** Shortest key the suite takes: a shorter one would occur in ordinary text everywhere. */
export const MIN_KEY_LENGTH = 4;
/** Longest key the suite takes (characters). */
export const MAX_KEY_LENGTH = 4096;

declare const REDACTED: unique symbol;
/** Text that went through a {@link Redactor}: it holds no registered secret in any form the scanner knows. */
export type Redacted = string & { readonly [REDACTED]: true };

/** Text the suite wrote itself, holding nothing from outside (a constant, a number). Use sparingly. */
export function suiteText(text: string): Redacted {
  return text as Redacted;
}

/** What a run or a certification without a key is told. */
export const KEY_REQUIRED: Wording = wording`an API key is required: pass ${setting('apiKey')}`;

/**
 * Why `key` cannot be used, in words that never quote it; undefined when it can.
 * Bounds: {@link MIN_KEY_LENGTH} to {@link MAX_KEY_LENGTH} characters of printable
 * ASCII or Latin-1 (it travels in an HTTP header), without `<` and `>` (the
 * placeholders use them) and without whitespace at either end (HTTP drops it).
 */
export function keyProblem(key: string): Wording | undefined {
  if (key.length === 0) return KEY_REQUIRED;
  if (key.length > MAX_KEY_LENGTH) return [`the API key is ${key.length} characters long; at most ${MAX_KEY_LENGTH} are supported`];
  if (key.length < MIN_KEY_LENGTH) return [`the API key is ${key.length} character(s) long; at least ${MIN_KEY_LENGTH} are needed to keep it out of the reports`];
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c < 0xa0)) return ['the API key holds a control character (a line break, a tab…), which an HTTP header cannot carry'];
    if (c > 0xff) return ['the API key holds a character outside Latin-1 (U+0000–U+00FF), which an HTTP header cannot carry'];
    if (c === 0x3c || c === 0x3e) return ['the API key holds "<" or ">", which the redaction placeholders use'];
  }
  if (/^\s|\s$/.test(key)) return ['the API key begins or ends with whitespace, which HTTP drops from header values'];
  return undefined;
}

/** Throws a `UsageError` (quoting nothing of the key) when {@link keyProblem} finds one. */
export function checkApiKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new UsageError(problem);
}

interface Secret {
  value: string;
  label: string;
  /** Pieces of it count too ({@link Needle.fragments}). */
  fragments: boolean;
}

/** A needle the scanner looks for in a view of the text. */
interface Needle {
  text: string;
  label: string;
  /** Pieces of it count too ({@link FRAGMENT}): the key (and so its near misses), not its case-changed forms (ordinary words would match). */
  fragments?: boolean;
}

/** A base64 core: characters that only the secret's bytes determine, at one alignment. */
interface Core {
  text: string;
}

/** Where each UTF-16 unit of a decoded view came from in the original: unit j from `start[j]` to `end[j]` (exclusive). */
interface Offsets {
  start: Int32Array;
  end: Int32Array;
}

/**
 * A decoded view of a text: `text`, and where each of its UTF-16 units came
 * from in the original. The offsets are worked out only when a match in the
 * view needs them: matches are rare, and the offsets of a long body take four
 * times its text (a sampled page of animals, under load, many times a second).
 */
interface View {
  text: string;
  /** Undefined for the identity view. */
  offsets?: () => Offsets;
}

interface Span {
  start: number;
  end: number;
  label: string;
}

/** What the scanner looks for, compiled once per set of secrets. */
interface Compiled {
  plain: Needle[];
  cores: Core[];
  hex: Needle[];
  minCore: number;
  minHex: number;
  /** Every {@link FRAGMENT}-character piece of a secret, and their rolling hashes. */
  windows: Set<string>;
  windowHashes: Set<number>;
  /** Rules out, cheaply, a view holding none of the above (most do). */
  grams: SampledGrams;
}

/** Texts up to this long are remembered once redacted, up to this many. */
const SEEN_MAX_LENGTH = 256;
const SEEN_MAX_ENTRIES = 4096;

const BASE64_LABEL = `<base64 holding ${KEY_PLACEHOLDER}>`;
const FRAGMENT_LABEL = `<part of ${KEY_PLACEHOLDER}>`;

/** Characters of a secret that make a fragment worth hiding: any piece this long is replaced, wherever it is. */
export const FRAGMENT = 8;
const HASH_BASE = 0x01000193;
const HASH_POW = (() => {
  let p = 1;
  for (let k = 1; k < FRAGMENT; k++) p = Math.imul(p, HASH_BASE);
  return p;
})();

function windowHash(text: string, at: number): number {
  let h = 0;
  for (let k = 0; k < FRAGMENT; k++) h = (Math.imul(h, HASH_BASE) + text.charCodeAt(at + k)) | 0;
  return h;
}

/**
 * Pieces of a secret ({@link FRAGMENT} characters or more) anywhere in `v`: a
 * key cut short, or mangled past some point (a client that keeps 7 bits of
 * each header byte), still shows no part of itself. A rolling hash, one pass.
 */
function fragmentRuns(v: string, compiled: Compiled, hit: (start: number, end: number) => void): void {
  if (compiled.windows.size === 0 || v.length < FRAGMENT) return;
  let h = windowHash(v, 0);
  for (let i = 0; ; i++) {
    if (compiled.windowHashes.has(h) && compiled.windows.has(v.slice(i, i + FRAGMENT))) hit(i, i + FRAGMENT);
    if (i + FRAGMENT >= v.length) break;
    h = (Math.imul((h - Math.imul(v.charCodeAt(i), HASH_POW)) | 0, HASH_BASE) + v.charCodeAt(i + FRAGMENT)) | 0;
  }
}

/** Excerpt modes, by their letter (core/excerpt.ts). */
type Mode = 't' | 'q' | 'j' | 'u' | 'd';

/** Code points as `U+0065 U+0301`, at most `max` of them. */
function codePointList(text: string, max: number, more: boolean): string {
  const all = [...text].map((ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  return all.length > max || more ? `${all.slice(0, max).join(' ')} …` : all.join(' ') || '(nothing)';
}

/**
 * Replaces registered secrets in text, in every form the module comment lists.
 * Where matches overlap they are merged, so nothing of either survives; the
 * earliest, longest match names the label. The labels of a key come out the
 * same whatever the key, even for the placeholder itself: verify relies on it
 * to match a replay's headers with a transcript's.
 */
export class Redactor {
  #secrets: Secret[] = [];
  #compiled: Compiled | undefined;
  /** Labels of base64 runs already seen (an echoing target repeats them). */
  readonly #labels = new Map<string, string>();
  /** Whole texts replaced as a whole only (an Authorization value holding a near miss too short to look for anywhere). */
  readonly #wholes = new Map<string, string>();
  /** Short complete texts already redacted: header names and values repeat from one exchange to the next. */
  readonly #seen = new Map<string, { text: string; changed: boolean }>();

  /** Registers a whole text (a header value) that is replaced only when it is all the text there is. */
  addWhole(value: string, label: string): this {
    if (value.length > 0) this.#wholes.set(value, label);
    this.#seen.clear();
    return this;
  }

  /**
   * Registers a secret and the label that replaces it. Empty strings are ignored.
   * `fragments: false`: only the whole secret counts, not its pieces (an
   * encoded credential, whose pieces are ordinary base64).
   */
  add(value: string, label: string, options: { fragments?: boolean } = {}): this {
    if (value.length > 0 && !this.#secrets.some((s) => s.value === value)) {
      // Pieces of the key itself, not of its case-changed forms (ordinary words would match: "DISTINCTIVE" swapped holds "distinct").
      const folded = label.includes(' in lower case>') || label.includes(' in upper case>') || label.includes(' letter case swapped>');
      this.#secrets.push({ value, label, fragments: (options.fragments ?? true) && !folded });
      this.#secrets.sort((a, b) => b.value.length - a.value.length);
      this.#compiled = undefined;
      this.#labels.clear();
      this.#seen.clear();
    }
    return this;
  }

  /**
   * `text` with every registered secret replaced by its label, excerpts
   * ({@link excerpt}) rendered: each redacted whole, then escaped, then cut.
   * `complete: false` says the text was cut from a longer one: an encoded run
   * at its very end (base64, hex, percent or escaped characters, 8 or more),
   * which may be a key's form cut in two, is dropped; a piece of a plain or
   * escaped key is a fragment and replaced anyway.
   */
  redact(text: string, options: { complete?: boolean } = {}): Redacted {
    if (text.includes(EXCERPT_OPEN)) return this.#render(text);
    return this.#replace(text, options.complete ?? true, 0).text as Redacted;
  }

  /** Like {@link redact}, and says whether anything was replaced or dropped. */
  redactChanged(text: string, options: { complete?: boolean } = {}): { text: Redacted; changed: boolean } {
    if (text.includes(EXCERPT_OPEN)) {
      const out = this.#render(text);
      return { text: out, changed: out !== text };
    }
    const out = this.#replace(text, options.complete ?? true, 0);
    return { text: out.text as Redacted, changed: out.changed };
  }

  /** True when `text` holds a registered secret in any form. */
  leaks(text: string): boolean {
    return this.#wholes.has(text) || this.#spans(text, 0).length > 0;
  }

  /**
   * `bytes` redacted: valid UTF-8 as text; anything else read as Latin-1 (byte
   * for byte), so a key the server wrote in Latin-1 is found too. The same
   * bytes when nothing was replaced. `complete: false`: the bytes were cut from
   * a longer body (see {@link redact}).
   */
  redactBytes(bytes: Uint8Array, options: { complete?: boolean } = {}): Uint8Array {
    const text = decodeUtf8(bytes, { keepBom: true });
    const complete = options.complete ?? true;
    if (text !== undefined) {
      const out = this.#replace(text, complete, 0);
      return out.changed ? Buffer.from(out.text) : bytes;
    }
    const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    const out = this.#replace(latin1, complete, 0);
    return out.changed ? Buffer.from(out.text, 'latin1') : bytes;
  }

  /** Renders a text holding excerpts: the text between them redacted; each excerpt redacted whole, then escaped, then cut. */
  #render(text: string): Redacted {
    let out = '';
    let at = 0;
    for (;;) {
      const open = text.indexOf(EXCERPT_OPEN, at);
      const sep = open < 0 ? -1 : text.indexOf(EXCERPT_SEP, open);
      const close = sep < 0 ? -1 : text.indexOf(EXCERPT_CLOSE, sep);
      if (open < 0 || sep < 0 || close < 0) {
        out += this.#replace(text.slice(at).replace(/[\uFDD0-\uFDD2]/g, '\uFFFD'), true, 0).text;
        return out as Redacted;
      }
      out += this.#replace(text.slice(at, open), true, 0).text;
      const header = /^([tqjud])([cp])(\d+)$/.exec(text.slice(open + 1, sep));
      const raw = text.slice(sep + 1, close);
      out += header ? this.#renderExcerpt(raw, header[1] as Mode, header[2] === 'c', Number(header[3])) : this.#replace(raw, true, 0).text;
      at = close + 1;
    }
  }

  #renderExcerpt(raw: string, mode: Mode, complete: boolean, max: number): string {
    if (mode === 'u') return codePointList(this.#replace(raw, complete, 0).text, max, !complete);
    if (mode === 'd') {
      let pair: unknown;
      try {
        pair = JSON.parse(raw);
      } catch {
        pair = undefined;
      }
      if (!Array.isArray(pair) || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') return this.#replace(raw, true, 0).text;
      const a = [...this.#replace(pair[0], true, 0).text];
      const b = [...this.#replace(pair[1], true, 0).text];
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
        const written = this.#replace(stringifyJson(this.#redactValue(value)), true, 0).text as Redacted;
        return truncate(written, max);
      }
      return truncate(this.#replace(raw, complete, 0).text as Redacted, max, '…', !complete);
    }
    const redacted = this.#replace(raw, complete, 0).text as Redacted;
    if (mode === 'q') return truncateQuoted(escapeJson(redacted), max, !complete);
    return truncate(redacted, max, '…', !complete);
  }

  #redactValue(value: unknown): unknown {
    if (typeof value === 'string') return this.#replace(value, true, 0).text;
    if (Array.isArray(value)) return value.map((v) => this.#redactValue(v));
    // Parsed JSON objects have no prototype (core/json.ts); the copy has none either, so a `__proto__` member stays one.
    if (value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)) {
      const out = Object.create(null) as Record<string, unknown>;
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[this.#replace(k, true, 0).text] = this.#redactValue(v);
      return out;
    }
    return value;
  }

  #replace(text: string, complete: boolean, depth: number): { text: string; changed: boolean } {
    const cacheable = complete && depth === 0 && text.length <= SEEN_MAX_LENGTH;
    const seen = cacheable ? this.#seen.get(text) : undefined;
    if (seen) return seen;
    const out = this.#replaceNow(text, complete, depth);
    if (cacheable) {
      if (this.#seen.size >= SEEN_MAX_ENTRIES) this.#seen.clear();
      this.#seen.set(text, out);
    }
    return out;
  }

  #replaceNow(text: string, complete: boolean, depth: number): { text: string; changed: boolean } {
    const whole = this.#wholes.get(text);
    if (whole !== undefined) return { text: whole, changed: true };
    if (this.#secrets.length === 0) return { text, changed: false };
    const limit = complete ? text.length : cutFormStart(text);
    const spans = this.#spans(text, depth);
    if (spans.length === 0 && limit === text.length) return { text, changed: false };
    let out = '';
    let at = 0;
    for (const span of spans) {
      if (span.start >= limit) break;
      out += text.slice(at, span.start) + span.label;
      at = span.end;
    }
    if (at < limit) out += text.slice(at, limit);
    return { text: out, changed: true };
  }

  /** Every match in every view, in original offsets, merged where they overlap. */
  #spans(text: string, depth: number): Span[] {
    if (this.#secrets.length === 0 || text.length === 0) return [];
    const compiled = this.#compile();
    const found: Span[] = [];
    for (const view of decodedViews(text)) {
      let offsets: Offsets | undefined;
      const from = (j: number) => (view.offsets ? (offsets ??= view.offsets()).start[j]! : j);
      const to = (j: number) => (view.offsets ? (offsets ??= view.offsets()).end[j - 1]! : j);
      const v = view.text;
      if (!compiled.grams.mayHold(v)) continue;
      for (const needle of compiled.plain) {
        for (let i = v.indexOf(needle.text); i >= 0; i = v.indexOf(needle.text, i + 1)) found.push({ start: from(i), end: to(i + needle.text.length), label: needle.label });
      }
      fragmentRuns(v, compiled, (s, e) => found.push({ start: from(s), end: to(e), label: FRAGMENT_LABEL }));
      if (compiled.cores.length > 0) this.#base64Runs(v, compiled, depth, (s, e, label) => found.push({ start: from(s), end: to(e), label }));
      if (compiled.hex.length > 0) hexRuns(v, compiled.minHex, compiled.hex, (s, e, label) => found.push({ start: from(s), end: to(e), label }));
    }
    if (found.length === 0) return found;
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    const merged: Span[] = [];
    for (const span of found) {
      const last = merged.at(-1);
      if (last && span.start < last.end) last.end = Math.max(last.end, span.end);
      else merged.push({ ...span });
    }
    return merged;
  }

  /** Runs of base64 (or base64url) characters holding a core of a secret: the whole run, with its padding. */
  #base64Runs(v: string, compiled: Compiled, depth: number, hit: (start: number, end: number, label: string) => void): void {
    forEachRun(v, isBase64Char, compiled.minCore, (i, j) => {
      const run = v.slice(i, j);
      if (!compiled.cores.some((core) => run.includes(core.text))) return;
      let end = j;
      while (end < v.length && v.charCodeAt(end) === 0x3d) end++;
      hit(i, end, depth > 0 ? BASE64_LABEL : this.#base64Label(run));
    });
  }

  /** `<base64 of conformance:<API_KEY>>` when the run decodes to short printable text; otherwise a generic label. */
  #base64Label(run: string): string {
    const known = this.#labels.get(run);
    if (known !== undefined) return known;
    const label = this.#computeBase64Label(run);
    if (this.#labels.size > 1024) this.#labels.clear();
    this.#labels.set(run, label);
    return label;
  }

  #computeBase64Label(run: string): string {
    const bytes = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    const decoded = decodeUtf8(bytes, { keepBom: true }) ?? bytes.toString('latin1');
    const inner = this.#replace(decoded, true, 1);
    if (!inner.changed || inner.text.length > 64 || /[\u0000-\u001f\u007f-\u009f"\\\uFDD0-\uFDD2]/.test(inner.text)) return BASE64_LABEL;
    return `<base64 of ${inner.text}>`;
  }

  #compile(): Compiled {
    if (this.#compiled) return this.#compiled;
    const plain: Needle[] = [];
    const cores = new Set<string>();
    const hex: Needle[] = [];
    for (const { value, label, fragments } of this.#secrets) {
      plain.push({ text: value, label, fragments });
      const encodings = [Buffer.from(value, 'utf8')];
      if (/[^\u0000-\u007f]/.test(value)) {
        // The UTF-8 bytes read as Latin-1, and the Latin-1 bytes themselves (a server that keeps the header's bytes).
        plain.push({ text: encodings[0]!.toString('latin1'), label, fragments });
        if (!/[^\u0000-\u00ff]/.test(value)) encodings.push(Buffer.from(value, 'latin1'));
      }
      for (const bytes of encodings) {
        for (const core of base64Cores(bytes)) {
          cores.add(core);
          cores.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
        }
        hex.push({ text: bytes.toString('hex'), label: `<hex of ${label}>` });
      }
    }
    const coreList = [...cores].filter((c) => c.length >= 4).map((text) => ({ text }));
    const windows = new Set<string>();
    for (const { text, fragments } of plain) if (fragments) for (let i = 0; i + FRAGMENT <= text.length; i++) windows.add(text.slice(i, i + FRAGMENT));
    this.#compiled = {
      plain: plain.sort((a, b) => b.text.length - a.text.length),
      cores: coreList,
      hex,
      minCore: Math.min(...coreList.map((c) => c.text.length), Number.MAX_SAFE_INTEGER),
      minHex: Math.min(...hex.map((h) => h.text.length)),
      windows,
      windowHashes: new Set([...windows].map((w) => windowHash(w, 0))),
      // Every match is one of these, whole: a needle, a window, a core, a hex needle (in either case, which the grams allow).
      grams: new SampledGrams([...plain.map((n) => n.text), ...windows, ...coreList.map((c) => c.text), ...hex.map((h) => h.text)]),
    };
    return this.#compiled;
  }
}

/**
 * The base64 characters that only `bytes` determine, when they are encoded
 * after 0, 1 or 2 other bytes: whatever surrounds them, an encoding of a text
 * holding them holds one of these three.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let align = 0; align < 3; align++) {
    const padded = Buffer.concat([Buffer.alloc(align), bytes]);
    const encoded = padded.toString('base64').replace(/=+$/, '');
    const start = [0, 2, 3][align]!;
    const total = padded.length;
    const rest = total % 3;
    const end = 4 * Math.floor(total / 3) + (rest === 1 ? 1 : rest === 2 ? 2 : 0);
    if (end > start) cores.push(encoded.slice(start, end));
  }
  return cores;
}

function isBase64Char(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f || c === 0x2d || c === 0x5f;
}

function isHexChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Hex of a secret's bytes, in either case, inside runs of hex digits. */
function hexRuns(v: string, minHex: number, needles: readonly Needle[], hit: (start: number, end: number, label: string) => void): void {
  forEachRun(v, isHexChar, minHex, (i, j) => {
    const run = v.slice(i, j).toLowerCase();
    for (const needle of needles) {
      for (let k = run.indexOf(needle.text); k >= 0; k = run.indexOf(needle.text, k + 1)) hit(i + k, i + k + needle.text.length, needle.label);
    }
  });
}

/** Calls `each` with the start and end of every maximal run of characters `inRun` accepts that is at least `min` long. */
function forEachRun(v: string, inRun: (c: number) => boolean, min: number, each: (start: number, end: number) => void): void {
  const n = v.length;
  for (let i = 0; i < n; ) {
    if (!inRun(v.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i;
    while (j < n && inRun(v.charCodeAt(j))) j++;
    if (j - i >= min) each(i, j);
    i = j;
  }
}

/**
 * Where the encoded run a cut text ends with begins (base64, hex, percent or
 * escaped characters, {@link FRAGMENT} or more): a form of a key cut in two
 * cannot be recognised, so that run is dropped. The text's length when there is none.
 */
function cutFormStart(text: string): number {
  let i = text.length;
  while (i > 0 && /[A-Za-z0-9+/=_\-%\\]/.test(text[i - 1]!)) i--;
  return text.length - i >= FRAGMENT ? i : text.length;
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
function decodedViews(text: string): View[] {
  const views: View[] = [{ text }];
  const seen = new Set([text]);
  let frontier = views;
  for (let depth = 0; depth < MAX_LAYERS && frontier.length > 0; depth++) {
    const next: View[] = [];
    for (const view of frontier) {
      for (const layer of LAYERS) {
        if (!(layer === 'escapes' ? mayBeEscaped(view.text) : mayBePercent(view.text))) continue;
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
const SIMPLE_ESCAPES: Readonly<Record<string, number>> = { '"': 0x22, '\\': 0x5c, '/': 0x2f, "'": 0x27, b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09 };

const ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", sol: '/', bsol: '\\', plus: '+', equals: '=' };

const LAYERS = ['escapes', 'percent'] as const;
type Layer = (typeof LAYERS)[number];

/**
 * One layer decoded, for searching: `escapes` (JSON and `\x` escapes, HTML
 * character references, JSON Pointer escapes) or `percent` (sequences decoded
 * as UTF-8 where they form it, else as Latin-1). Every decoded unit keeps the
 * span of the original characters that encoded it ({@link View.offsets}).
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
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (layer === 'percent') {
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
            const cp = Buffer.from(bytes.slice(k, k + len)).toString('utf8').codePointAt(0)!;
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
      const m = /^&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([a-zA-Z]{2,6}));/.exec(text.slice(i, i + 12));
      if (m) {
        const cp = m[1] !== undefined ? parseInt(m[1], 16) : m[2] !== undefined ? parseInt(m[2], 10) : ENTITIES[m[3]!.toLowerCase()]?.codePointAt(0);
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

/**
 * The key and the near-miss keys the auth checks send, with the label that
 * stands for each: the key itself, the key without its last character, the
 * key with its letter case swapped; and the key with its ASCII letters in lower
 * and in upper case (an echo in a header name comes back so). Every encoded form of these
 * (base64 of `conformance:<key>`, percent-encoded…) is found by the scanner.
 * The labels do not depend on the key, and a form two of them share keeps the
 * earlier label, so the placeholder itself gets the same labels.
 */
export function keyDerivatives(key: string): [value: string, label: string][] {
  if (!key) return [];
  const out: [string, string][] = [[key, KEY_PLACEHOLDER]];
  const add = (value: string, label: string) => {
    if (value.length > 0 && !out.some(([v]) => v === value)) out.push([value, label]);
  };
  if (key.length > 1) add(key.slice(0, -1), `<${KEY_PLACEHOLDER} without its last character>`);
  add(swapCase(key), `<${KEY_PLACEHOLDER} with its letter case swapped>`);
  // Every letter, as a server may fold the key; and ASCII letters only, as HTTP folds a header name.
  add(key.toLowerCase(), `<${KEY_PLACEHOLDER} in lower case>`);
  add(key.toUpperCase(), `<${KEY_PLACEHOLDER} in upper case>`);
  add(key.replace(/[A-Z]+/g, (m) => m.toLowerCase()), `<${KEY_PLACEHOLDER} in lower case>`);
  add(key.replace(/[a-z]+/g, (m) => m.toUpperCase()), `<${KEY_PLACEHOLDER} in upper case>`);
  return out;
}

/**
 * A redactor for `key` and everything {@link keyDerivatives} derives from it.
 * A near miss shorter than {@link MIN_KEY_LENGTH} (the key without its last
 * character, for a key of 4) is not looked for everywhere, where it would be
 * found in ordinary words: only the Authorization value the suite sends with it
 * is replaced, as a whole.
 */
export function redactorFor(key: string): Redactor {
  const r = new Redactor();
  for (const [value, label] of keyDerivatives(key)) {
    if (value === key || value.length >= MIN_KEY_LENGTH) r.add(value, label);
    else r.addWhole(`Bearer ${value}`, `Bearer ${label}`);
  }
  return addBasicCredentials(r, key);
}

/** The Basic credentials the auth checks send with `key`: base64 of `conformance:<key>`. */
export function basicCredentials(key: string): string {
  return Buffer.from(`conformance:${key}`).toString('base64');
}

/**
 * `r` with the Basic credentials of `key` registered as a secret of their own:
 * the key's own forms find them as they are sent, but not encoded once more
 * (base64 of a whole `Basic …` header holds no encoding of the key's bytes).
 */
function addBasicCredentials(r: Redactor, key: string): Redactor {
  if (key) r.add(basicCredentials(key), `<base64 of conformance:${KEY_PLACEHOLDER}>`, { fragments: false });
  return r;
}

/**
 * A redactor for several keys at once (the CLI's error path, which may know
 * more than one). Keys shorter than {@link MIN_KEY_LENGTH}, which are refused
 * before they are used, are left out: they would be found in any text.
 */
export function redactorForAll(keys: readonly (string | undefined)[]): Redactor {
  const r = new Redactor();
  for (const key of keys) {
    if (!key || key.length < MIN_KEY_LENGTH) continue;
    for (const [value, label] of keyDerivatives(key)) if (value.length >= MIN_KEY_LENGTH) r.add(value, label);
    addBasicCredentials(r, key);
  }
  return r;
}

/** `text` with upper and lower case letters exchanged. */
export function swapCase(text: string): string {
  let out = '';
  for (const ch of text) {
    const upper = ch.toUpperCase();
    out += ch === upper ? ch.toLowerCase() : upper;
  }
  return out;
}

/**
 * Every labelled form of an Authorization header the suite can send with
 * `key`: the redacted header value, and the value itself. Replay uses it to
 * put the key back exactly where a recorded request had its placeholder, and
 * nowhere else.
 */
export function authorizationForms(key: string, redactor: Redactor = redactorFor(key)): [redacted: Redacted, value: string][] {
  const values = [
    `Bearer ${key}`,
    `Bearer ${key}x`,
    `Bearer ${key.slice(0, -1)}`,
    `Bearer ${swapCase(key)}`,
    `Basic ${basicCredentials(key)}`,
    `Token ${key}`,
    key,
    `Bearer${key}`,
    `bearer ${key}`,
    `BEARER ${key}`,
  ];
  return values.map((value) => [redactor.redact(value), value]);
}
