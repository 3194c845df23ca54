/**
 * report.html's first screen: the verdict, the run's facts, the counts by
 * severity and shown outcome, the rules that need attention, and the waivers
 * given to the run (a waived failure is shown as prominently as a failure).
 */
import type { ConformanceResult, RuleResult, WaiverResult } from '../result/model.js';
import { ruleNotes, SHOWN_ORDER, shownCounts, shownOutcomesOf } from '../result/policy.js';
import { ruleAnchor as anchor } from '../spec/anchor.js';
import { findingText } from '../spec/findings.js';
import type { Severity } from '../spec/rules.js';
import { count, markedText as text, plural, severityTag } from './components.js';
import { badge, LABEL, SEVERITIES, seconds, type Shown, shown, time } from './html-parts.js';
import { html, join, type SafeHtml } from './safe-html.js';

/** Findings' messages quoted in the at-a-glance list are cut here (the full text is with the rule). */
const GLANCE_MESSAGE_CHARS = 240;

/** The verdict, the run's facts, counts by severity and outcome, and the rules that need attention. */
export function renderGlance(result: ConformanceResult, verdictWord: string, strict: boolean): SafeHtml {
  const { summary } = result;
  const counts = shownCounts(summary.counts, strict);
  const warnings = SEVERITIES.reduce((n, severity) => n + (counts[severity].warning ?? 0), 0);
  const qualifier = summary.verdict === 'conformant' && warnings > 0 ? `, with ${plural(warnings, 'warning')}` : '';
  const policy = strict
    ? 'Strict run: a SHOULD failure fails the run like a MUST failure.'
    : 'SHOULD failures are warnings: they do not change the verdict (a strict run makes them fail it).';
  const attention = [...result.rules]
    .map((rule) => ({ rule, as: shown(rule.outcome, rule.severity, strict) }))
    .filter(({ as }) => as === 'fail' || as === 'error' || as === 'waived' || as === 'warning' || as === 'inconclusive')
    .sort((a, b) => SHOWN_ORDER.indexOf(a.as) - SHOWN_ORDER.indexOf(b.as));
  const facts: [string, SafeHtml | string][] = [
    ['Target', html`<code>${text(result.target)}</code>`],
    ['Interface version', text(result.interfaceVersion)],
    ['Tool', html`${text(result.tool.name)} ${text(result.tool.version)}`],
    ['Started', time(result.startedAt)],
    ['Duration', seconds(result.durationMs)],
    ['Requests', `${count(summary.requests)} requests, ${plural(summary.checks, 'check')}`],
    ['Seed', html`${text(result.seed)} (${plural(result.numRuns, 'run')} per property check)`],
    ['Strict', strict ? 'yes' : 'no'],
  ];
  if (result.options.only.length > 0) facts.push(['Only', text(result.options.only.join(', '))]);
  if (result.options.skip.length > 0) facts.push(['Skipped rules', text(result.options.skip.join(', '))]);
  if (summary.thresholds === 'pass' || summary.thresholds === 'fail') {
    const profiles = result.load.map((l) => l.profile).join(', ');
    facts.push([
      'Load',
      html`<a href="#load">${text(profiles)}</a>: ${summary.thresholds === 'pass' ? 'every threshold met' : html`<strong class="bad">a threshold was breached</strong>`}`,
    ]);
  }
  if (result.options.insecure) facts.push(['TLS', 'certificates were not verified (the run accepted any)']);
  else if (result.options.customCa) facts.push(['TLS', 'verified against a private CA given for the run']);
  facts.push([
    'Animals created',
    result.namePrefix === undefined
      ? 'natural animal names of many scripts, drawn from the seed, with no common prefix'
      : html`names start with <code>${text(result.namePrefix)}</code>`,
  ]);
  return html`<section id="glance" class="glance">
<div class="verdict v-${summary.verdict}">
<p class="verdict-label">Verdict</p>
<p class="verdict-word" id="verdict">${verdictWord}${qualifier}</p>
<p class="verdict-reason">${text(summary.reason)}</p>
${summary.abort && html`<p class="verdict-abort">The target could not be tested: <code>${text(summary.abort.code)}</code> ${text(summary.abort.message)}</p>`}
<p class="verdict-policy">${policy}</p>
</div>
<div class="glance-grid">
${renderCounts(result, strict)}
<dl class="facts">
${join(
  facts.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`),
  '\n',
)}
</dl>
</div>
<div class="attention">
<h2>Needs attention</h2>
${
  attention.length === 0
    ? html`<p class="all-good">Every rule that ran passed.</p>`
    : html`<ul>\n${join(
        attention.map(
          ({ rule, as }) =>
            html`<li>${badge(as)} <a href="#${anchor(rule.id)}" class="rid">${text(rule.id)}</a> ${severityTag(rule.severity)} ${text(rule.title)}${glanceMessage(rule, result.summary)}</li>`,
        ),
        '\n',
      )}\n</ul>`
}
${
  result.skippedPhases.length > 0 &&
  html`<p class="not-run">Not run: ${join(
    result.skippedPhases.map((p) => html`${text(p.phase)} (${text(p.reason)})`),
    '; ',
  )}.</p>`
}
</div>
</section>`;
}

/** The first finding's message of a rule (or the reason its check errored), cut short. */
function glanceMessage(rule: RuleResult, summary: ConformanceResult['summary']): SafeHtml | undefined {
  const check =
    rule.checks.find((c) => c.outcome === 'fail' || c.outcome === 'error') ?? rule.checks.find((c) => c.outcome === 'inconclusive');
  const notes = ruleNotes(rule, summary);
  const message = notes.length > 0 ? notes.join('; ') : check?.findings[0] ? findingText(check.findings[0]) : check?.reason;
  if (!message) return undefined;
  const cut = message.length > GLANCE_MESSAGE_CHARS ? `${message.slice(0, GLANCE_MESSAGE_CHARS)}…` : message;
  return html`<span class="glance-msg">${text(cut)}</span>`;
}

/** Rules by severity and shown outcome; the warning column exists only when SHOULD failures are warnings, the waived one only with waivers. */
function renderCounts(result: ConformanceResult, strict: boolean): SafeHtml {
  const waived = result.waivers.length > 0 || SEVERITIES.some((s) => (result.summary.counts[s].waived ?? 0) > 0);
  const counts = shownCounts(result.summary.counts, strict);
  const possible = (severity: Severity, as: Shown) => shownOutcomesOf(severity, strict).includes(as);
  const columns = SHOWN_ORDER.filter((o) => SEVERITIES.some((s) => possible(s, o)) && (o !== 'waived' || waived));
  const row = (severity: Severity): SafeHtml => {
    const total = Object.values(result.summary.counts[severity]).reduce((a, b) => a + b, 0);
    const cells = columns.map((as) => {
      const n = counts[severity][as] ?? 0;
      const na = !possible(severity, as);
      return html`<td class="${n > 0 ? `nz o-${as}` : 'zero'}">${na ? '–' : count(n)}</td>`;
    });
    return html`<tr><th scope="row">${severityTag(severity)}</th>${cells}<td class="total">${count(total)}</td></tr>`;
  };
  return html`<table class="counts">
<caption>Rules by severity and outcome</caption>
<thead><tr><th scope="col"></th>${columns.map((as) => html`<th scope="col">${LABEL[as]}</th>`)}<th scope="col">Total</th></tr></thead>
<tbody>
${join(SEVERITIES.map(row), '\n')}
</tbody>
</table>`;
}

/** How a waiver's status is coloured: applied is a known deviation, expired and partial count as failures, stale is to clean up. */
const WAIVER_BADGE: Record<WaiverResult['status'], Shown> = { applied: 'waived', expired: 'fail', partial: 'fail', stale: 'warning' };

/** Waivers, up front: a waived failure is a known deviation, shown as prominently as a failure. */
export function renderWaivers(waivers: readonly WaiverResult[]): SafeHtml | undefined {
  if (waivers.length === 0) return undefined;
  const rows = waivers.map(
    (w) =>
      html`<tr><td><span class="badge o-${WAIVER_BADGE[w.status] ?? 'error'}">${text(w.status)}</span></td><td><code>${text(w.rule)}</code>${w.operation && html` on ${text(w.operation)}`}</td><td>${text(w.reason)}</td><td>${text(w.issue)}</td><td>${text(w.expires)}</td><td>${text(w.note)}</td></tr>`,
  );
  return html`<section id="waivers">
<h2>Waivers <span class="h-count">${count(waivers.length)}</span></h2>
<p class="hint">Known, tracked deviations given to the run as waivers. An applied waiver keeps a failure from failing the run until it expires; the rule is still shown as waived below.</p>
<table class="waivers"><thead><tr><th>status</th><th>rule</th><th>reason</th><th>tracking issue</th><th>expires</th><th></th></tr></thead><tbody>${rows}</tbody></table>
</section>`;
}
