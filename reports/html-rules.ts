/**
 * report.html's rules: every rule of the result as a `<details>` with the
 * document's words, its checks and, for a failing or inconclusive check, its
 * findings (message, case, counterexample, exchanges, replay and re-run commands).
 */
import type { CheckResult, ConformanceResult, Counterexample, Finding, RuleResult } from '../result/model.js';
import { inconclusiveCases, ruleNotes, SHOWN_ORDER } from '../result/policy.js';
import { ruleAnchor as anchor } from '../spec/anchor.js';
import { findingText } from '../spec/findings.js';
import { rules as catalog } from '../spec/rules.js';
import type { Severity } from '../spec/rules.js';
import { REPLAY_KEY_SOURCE, replayCommand, rerunCommand } from './commands.js';
import { count, markedText as text, plural, severityTag } from './components.js';
import { renderEvidence } from './html-evidence.js';
import { badge, LABEL, SEVERITIES, type Shown, shown } from './html-parts.js';
import { html, join, type SafeHtml } from './safe-html.js';

/** What the commands a finding shows are made of: the report.json they name, and the run to re-run. */
export interface Commands {
  reportJson: string;
  run: ConformanceResult;
}

/** The rules section: filters (shown when script runs) and every rule, in shown-outcome order, then the result's. */
export function renderRules(result: ConformanceResult, strict: boolean, cmd: Commands): SafeHtml {
  const ordered = result.rules
    .map((rule, index) => ({ rule, index, as: shown(rule.outcome, rule.severity, strict) }))
    .sort((a, b) => SHOWN_ORDER.indexOf(a.as) - SHOWN_ORDER.indexOf(b.as) || a.index - b.index);
  const byOutcome = SHOWN_ORDER.map((as) => [as, ordered.filter((r) => r.as === as).length] as const).filter(([, n]) => n > 0);
  const bySeverity = SEVERITIES.map((s) => [s, ordered.filter((r) => r.rule.severity === s).length] as const).filter(([, n]) => n > 0);
  const box = (name: string, value: string, label: string, n: number) =>
    html`<label class="chip"><input type="checkbox" name="${name}" value="${value}" checked> ${label} <span class="n">${count(n)}</span></label>`;
  return html`<section id="rules">
<h2>Rules <span class="h-count">${count(result.rules.length)}</span></h2>
<p class="hint">Each rule of the document with its severity, outcome and section. Open a rule for the document's words, its checks and, for a failing or inconclusive check, the evidence: request, response and a command to reproduce it.</p>
<form class="filters" id="filters" hidden>
<fieldset><legend>Outcome</legend>${byOutcome.map(([as, n]) => box('outcome', as, LABEL[as], n))}</fieldset>
<fieldset><legend>Severity</legend>${bySeverity.map(([s, n]) => box('severity', s, s, n))}</fieldset>
<label class="search">Search <input type="search" id="search" placeholder="id, title, section or message" autocomplete="off"></label>
<button type="reset" class="reset">Show all</button>
<output id="shown-count" aria-live="polite"></output>
</form>
<div class="rule-list">
<div class="rule-head" aria-hidden="true"><span>Outcome</span><span>Rule</span><span>Severity</span><span>Title</span><span>Section of the document</span></div>
${join(
  ordered.map(({ rule, as }) => renderRule(rule, as, strict, cmd, ruleNotes(rule, result.summary))),
  '\n',
)}
<p id="no-match" class="no-match" hidden>No rule matches these filters.</p>
</div>
</section>`;
}

/** The catalog's entry for a rule of the result (absent for a rule this version does not know). */
const definitionOf = (id: string) => catalog.find((r) => r.id === id);

/** A rule that passed with cases it could not decide says so beside its badge: never a bare pass. */
function openCases(rule: RuleResult): SafeHtml | undefined {
  const open = inconclusiveCases(rule);
  return open > 0 && rule.outcome !== 'inconclusive'
    ? html`<span class="open-cases">${count(open)} case${open === 1 ? '' : 's'} inconclusive</span>`
    : undefined;
}

function renderRule(rule: RuleResult, as: Shown, strict: boolean, cmd: Commands, notes: readonly string[]): SafeHtml {
  const definition = definitionOf(rule.id);
  const search = [
    rule.id,
    rule.title,
    rule.section,
    rule.group,
    rule.severity,
    LABEL[as],
    ...notes,
    ...rule.checks.flatMap((c) => [c.id, c.title, c.reason ?? '', ...c.findings.map((f) => findingText(f))]),
  ]
    .join(' ')
    .toLowerCase();
  const statement =
    definition &&
    html`<div class="doc"><p class="doc-label">The document (${text(definition.section)})</p><blockquote>${text(definition.statement)}</blockquote>${
      'interpretation' in definition &&
      definition.interpretation &&
      html`<p class="interp"><span>How it is checked:</span> ${text(definition.interpretation)}</p>`
    }${'references' in definition && definition.references && html`<p class="interp"><span>Standards:</span> ${text(definition.references.join(', '))}</p>`}</div>`;
  return html`<details class="rule o-${as}" id="${anchor(rule.id)}" data-outcome="${as}" data-severity="${rule.severity}" data-search="${search}">
<summary>${badge(as)}${openCases(rule)}<span class="rid">${text(rule.id)}</span>${severityTag(rule.severity)}<span class="rtitle">${text(rule.title)}</span><span class="rsec">${text(rule.section)}</span></summary>
<div class="rule-body">
${notes.length > 0 && html`<p class="rule-notes">${text(notes.join('; '))}</p>`}
${statement}
${join(
  rule.checks.map((check) => renderCheck(check, rule.severity, strict, cmd)),
  '\n',
)}
</div>
</details>`;
}

function renderCheck(check: CheckResult, severity: Severity, strict: boolean, cmd: Commands): SafeHtml {
  const as = shown(check.outcome, severity, strict);
  const tally = [
    check.passed > 0 ? `${count(check.passed)} passed` : '',
    check.failed > 0 ? `${count(check.failed)} failed` : '',
    check.inconclusive > 0 ? `${count(check.inconclusive)} inconclusive` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const total = check.failed + check.inconclusive;
  return html`<div class="check o-${as}">
<div class="check-head">${badge(as)}<code class="cid">${text(check.id)}</code><span class="ctitle">${text(check.title)}</span><span class="kind">${text(check.kind)}</span>${tally && html`<span class="tally">${tally}</span>`}</div>
${check.reason && html`<p class="reason">${text(check.reason)}</p>`}
${check.findings.length < total && html`<p class="kept">Showing ${count(check.findings.length)} of ${count(total)} findings (distinct problems first; the rest repeat them).</p>`}
${join(
  check.findings.map((finding, i) => renderFinding(finding, i === 0, cmd)),
  '\n',
)}
</div>`;
}

/**
 * A finding: the message and, for a failure, its case id; the counterexample,
 * every exchange with its curl command, the replay command of the failing
 * request (as the console prints it) and the re-run command.
 */
function renderFinding(finding: Finding, open: boolean, cmd: Commands): SafeHtml {
  const caseId = finding.case?.id;
  return html`<details class="finding o-${finding.outcome === 'fail' ? 'fail' : 'inconclusive'}"${open && html` open`}${caseId && html` data-case="${caseId}"`}>
<summary>${renderMessage(findingText(finding))}${caseId && html`<span class="case">case <code class="case-id">${text(caseId)}</code></span>`}</summary>
<div class="finding-body">
${finding.counterexample && renderCounterexample(finding.counterexample)}
${join(
  finding.evidence.map((e, i) => renderEvidence(e, i, finding.evidence.length)),
  '\n',
)}
${caseId && html`<div class="cmd"><p class="cmd-label">Replay this request and judge the answer again (case ${text(caseId)}; ${REPLAY_KEY_SOURCE})</p><pre class="replay-case">${text(replayCommand(cmd.reportJson, caseId, cmd.run.target))}</pre></div>`}
<div class="cmd"><p class="cmd-label">Re-run this rule with the same seed</p><pre class="replay">${text(rerunCommand(cmd.run, finding.rerun))}</pre></div>
</div>
</details>`;
}

/** "Expected … / Received …" on two lines when it has that form; as it is otherwise. */
function renderMessage(message: string): SafeHtml {
  const m = /^(Expected [\s\S]*?) \/ (Received [\s\S]*)$/.exec(String(message));
  if (!m) return html`<span class="msg">${text(message)}</span>`;
  return html`<span class="msg"><span class="expected">${text(m[1])}</span><span class="received">${text(m[2])}</span></span>`;
}

function renderCounterexample(cx: Counterexample): SafeHtml {
  return html`<div class="cx">
<p class="cmd-label">Counterexample (shrunk)</p>
<pre class="cx-input">${text(cx.input)}</pre>
<p class="cx-meta">seed ${text(cx.seed)} · path <code>${text(cx.path)}</code> · found after ${plural(cx.numRuns, 'run')}, shrunk ${plural(cx.numShrinks, 'time')}</p>
</div>`;
}
