/**
 * What junit.xml's text and attributes may hold (reports/junit.ts writes the
 * elements): characters XML 1.0 cannot carry as their JSON-style escape, U+FFFD
 * as `\ufffd`, every `&` escaped (xmlbuilder2 4 leaves an entity-like one as it
 * is), line breaks as `\n` in text and spaces in attributes, each bounded in
 * UTF-8 bytes with a marker when cut; and times as JUnit consumers read them.
 */

/** Largest text of one element (failure, error, skipped, system-out), in UTF-8 bytes, marker included. */
export const MAX_TEXT_BYTES = 64 * 1024;

/** Largest `message` attribute, in UTF-8 bytes. */
const MAX_MESSAGE_BYTES = 1024;

/** What XML 1.0 cannot carry becomes its escape, `\u0000` (via xmlbuilder2's `invalidCharReplacement`). */
export const escapeChar = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Seconds with three decimals, as JUnit's `time` attributes hold them (never negative). */
export function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

/** ISO 8601 without a zone, as Ant's JUnit task writes `timestamp` (`2025-01-01T12:00:00`); the time is UTC. */
export function antTimestamp(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? attribute(iso) : date.toISOString().slice(0, 19);
}

/** An attribute value on one line (a parser turns tab, CR and LF in attributes into spaces anyway), bounded. */
export function attribute(text: string): string {
  return ampersands(visible(cut(text, MAX_MESSAGE_BYTES).replace(/[\t\n\r]+/g, ' ')));
}

/** An element's text: line breaks as `\n`, bounded to {@link MAX_TEXT_BYTES}. */
export function block(text: string): string {
  return ampersands(visible(cut(text, MAX_TEXT_BYTES).replace(/\r\n?/g, '\n')));
}

/** U+FFFD as `\ufffd`, so that no consumer takes the file for a legacy encoding (see reports/junit.ts's module comment). */
function visible(text: string): string {
  return text.replaceAll('\uFFFD', escapeChar('\uFFFD'));
}

/**
 * Every `&` as `&amp;`, for xmlbuilder2's writer: it escapes an `&` only when
 * what follows does not look like a reference (`/&(?![A-Za-z]+;|#\d+;)/`), and
 * leaves `&amp;` as it is, so this gives `&amp;` for every `&` of the input. The
 * hostile-evidence test reads the text back through libxml2 and fails if a
 * later xmlbuilder2 escapes `&` itself (the text would read back as `&amp;`).
 */
export function ampersands(text: string): string {
  return text.replaceAll('&', '&amp;');
}

/**
 * `text` cut to at most `maxBytes` of UTF-8 as written, with a marker when cut.
 * Counts what is written: a character XML cannot carry, or U+FFFD, as its
 * six-character escape. Never splits a surrogate pair.
 */
function cut(text: string, maxBytes: number): string {
  if (text.length * 6 <= maxBytes) return text;
  const marker = (rest: number) => `\n… [cut: ${rest} more characters not shown; report.json keeps the evidence]`;
  const budget = maxBytes - Buffer.byteLength(marker(text.length));
  let bytes = 0;
  let i = 0;
  let fits = 0;
  while (i < text.length && bytes <= maxBytes) {
    const cp = text.codePointAt(i)!;
    bytes += writtenBytes(cp);
    i += cp > 0xffff ? 2 : 1;
    if (bytes <= budget) fits = i;
  }
  if (bytes <= maxBytes) return text;
  return text.slice(0, fits) + marker(text.length - fits);
}

/** UTF-8 bytes written for a code point (a lone surrogate arrives as itself). */
function writtenBytes(cp: number): number {
  if (cp < 0x20) return cp === 0x9 || cp === 0xa || cp === 0xd ? 1 : 6;
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if ((cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0xfffd && cp <= 0xffff)) return 6;
  return cp < 0x10000 ? 3 : 4;
}
