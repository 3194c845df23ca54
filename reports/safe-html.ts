/**
 * HTML that is safe by construction. Markup is written only as `html` tagged
 * templates, which escape every interpolated value (escape-html) unless it is
 * already {@link SafeHtml}; nothing else in reports/ builds markup from
 * strings (test/unit/reports/safe-html.test.ts scans for it).
 *
 * Every attribute in a template is double-quoted, so escaping is all an
 * attribute value needs; URLs and ids put in attributes come from the suite's
 * own data (anchors of rule ids, relative paths percent-encoded by the CLI).
 *
 * Characters that would be invisible or reorder the text (controls but tab and
 * line feed, DEL and C1 controls, U+2028/U+2029, bidi marks, embeddings,
 * overrides and isolates, the BOM, lone surrogates) are written as a visible
 * `\uXXXX`, so a page shows what was received, literally.
 */
import escapeHtml from 'escape-html';

/**
 * Markup that may go into a page as it is: made only by {@link html},
 * {@link join} and {@link trusted}. The class is not exported as a value and
 * its private field makes it nominal, so no other value passes for it.
 */
class SafeHtml {
  readonly #markup: string;
  constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}
export type { SafeHtml };

/**
 * What a template accepts: markup as it is; a string or number escaped;
 * an array, each item in turn; `null`, `undefined` and `false` as nothing
 * (so `condition && html\`…\`` works).
 */
export type Interpolation = SafeHtml | string | number | bigint | false | null | undefined | readonly Interpolation[];

/**
 * The characters shown as `\uXXXX` (no `u` flag: the pattern sees UTF-16 code
 * units, so a lone surrogate matches and a pair does not).
 */
export const INVISIBLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `\uXXXX` for one UTF-16 code unit. */
export const codeOf = (unit: string): string => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `value` as a string with every {@link INVISIBLE} character written as `\uXXXX`; `lineBreaks: 'show'` writes tab and line feed so too (text that must stay on one line). */
export function visible(value: unknown, lineBreaks: 'keep' | 'show' = 'keep'): string {
  const s = String(value).replace(INVISIBLE, codeOf);
  return lineBreaks === 'keep' ? s : s.replace(/[\t\n]/g, codeOf);
}

function markupOf(value: unknown): string {
  if (value instanceof SafeHtml) return value.toString();
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(markupOf).join('');
  // Anything else (a hand-edited report may hold any JSON) is text.
  return escapeHtml(visible(value));
}

/** The tag of every template of the reports: `html\`<p class="x">${text}</p>\``, each interpolation escaped unless it is {@link SafeHtml}. */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): SafeHtml {
  let markup = strings[0]!;
  values.forEach((value, i) => {
    markup += markupOf(value) + strings[i + 1]!;
  });
  return new SafeHtml(markup);
}

/** Items with a separator between them (`'\n'` between lines of a `<pre>`, `', '` in a sentence); strings are escaped like any interpolation. */
export function join(items: readonly Interpolation[], separator: SafeHtml | string): SafeHtml {
  const between = markupOf(separator);
  return new SafeHtml(items.map(markupOf).join(between));
}

/**
 * The one escape hatch: `markup` goes into the page as it is. Only for the
 * page's own CSS and JavaScript (reports/assets/, embedded at build time),
 * which go inside `<style>` and `<script>`, where entities are not decoded.
 * The build refuses an asset that could close its element (scripts/embed-assets.js).
 */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
