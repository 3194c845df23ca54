/**
 * report.html's evidence: one exchange (request and response side by side,
 * and the curl command that sends the same bytes), shown under a finding and
 * under an observation.
 */
import type { Evidence } from '../result/model.js';
import { count, markedText as text, plural } from './components.js';
import { millis } from './html-parts.js';
import { html, join, type SafeHtml } from './safe-html.js';

function renderHeaders(headers: Record<string, string>): SafeHtml {
  return join(
    Object.entries(headers ?? {}).map(([name, value]) => html`<span class="hn">${text(name)}</span>: ${text(value)}`),
    '\n',
  );
}

/** One request and its response, side by side, and the curl command that sends the same bytes. */
export function renderEvidence(evidence: Evidence, index: number, of: number): SafeHtml {
  const { request, response } = evidence;
  const requestHeaders = renderHeaders(request.headers);
  const requestSide = html`<div class="side"><p class="side-label">Request${request.bodyBytes > 0 && ` · body ${plural(request.bodyBytes, 'byte')}`}</p><pre class="http"><span class="line1">${text(request.method)} ${text(request.url)}</span>${
    Object.keys(request.headers ?? {}).length > 0 && html`\n${requestHeaders}`
  }${request.body !== undefined && request.body !== '' && html`\n\n${text(request.body)}`}</pre></div>`;
  let responseSide: SafeHtml;
  if (response) {
    const status = Number(response.status);
    const klass = status >= 500 ? 's5' : status >= 400 ? 's4' : status >= 300 ? 's3' : 's2';
    responseSide = html`<div class="side"><p class="side-label">Response · ${millis(evidence.durationMs)}${response.bodyBytes > 0 && ` · body ${plural(response.bodyBytes, 'byte')}`}</p><pre class="http"><span class="line1 status ${klass}">HTTP ${text(response.status)}</span>${
      Object.keys(response.headers ?? {}).length > 0 && html`\n${renderHeaders(response.headers)}`
    }${response.body && html`\n\n${text(response.body)}`}</pre>${
      response.truncated &&
      html`<p class="trunc">Body excerpt: the first ${count(String(response.body ?? '').length)} characters of ${plural(response.bodyBytes, 'byte')}.</p>`
    }</div>`;
  } else {
    responseSide = html`<div class="side"><p class="side-label">No response · ${millis(evidence.durationMs)}</p><pre class="http transport">${text(evidence.transportError ?? 'no response')}</pre></div>`;
  }
  return html`<div class="exchange">
<p class="exchange-label">Exchange ${of > 1 && `${index + 1} of ${of}`} <span class="seq">request #${text(evidence.seq)}</span></p>
<div class="sides">${requestSide}${responseSide}</div>
<div class="cmd"><p class="cmd-label">Reproduce (the key comes from $PETSTORE_API_KEY)</p><pre class="curl">${text(evidence.curl)}</pre></div>
</div>`;
}
