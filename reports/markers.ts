/**
 * How each file the reporters and the matrix write says it is the suite's,
 * within its first bytes, so that a run replaces or removes a file of these
 * names only when it wrote it (core/safe-write.ts), never a user's own
 * junit.xml or report.html. Each marker is what the format puts first anyway
 * (report.json's `tool`, junit.xml's root element) or an element made for it
 * (a page's generator meta); tests render each format and check that its
 * marker knows it. The matrix's files have theirs in reports/matrix.ts. Light:
 * the CLI checks a report folder with it before it loads the reporters.
 */
import { type Marker, textMarker } from '../core/safe-write.js';
import { REPORT_FILES } from './names.js';

/** The tool's name, as every format writes it. */
const TOOL = 'petstore-conformance';

/** The generator meta of every page the suite writes (report.html, matrix.html), in its head after the charset. */
export const GENERATOR_META = `<meta name="generator" content="${TOOL}">`;

/** The head of a page the suite writes, up to its generator meta. */
const PAGE = new RegExp(`^<!doctype html>\\n<html lang="en">\\n<head>\\n<meta charset="utf-8">\\n${GENERATOR_META}\\n`);
/**
 * The head of a page written before pages carried a generator meta (1.0.0):
 * the shell's head as reports/page.ts wrote it, its policy and a title naming
 * the interface, so that a report folder of that version is still replaced.
 */
const PAGE_BEFORE_GENERATOR = new RegExp(
  '^<!doctype html>\\n<html lang="en">\\n<head>\\n<meta charset="utf-8">\\n<meta name="viewport" content="width=device-width, initial-scale=1">\\n' +
    '<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;sha256-[A-Za-z0-9+/=]+&#39;; script-src &#39;sha256-[A-Za-z0-9+/=]+&#39;; img-src data:; base-uri &#39;none&#39;; form-action &#39;none&#39;">\\n' +
    '<meta name="referrer" content="no-referrer">\\n<title>[^<]*Animal Store Service [^<]*</title>',
);
/** The bytes a page's marker reads: the head up to the title, whose target may be a long URL. */
const PAGE_BYTES = 16 * 1024;

/** A page the suite wrote (report.html, matrix.html). */
export const pageMarker: Marker = {
  bytes: PAGE_BYTES,
  test: (head) => {
    const text = head.toString('utf8');
    return PAGE.test(text) || PAGE_BEFORE_GENERATOR.test(text);
  },
};

/** The marker of each report file, by reporter. */
export const REPORT_MARKERS = {
  // JSON.stringify(result, null, 2) with `tool` first, as the engine builds the result.
  json: textMarker(256, new RegExp(`^\\{\\s*"tool"\\s*:\\s*\\{\\s*"name"\\s*:\\s*"${TOOL}"`)),
  // xmlbuilder's declaration, then the root with the tool's name as its first attribute.
  junit: textMarker(256, new RegExp(`^<\\?xml[^>]*\\?>\\s*<testsuites name="${TOOL}"`)),
  html: pageMarker,
} as const satisfies Record<keyof typeof REPORT_FILES, Marker>;

/** The marker of a report file's name, undefined for any other name. */
export function reportMarkerOf(name: string): Marker | undefined {
  const reporter = (Object.keys(REPORT_FILES) as (keyof typeof REPORT_FILES)[]).find((key) => REPORT_FILES[key] === name);
  return reporter && REPORT_MARKERS[reporter];
}
