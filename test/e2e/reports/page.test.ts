/**
 * The page shell (reports/page.ts): the Content-Security-Policy admits exactly
 * the page's one inline style and one inline script, by their hashes; and the
 * build refuses an asset that could break out of its element (scripts/embed-assets.js).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Base64 } from '../../../core/hash.js';
import { renderMatrixHtml } from '../../../reports/matrix.js';
import { renderPage } from '../../../reports/page.js';
import { html } from '../../../reports/safe-html.js';
import { tempDir } from '../../helpers.js';

const root = new URL('../../..', import.meta.url).pathname;

/** The inline blocks of a page and the hashes its policy admits. */
function inlineBlocks(page: string) {
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(page)![1]!.replaceAll('&#39;', "'");
  return {
    styles: [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!),
    scripts: [...page.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!),
    csp,
  };
}

describe('the page shell', () => {
  for (const assets of ['report', 'matrix'] as const) {
    it(`${assets}: one inline style and one script, each admitted by its hash and nothing else loads`, () => {
      const page = renderPage({ assets, title: 'a <title>', header: html`<h1>h</h1>`, main: html`<p>m</p>`, footer: html`<p>f</p>` });
      const { styles, scripts, csp } = inlineBlocks(page);
      expect(styles).toHaveLength(1);
      expect(scripts).toHaveLength(1);
      expect(csp).toBe(
        `default-src 'none'; style-src 'sha256-${sha256Base64(styles[0]!)}'; script-src 'sha256-${sha256Base64(scripts[0]!)}'; img-src data:; base-uri 'none'; form-action 'none'`,
      );
      // The assets are the files of reports/assets/, shared.css first.
      expect(styles[0]).toBe(
        `${readFileSync(join(root, 'reports/assets/shared.css'), 'utf8')}\n${readFileSync(join(root, `reports/assets/${assets}.css`), 'utf8')}`,
      );
      expect(scripts[0]).toBe(readFileSync(join(root, `reports/assets/${assets}.js`), 'utf8'));
      expect(page).toContain('<title>a &lt;title&gt;</title>');
    });
  }

  it('the report and the matrix share the shell', () => {
    const matrix = renderMatrixHtml([]);
    expect(matrix.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(inlineBlocks(matrix).styles[0]).toContain(readFileSync(join(root, 'reports/assets/shared.css'), 'utf8'));
  });
});

describe('the build embeds only assets that stay inside their element', () => {
  const embed = (files: Record<string, string>) => {
    const dir = tempDir();
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    try {
      execFileSync('node', [join(root, 'scripts/embed-assets.js'), dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      return readFileSync(join(dir, 'generated.ts'), 'utf8');
    } catch (error) {
      return (error as { stderr: string }).stderr;
    }
  };

  it('writes one constant per asset', () => {
    expect(embed({ 'a.css': 'p{color:red}\n', 'b.js': 'void 0;\n' })).toContain('export const aCss = "p{color:red}\\n";\n');
  });

  it('refuses a closing tag, an unbalanced brace, a stylesheet import, and JavaScript that does not parse', () => {
    expect(embed({ 'a.css': 'p{color:red}</style><script>' })).toMatch(/^embed-assets: a\.css: holds "<\/style"/);
    expect(embed({ 'a.css': 'p{color:red' })).toMatch(/^embed-assets: a\.css: 1 "\{" never closed/);
    expect(embed({ 'a.css': '@import "https://example.com/x.css";' })).toMatch(/^embed-assets: a\.css: loads another resource/);
    expect(embed({ 'b.js': 'const s = "</script>";' })).toMatch(/^embed-assets: b\.js: holds "<\/script"/);
    expect(embed({ 'b.js': 'const = 1;' })).toMatch(/^embed-assets: b\.js: /);
  });
});
