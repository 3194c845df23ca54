/**
 * The one shell of the self-contained HTML pages (report.html, matrix.html):
 * the head with the suite's generator meta (which tells a page of the suite
 * from a user's file of the same name: reports/markers.ts), no referrer, a favicon that asks for nothing, the page's
 * stylesheet (shared.css, then its own) and script inline, and a
 * Content-Security-Policy that admits exactly those two blocks, by hash, and
 * no network address at all.
 */
import { sha256Base64 } from '../core/hash.js';
import { matrixCss, matrixJs, reportCss, reportJs, sharedCss } from './assets/generated.js';
import { GENERATOR_META } from './markers.js';
import { html, type SafeHtml, trusted } from './safe-html.js';

/** Each page's inline style and script: the CSS and JavaScript of reports/assets/, embedded by the build. */
const ASSETS = {
  report: { style: `${sharedCss}\n${reportCss}`, script: reportJs },
  matrix: { style: `${sharedCss}\n${matrixCss}`, script: matrixJs },
} as const;

/** The parts a page fills in; the shell wraps them in `<header class="top">`, `<main>` and `<footer>`. */
export interface Page {
  assets: keyof typeof ASSETS;
  /** The document title, as text. */
  title: string;
  header: SafeHtml;
  main: SafeHtml;
  footer: SafeHtml;
}

/** The policy of a page whose only inline blocks are `style` and `script`: nothing else loads, no form posts, no base URL. */
export function contentSecurityPolicy(style: string, script: string): string {
  return `default-src 'none'; style-src 'sha256-${sha256Base64(style)}'; script-src 'sha256-${sha256Base64(script)}'; img-src data:; base-uri 'none'; form-action 'none'`;
}

/** A whole page's text. */
export function renderPage(page: Page): string {
  const { style, script } = ASSETS[page.assets];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${trusted(GENERATOR_META)}
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(style, script)}">
<meta name="referrer" content="no-referrer">
<title>${page.title}</title>
<link rel="icon" href="data:,">
<style>${trusted(style)}</style>
</head>
<body>
<header class="top">
${page.header}
</header>
<main>
${page.main}
</main>
<footer>
${page.footer}
</footer>
<script>${trusted(script)}</script>
</body>
</html>
`.toString();
}
