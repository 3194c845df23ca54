/**
 * report.html's closing sections: what the target did where the document
 * leaves behaviour open (observations, by gap), and the phases that did not run.
 */
import type { ConformanceResult, Observation } from '../result/model.js';
import { gaps } from '../spec/gaps.js';
import { count, markedText as text, plural } from './components.js';
import { renderEvidence } from './html-evidence.js';
import { html, join, type SafeHtml } from './safe-html.js';

/** What the target did where the document says "not shown", by gap in catalog order. */
export function renderObservations(observations: Observation[]): SafeHtml {
  const known = new Set<string>(gaps.map((g) => g.id));
  const groups = [
    ...gaps.map((gap) => ({
      id: gap.id as string,
      title: gap.title as string,
      section: gap.section as string,
      accepted: gap.accepted as string,
    })),
    ...[...new Set(observations.map((o) => String(o.gap)).filter((id) => !known.has(id)))].map((id) => ({
      id,
      title: '',
      section: '',
      accepted: '',
    })),
  ]
    .map((gap) => ({ gap, items: observations.filter((o) => String(o.gap) === gap.id) }))
    .filter(({ items }) => items.length > 0);
  const body =
    groups.length === 0
      ? html`<p class="hint">No observations were recorded.</p>`
      : join(
          groups.map(
            ({ gap, items }) => html`<div class="gap">
<h3><span class="gid">${text(gap.id)}</span> ${text(gap.title)} <span class="h-count">${plural(items.length, 'observation')}</span></h3>
${gap.section && html`<p class="gap-meta">${text(gap.section)} · accepted: ${text(gap.accepted)}</p>`}
<ul class="obs">
${join(items.map(renderObservation), '\n')}
</ul>
</div>`,
          ),
          '\n',
        );
  return html`<section id="observations">
<h2>Observations on the document's gaps <span class="h-count">${count(observations.length)}</span></h2>
<p class="hint">Where the document leaves behaviour open ("not shown"), the suite fails nothing: it records what the target did. These are facts for the reader, not findings.</p>
${body}
</section>`;
}

function renderObservation(o: Observation): SafeHtml {
  const line = html`<span class="op">${text(o.operation)}</span><span class="obs-summary">${text(o.summary)}</span>${o.count > 1 && html`<span class="times">×${count(o.count)}</span>`}`;
  if (!o.evidence) return html`<li><div class="obs-line">${line}</div></li>`;
  return html`<li><details><summary class="obs-line">${line}</summary>${renderEvidence(o.evidence, 0, 1)}</details></li>`;
}

/** The phases that did not run, each with why (nothing when every phase ran). */
export function renderSkippedPhases(skipped: ConformanceResult['skippedPhases']): SafeHtml | undefined {
  if (skipped.length === 0) return undefined;
  return html`<section id="skipped">
<h2>Phases not run</h2>
<table class="skipped"><thead><tr><th scope="col">Phase</th><th scope="col">Why</th></tr></thead><tbody>
${join(
  skipped.map((p) => html`<tr><td><code>${text(p.phase)}</code></td><td>${text(p.reason)}</td></tr>`),
  '\n',
)}
</tbody></table>
</section>`;
}
