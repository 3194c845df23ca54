/**
 * The opening of the self-contained HTML pages (report.html, matrix.html): no
 * referrer, a favicon that asks for nothing, and the page's Content-Security-Policy.
 * `title` must already be escaped.
 */
export function pageHead(csp: string, title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<title>${title}</title>`;
}
