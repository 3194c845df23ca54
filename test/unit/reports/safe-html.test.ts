/**
 * The `html` template (reports/safe-html.ts): every interpolation escaped
 * unless it is already markup; and a scan of reports/ that fails when markup
 * is built any other way.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { html, join as joinHtml, trusted, visible } from '../../../reports/safe-html.js';

const render = (value: { toString(): string }) => value.toString();

describe('the html template', () => {
  it('escapes an interpolated tag, quotes and ampersands, in text and in a quoted attribute', () => {
    const hostile = `</p><script>alert("x")</script> & 'y'`;
    expect(render(html`<p title="${hostile}">${hostile}</p>`)).toBe(
      '<p title="&lt;/p&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;">&lt;/p&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</p>',
    );
    // An entity in the text is shown as written, not decoded.
    expect(render(html`${'&amp;'}`)).toBe('&amp;amp;');
  });

  it('does not escape markup twice: nested templates, arrays and join keep their tags', () => {
    const item = (text: string) => html`<li>${text}</li>`;
    expect(render(html`<ul>${['a<b', 'c&d'].map(item)}</ul>`)).toBe('<ul><li>a&lt;b</li><li>c&amp;d</li></ul>');
    expect(render(joinHtml([item('a'), 'b<c', item('d')], html`<br>`))).toBe('<li>a</li><br>b&lt;c<br><li>d</li>');
    expect(render(joinHtml(['x', 'y'], ' & '))).toBe('x &amp; y');
  });

  it('renders null, undefined and false as nothing, and numbers as they are', () => {
    const flag = false;
    expect(render(html`[${null}${undefined}${flag && html`<b>no</b>`}${0}${1.5}${10n}]`)).toBe('[01.510]');
  });

  it('shows invisible and reordering characters as \\uXXXX, keeping tab and line feed unless asked', () => {
    expect(render(html`${'a\u0000b\u202ec\rd\te\nf\ud800'}`)).toBe('a\\u0000b\\u202ec\\u000dd\te\nf\\ud800');
    expect(visible('a\tb\nc', 'show')).toBe('a\\u0009b\\u000ac');
    // A surrogate pair is a character, not two invisible halves.
    expect(render(html`${'😀'}`)).toBe('😀');
  });

  it('passes trusted text as it is (the escape hatch the page shell uses for its own CSS and JS)', () => {
    expect(render(html`<style>${trusted('a>b{content:"&"}')}</style>`)).toBe('<style>a>b{content:"&"}</style>');
  });

  it('treats a look-alike object as text: only the template makes markup', () => {
    const forged = { toString: () => '<script>' } as unknown as string;
    expect(render(html`${forged}`)).toBe('&lt;script&gt;');
  });
});

// ---------------------------------------------------------------------------
// The scan

const REPORTS = new URL('../../../reports/', import.meta.url).pathname;
/** The one module that writes markup outside a template: the template itself. */
const TEMPLATE_MODULE = 'safe-html.ts';
/** The one module that may call trusted(): the page shell, for the embedded assets. */
const SHELL_MODULE = 'page.ts';
/** An HTML tag's start (`<p`, `</p`, `<!doctype`): `<` then a letter, `/` or `!`. Text such as `p99 < 1000ms` is not one. */
const TAG = /<[a-zA-Z/!]/;
/**
 * Tags a module may write in plain strings because its output is not one of
 * our pages: the GitHub step summary is Markdown, where `<br>` is the only line
 * break inside a table cell (and GitHub sanitises the HTML it allows).
 */
const ALLOWED: Record<string, RegExp> = { 'github.ts': /<br>/g };

/**
 * Where a source builds markup without the `html` template: a tag inside a
 * string literal or an untagged template literal (string concatenation starts
 * from one of those), and any call of `trusted()` outside the page shell.
 */
function markupOutsideTemplates(file: string, source: string): string[] {
  const found: string[] = [];
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const where = (node: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const hasTag = (text: string) => TAG.test(ALLOWED[file] ? text.replace(ALLOWED[file], '') : text);
  const visit = (node: ts.Node): void => {
    const tagged =
      node.parent !== undefined &&
      ts.isTaggedTemplateExpression(node.parent) &&
      node.parent.template === node &&
      node.parent.tag.getText() === 'html';
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && !tagged && hasTag(node.text))
      found.push(`${where(node)} ${node.getText()}`);
    if (ts.isTemplateExpression(node) && !tagged) {
      const parts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
      if (parts.some(hasTag)) found.push(`${where(node)} ${node.getText().slice(0, 80)}`);
    }
    if (ts.isCallExpression(node) && node.expression.getText() === 'trusted' && file !== SHELL_MODULE)
      found.push(`${where(node)} trusted() outside ${SHELL_MODULE}`);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('markup in reports/', () => {
  it('is written only with the html template: no tag in a plain string or template literal, trusted() only in the page shell', () => {
    // markers.ts only recognises files the suite wrote, by their first bytes (patterns of markup, never written out).
    const files = readdirSync(REPORTS).filter((name) => name.endsWith('.ts') && name !== TEMPLATE_MODULE && name !== 'markers.ts');
    expect(files).toEqual(expect.arrayContaining(['html.ts', 'matrix.ts', 'charts.ts', 'page.ts', 'components.ts']));
    const found = files.flatMap((name) => markupOutsideTemplates(name, readFileSync(join(REPORTS, name), 'utf8')));
    expect(found).toEqual([]);
  });

  it('the scan finds markup built from strings, by template, concatenation or trusted()', () => {
    const source = [
      'const a = `<p>${x}</p>`;',
      "const b = '<td>' + x + '</td>';",
      'const c = html`<p>${`<b>${x}</b>`}</p>`;',
      'const d = trusted(x);',
      // None of these build markup.
      'const e = html`<p>${x}</p>`;',
      'const f = `p99 < ${limit}ms`;',
      "const g = 'a < b';",
    ].join('\n');
    expect(markupOutsideTemplates('sample.ts', source).map((f) => f.split(' ')[0])).toEqual([
      'sample.ts:1',
      'sample.ts:2',
      'sample.ts:2',
      'sample.ts:3',
      'sample.ts:4',
    ]);
  });
});
