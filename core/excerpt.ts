/**
 * Excerpts: server text put into a message whole, marked so that the message's
 * redaction (core/redact.ts) can render it in the one safe order: redact the
 * whole text, then escape it, then cut it. Nothing here knows the key; a
 * message holding excerpts is only ever written after it was redacted.
 *
 * The marks are Unicode noncharacters (U+FDD0–U+FDD2); any in the text itself
 * are replaced by U+FFFD, so an excerpt cannot be forged or nested.
 */

export const EXCERPT_OPEN = '\uFDD0';
export const EXCERPT_SEP = '\uFDD1';
export const EXCERPT_CLOSE = '\uFDD2';

/**
 * How an excerpt is written once redacted: `text` as is, `quote` as a JSON
 * string literal, `json` a JSON value written out again, `codepoints` as
 * `U+0065 U+0301` (`max` of them), `difference` (`raw` is the JSON array
 * `[received, sent]`) where two texts part, in code points.
 */
export type ExcerptMode = 'text' | 'quote' | 'json' | 'codepoints' | 'difference';

const MODE_LETTER: Record<ExcerptMode, string> = { text: 't', quote: 'q', json: 'j', codepoints: 'u', difference: 'd' };

/**
 * `raw` marked as an excerpt of at most `max` characters (once escaped).
 * `complete: false`: `raw` was itself cut from a longer text, so what lies
 * near its end may be part of a key cut in two, and is dropped when rendered.
 */
export function excerpt(raw: string, max: number, options: { mode?: ExcerptMode; complete?: boolean } = {}): string {
  const mode = MODE_LETTER[options.mode ?? 'text'];
  return `${EXCERPT_OPEN}${mode}${options.complete === false ? 'p' : 'c'}${Math.max(1, Math.floor(max))}${EXCERPT_SEP}${raw.replace(/[\uFDD0-\uFDD2]/g, '\uFFFD')}${EXCERPT_CLOSE}`;
}

/** Whether `text` holds an excerpt not rendered yet. */
export function holdsExcerpt(text: string): boolean {
  return text.includes(EXCERPT_OPEN);
}
