/**
 * The scanner: finds registered secrets in text, in the forms a server may
 * echo them in, each mapped back to the exact characters of the text that
 * encode it:
 * - plain (and the UTF-8 bytes of a Latin-1 secret read as Latin-1);
 * - escaped: JSON (`\/`, `\"`, `\uXXXX` in either case, mixed with plain
 *   characters), `\xHH`, percent-encoding (either case; UTF-8 or Latin-1 bytes),
 *   HTML character references, JSON Pointer (`~0`, `~1`), and up to three
 *   such layers one inside another (`%2551`, a `\\u0051` inside a JSON string)
 *   (views.ts);
 * - base64 and base64url of any text holding it (`Bearer <key>`,
 *   `conformance:<key>`, `user:<key>`…), at any of the three byte alignments,
 *   UTF-8 or Latin-1: the whole base64 run is replaced; and so of any text
 *   holding an encoded credential registered as a form of its own (the Basic
 *   credentials the auth checks send), such as a whole `Basic …` header
 *   (encoded.ts);
 * - hex of its bytes, either case (encoded.ts);
 * - quoted-printable, CSS escapes, compatibility characters (full-width and
 *   mathematical letters, NFKC) (views.ts);
 * - encoded twice (base64 or hex of its base64, base64 of its hex), base32,
 *   and its bytes as one number in decimal (needles.ts);
 * - ROT13 and reversed, and spelt with separators between its characters
 *   (spaces, invisible characters, a JSON array of them, a line break inside
 *   its base64) (gaps.ts);
 * - pieces of {@link FRAGMENT} characters of any of these (pieces.ts).
 * Each form of a secret is looked for as sent and case-folded (lower and
 * upper case, every letter or ASCII letters only, as HTTP folds a header
 * name). It uses `indexOf` and one linear pass per view, never a pattern
 * built from a secret, so a key of 4096 characters costs what a short one does.
 */
import { holdsExcerpt } from '../excerpt.js';
import { decodeUtf8 } from '../json.js';
import { forEachRun, hexRuns, isBase64Char, isHexChar, cutFormStart } from './encoded.js';
import { type Compiled, compileNeedles, type Needle } from './needles.js';
import { renderExcerpts } from './text.js';
import {
  base64Label,
  FOLDS,
  FRAGMENT,
  foldLabel,
  hexLabel,
  pieceLabel,
  type Offsets,
  type Redacted,
  type Secret,
  type SecretForm,
  SHORTEST_FORM,
  type View,
} from './types.js';
import { cutApart, gapView, separatorsOf } from './gaps.js';
import { decodedViews } from './views.js';

/** A match, in the offsets of the text as given, and the label that replaces it. */
interface Span {
  start: number;
  end: number;
  label: string;
}

/** Texts up to this long are remembered once redacted, up to this many. */
const SEEN_MAX_LENGTH = 256;
const SEEN_MAX_ENTRIES = 4096;

/**
 * The forms of `secret` in the order they are registered (the first of two
 * equal values keeps its label): each form as sent, the secret's own folds,
 * the encoded forms, then the folds of the other forms.
 */
function formsOf(secret: Secret): SecretForm[] {
  const [self, ...rest] = secret.forms;
  if (!self) return [];
  const folds = (form: SecretForm): SecretForm[] =>
    FOLDS.map(({ name, fold }) => ({ ...form, value: fold(form.value), label: foldLabel(form.label, secret.placeholder, name) }));
  return [...secret.forms.filter((f) => !f.wholeOnly), ...folds(self), ...secret.forms.filter((f) => f.wholeOnly), ...rest.flatMap(folds)];
}

/** A form as a redactor registers it. */
export interface RegisteredForm extends SecretForm {
  /**
   * Looked for in every text; false for a form as sent shorter than
   * {@link SHORTEST_FORM} (the key without its last character, for a key of
   * 4), of which only the text it is sent in is replaced, when it is all a
   * text holds (`sentAfter`).
   */
  lookedFor: boolean;
}

/**
 * Every value `secret` is registered as, with its label, in registration
 * order, first of equal values kept: what a redactor looks for (each also
 * encoded and, unless `wholeOnly`, in pieces), and the short forms it does not.
 */
export function registeredForms(secret: Secret): RegisteredForm[] {
  const out: RegisteredForm[] = [];
  const self = secret.forms[0]?.value;
  for (const form of formsOf(secret)) {
    if (form.value.length === 0 || out.some((f) => f.value === form.value)) continue;
    const lookedFor = form.value === self || form.value.length >= SHORTEST_FORM;
    // A fold of a short form is not kept even as a whole: the suite never sends it.
    if (lookedFor || secret.forms.includes(form)) out.push({ ...form, lookedFor });
  }
  return out;
}

/** How a {@link Redactor} looks. */
export interface RedactorOptions {
  /**
   * Every {@link FRAGMENT}-character window, in lower case, of text the suite
   * publishes itself whatever the key (the rule catalog report.html shows): a
   * piece of a secret that is one of them is not looked for (the secret's
   * whole forms still are). Such a piece tells nothing of the secret where
   * the suite's own words hold it, and hiding it would rewrite them.
   */
  publicPieces?: ReadonlySet<string>;
}

/**
 * Replaces registered secrets in text, in every form the module comment lists.
 * Where matches overlap they are merged, so nothing of either survives; the
 * earliest, longest match names the label. The labels of a secret come out the
 * same whatever its value, even for the placeholder itself: verify relies on
 * it to match a replay's headers with a transcript's.
 */
export class Redactor {
  readonly #publicPieces: ReadonlySet<string>;
  #entries: (Needle & { value: string })[] = [];
  #compiled: Compiled | undefined;
  /** Labels of base64 runs already seen (an echoing target repeats them). */
  readonly #labels = new Map<string, string>();
  /** Whole texts replaced as a whole only (an Authorization value holding a near miss too short to look for anywhere). */
  readonly #wholes = new Map<string, string>();
  /** Short complete texts already redacted: header names and values repeat from one exchange to the next. */
  readonly #seen = new Map<string, { text: string; changed: boolean }>();

  constructor(options: RedactorOptions = {}) {
    this.#publicPieces = options.publicPieces ?? new Set();
  }

  /**
   * Registers a secret, the one way every secret is registered (the key, each
   * secret header, a proxy password, a value a config file took from the
   * environment): each of its forms as sent and case-folded, in pieces unless
   * `wholeOnly`, in every encoding. A form shorter than {@link SHORTEST_FORM}
   * (besides the secret itself) is not looked for anywhere, where ordinary
   * words would match it; with `sentAfter`, the text it is sent in is
   * replaced when it is all a text holds. Empty values are ignored.
   */
  add(secret: Secret): this {
    for (const form of registeredForms(secret)) {
      if (this.#entries.some((s) => s.value === form.value)) continue;
      if (form.lookedFor)
        this.#entries.push({
          value: form.value,
          text: form.value,
          label: form.label,
          owner: secret.placeholder,
          fragments: !form.wholeOnly,
        });
      else if (form.sentAfter !== undefined) this.#wholes.set(`${form.sentAfter}${form.value}`, `${form.sentAfter}${form.label}`);
    }
    this.#entries.sort((a, b) => b.value.length - a.value.length);
    this.#compiled = undefined;
    this.#labels.clear();
    this.#seen.clear();
    return this;
  }

  /**
   * `text` with every registered secret replaced by its label, excerpts
   * (core/excerpt.ts) rendered: each redacted whole, then escaped, then cut.
   * `complete: false` says the text was cut from a longer one: an encoded run
   * at its very end (base64, hex, percent or escaped characters, 8 or more),
   * which may be a secret's form cut in two, is dropped; a piece of a plain or
   * escaped secret is a fragment and replaced anyway.
   */
  redact(text: string, options: { complete?: boolean } = {}): Redacted {
    if (holdsExcerpt(text)) return renderExcerpts(text, (t, complete) => this.#replace(t, complete, 0).text);
    return this.#replace(text, options.complete ?? true, 0).text as Redacted;
  }

  /** Like {@link redact}, and says whether anything was replaced or dropped. */
  redactChanged(text: string, options: { complete?: boolean } = {}): { text: Redacted; changed: boolean } {
    if (holdsExcerpt(text)) {
      const out = this.redact(text);
      return { text: out, changed: out !== text };
    }
    const out = this.#replace(text, options.complete ?? true, 0);
    return { text: out.text as Redacted, changed: out.changed };
  }

  /**
   * True when `text` holds a registered secret in any form: when redacting it
   * as a whole text changes it. Every request's path and headers are asked
   * (core/boundary.ts), and short texts repeat: they are answered from the
   * texts already redacted.
   */
  leaks(text: string): boolean {
    return this.#replace(text, true, 0).changed;
  }

  /**
   * `bytes` redacted: valid UTF-8 as text; anything else read as Latin-1 (byte
   * for byte), so a secret the server wrote in Latin-1 is found too. The same
   * bytes when nothing was replaced. `complete: false`: the bytes were cut from
   * a longer body (see {@link redact}).
   */
  redactBytes(bytes: Uint8Array, options: { complete?: boolean } = {}): Uint8Array {
    return this.redactBytesRead(bytes, options).bytes;
  }

  /**
   * Like {@link redactBytes}, and, when nothing was replaced and the bytes are
   * UTF-8, the text they were scanned as (a leading BOM kept): what a body then
   * parsed would decode again (core/boundary.ts hands it on).
   */
  redactBytesRead(bytes: Uint8Array, options: { complete?: boolean } = {}): { bytes: Uint8Array; text?: string } {
    const text = decodeUtf8(bytes, { keepBom: true });
    const complete = options.complete ?? true;
    if (text !== undefined) {
      const out = this.#replace(text, complete, 0);
      return out.changed ? { bytes: Buffer.from(out.text) } : { bytes, text };
    }
    const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    const out = this.#replace(latin1, complete, 0);
    return { bytes: out.changed ? Buffer.from(out.text, 'latin1') : bytes };
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
    if (this.#entries.length === 0) return { text, changed: false };
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
    if (this.#entries.length === 0 || text.length === 0) return [];
    const compiled = this.#compile();
    const found: Span[] = [];
    for (const view of viewsOf(text, compiled)) {
      let offsets: Offsets | undefined;
      const from = (j: number) => (view.offsets ? (offsets ??= view.offsets()).start[j]! : j);
      const to = (j: number) => (view.offsets ? (offsets ??= view.offsets()).end[j - 1]! : j);
      const v = view.text;
      if (!(view.joined ? compiled.joinedGrams() : compiled.grams).mayHold(v)) continue;
      // In a view without separators, a match counts where separators cut it as they cut a secret, not a word (gaps.ts).
      const hit = (s: number, e: number, label: string) => {
        if (!view.joined || cutApart(view.joined, s, e)) found.push({ start: from(s), end: to(e), label });
      };
      for (const needle of compiled.plain) {
        for (let i = v.indexOf(needle.text); i >= 0; i = v.indexOf(needle.text, i + 1)) hit(i, i + needle.text.length, needle.label);
      }
      compiled.pieces.find(v, (s, e, owner) => hit(s, e, pieceLabel(owner)));
      // Runs are not where they were in a view without separators: whole forms and pieces only.
      if (view.joined) continue;
      if (compiled.cores.size > 0) this.#base64Runs(v, compiled, depth, (s, e, label) => found.push({ start: from(s), end: to(e), label }));
      if (compiled.hex.length > 0)
        hexRuns(v, compiled.minHex, compiled.hex, (s, e, label) => found.push({ start: from(s), end: to(e), label }));
      // An encoded piece takes its whole run: the characters around it encode the neighbouring characters of the secret.
      // After the whole forms, whose labels say more and win where both cover the same run.
      // Hits come in order: one inside the run the last one took adds nothing (and a long run is walked once).
      let runEnd = -1;
      compiled.base64Pieces.find(v, (s, e, owner) => {
        if (s < runEnd) return;
        const [i, j] = runAround(v, s, e, isBase64Char);
        runEnd = j;
        found.push({ start: from(i), end: to(j), label: base64Label(owner) });
      });
      runEnd = -1;
      compiled.hexPieces.find(v, (s, e, owner) => {
        if (s < runEnd) return;
        const [i, j] = runAround(v, s, e, isHexChar);
        runEnd = j;
        found.push({ start: from(i), end: to(j), label: hexLabel(pieceLabel(owner)) });
      });
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
      let owner: string | undefined;
      for (const [core, placeholder] of compiled.cores) {
        if (run.includes(core)) {
          owner = placeholder;
          break;
        }
      }
      if (owner === undefined) return;
      let end = j;
      while (end < v.length && v.charCodeAt(end) === 0x3d) end++;
      hit(i, end, depth > 0 ? base64Label(owner) : this.#base64Label(run, owner));
    });
  }

  /** `<base64 of conformance:<API_KEY>>` when the run decodes to short printable text; otherwise `<base64 holding …>`. */
  #base64Label(run: string, owner: string): string {
    const known = this.#labels.get(run);
    if (known !== undefined) return known;
    const label = this.#computeBase64Label(run, owner);
    if (this.#labels.size > 1024) this.#labels.clear();
    this.#labels.set(run, label);
    return label;
  }

  #computeBase64Label(run: string, owner: string): string {
    const bytes = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    const decoded = decodeUtf8(bytes, { keepBom: true }) ?? bytes.toString('latin1');
    const inner = this.#replace(decoded, true, 1);
    if (!inner.changed || inner.text.length > 64 || /[\u0000-\u001f\u007f-\u009f"\\\uFDD0-\uFDD2]/.test(inner.text))
      return base64Label(owner);
    return `<base64 of ${inner.text}>`;
  }

  /** What the scanner looks for, compiled at the first scan after a secret was added ({@link compileNeedles}). */
  #compile(): Compiled {
    return (this.#compiled ??= compileNeedles(this.#entries, this.#publicPieces));
  }
}

/**
 * The decoded views of `text` (views.ts), each followed by itself without its
 * separators (gaps.ts) where that may hold a whole form or a piece: asked
 * without building it, as most texts hold nothing of a secret either way.
 */
function viewsOf(text: string, compiled: Compiled): View[] {
  const views = decodedViews(text);
  for (let i = views.length - 1; i >= 0; i--) {
    const v = views[i]!.text;
    if (!compiled.joinedGrams().mayHoldWithout(v, separatorsOf(v))) continue;
    const bare = gapView(views[i]!, FRAGMENT);
    if (bare) views.push(bare);
  }
  return views;
}

/** The maximal run of characters `inRun` accepts around `[start, end)` (base64 with its padding). */
function runAround(v: string, start: number, end: number, inRun: (c: number) => boolean): [number, number] {
  let i = start;
  while (i > 0 && inRun(v.charCodeAt(i - 1))) i--;
  let j = end;
  while (j < v.length && inRun(v.charCodeAt(j))) j++;
  if (inRun === isBase64Char) while (j < v.length && v.charCodeAt(j) === 0x3d) j++;
  return [i, j];
}
