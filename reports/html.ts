/**
 * report.html: the result as one self-contained page that opens offline from
 * disk. Inline CSS and one small inline script (filters and search); no
 * external fonts, images or scripts, and a Content-Security-Policy that admits
 * only those two inline blocks (by hash) and no network address at all.
 *
 * Everything is rendered here, in the writer, so that the page reads fully
 * without script: every rule is a `<details>`, its failing and inconclusive
 * checks open to their evidence. The script only hides and shows rules. No data
 * is embedded as JSON: the script reads `data-*` attributes.
 *
 * Every string of the result may come from the target (bodies, headers,
 * messages): each goes through {@link text} or {@link attr} (escape-html), and
 * characters that would be invisible or would reorder the text (controls, line
 * and paragraph separators, bidi controls, lone surrogates) are shown as
 * `\uXXXX` escapes, so the page shows what was received, literally.
 */
import escapeHtml from 'escape-html';
import { findingText } from '../spec/findings.js';
import { gaps } from '../spec/gaps.js';
import { rules as catalog } from '../spec/rules.js';
import type { Severity } from '../spec/rules.js';
import type { CheckResult, ConformanceResult, RuleOutcome, WaiverResult, Counterexample, Evidence, Finding, LoadFigures, LoadResult, Observation, RuleResult, ThresholdResult } from '../suites/model.js';
import { lineChart } from './charts.js';
import { replayCommand } from './commands.js';
import { pageHead } from './page.js';
import { fileReporter } from './file.js';
import { inconclusiveCases, SHOWN_ORDER, type ShownOutcome, shownOutcome } from '../suites/policy.js';
import { sha256Base64 as sha256 } from '../core/hash.js';
import { ruleAnchor } from '../spec/anchor.js';

export const HTML_REPORT_FILE = 'report.html';

/** An outcome as the page shows it (suites/policy.ts decides it). */
type Shown = ShownOutcome;

const LABEL: Record<Shown, string> = {
  fail: 'Fail',
  error: 'Suite error',
  warning: 'Warning',
  waived: 'Waived',
  inconclusive: 'Inconclusive',
  pass: 'Pass',
  skip: 'Skipped',
};

const SEVERITIES: readonly Severity[] = ['MUST', 'SHOULD'];

/** Findings' messages quoted in the at-a-glance list are cut here (the full text is with the rule). */
const GLANCE_MESSAGE_CHARS = 240;

/** The outcome to show; anything outside the union (a hand-edited report) is shown as an error of the suite. */
function shown(outcome: RuleOutcome, severity: Severity, strict: boolean): Shown {
  return shownOutcome({ outcome, severity }, strict);
}

// ---------------------------------------------------------------------------
// Escaping

/**
 * Characters shown as a visible `\uXXXX` instead of themselves: C0 controls but
 * tab and line feed (so CR shows), DEL and C1 controls, U+2028/U+2029, bidi
 * marks, embeddings, overrides and isolates, the BOM, and lone surrogates (no
 * `u` flag: the pattern sees UTF-16 code units).
 */
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const codeOf = (unit: string): string => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Text content: HTML-escaped, invisible characters as marked `\uXXXX` escapes. Accepts anything (a hand-edited report may hold the wrong types). */
function text(value: unknown): string {
  const s = String(value);
  let out = '';
  let last = 0;
  for (const match of s.matchAll(INVISIBLE)) {
    out += `${escapeHtml(s.slice(last, match.index))}<span class="ctl">${codeOf(match[0])}</span>`;
    last = match.index + match[0].length;
  }
  return out + escapeHtml(s.slice(last));
}

/** A double-quoted attribute value: HTML-escaped, invisible characters as plain `\uXXXX`. */
function attr(value: unknown): string {
  return escapeHtml(String(value).replace(INVISIBLE, codeOf));
}

/** A fragment id from a rule id: only characters that need no encoding. */
/** The element id of a rule in report.html (the compatibility matrix links to it). */
const anchor = ruleAnchor;

const count = (n: number): string => text(Number.isFinite(n) ? n.toLocaleString('en-US') : n);
const plural = (n: number, one: string, many = `${one}s`): string => `${count(n)} ${n === 1 ? one : many}`;
const seconds = (ms: number): string => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : text(ms));
const millis = (ms: number): string => (Number.isFinite(ms) ? `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms` : text(ms));
const time = (iso: string): string => text(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : iso);

const badge = (outcome: Shown): string => `<span class="badge o-${outcome}">${LABEL[outcome]}</span>`;

// ---------------------------------------------------------------------------
// The page

/** Options of {@link renderHtml}. */
export interface HtmlOptions {
  /**
   * The report.json the replay commands name (as the console prints it:
   * `petstore-conformance-report/report.json`). Default `report.json`, the
   * file beside report.html.
   */
  reportJson?: string;
}

/** report.html's text: the whole result as one self-contained page. */
export function renderHtml(result: ConformanceResult, options: HtmlOptions = {}): string {
  const reportJson = options.reportJson ?? 'report.json';
  const strict = result.summary.strict;
  const verdictWord = result.summary.verdict === 'conformant' ? 'Conformant' : result.summary.verdict === 'non-conformant' ? 'Non-conformant' : result.summary.verdict === 'interrupted' ? 'Interrupted' : 'Error';
  return `${pageHead(CSP, `${text(verdictWord)} · Animal Store Service ${text(result.interfaceVersion)} · ${text(result.target)}`)}
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<header class="top">
<div class="wrap">
<p class="tool">${text(result.tool.name)} ${text(result.tool.version)} · conformance report</p>
<h1>Animal Store Service <span class="ver">interface ${text(result.interfaceVersion)}</span></h1>
<p class="target">Target <code>${text(result.target)}</code></p>
</div>
</header>
<main class="wrap">
${renderGlance(result, verdictWord, strict)}
${renderWaivers(result.waivers)}
${renderRules(result, strict, reportJson)}
${renderLoad(result)}
${renderObservations(result.observations)}
${renderSkippedPhases(result.skippedPhases)}
</main>
<footer class="wrap">
<p>Generated by ${text(result.tool.name)} ${text(result.tool.version)} for the run started ${time(result.startedAt)}, seed ${text(result.seed)}. The machine-readable result is report.json. This page is self-contained and makes no network requests.</p>
</footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** The verdict, the run's facts, counts by severity and outcome, and the rules that need attention. */
function renderGlance(result: ConformanceResult, verdictWord: string, strict: boolean): string {
  const { summary } = result;
  const warnings = strict ? 0 : summary.counts.SHOULD.fail;
  const qualifier = summary.verdict === 'conformant' && warnings > 0 ? `, with ${plural(warnings, 'warning')}` : '';
  const policy = strict
    ? 'Strict run: a SHOULD failure fails the run like a MUST failure.'
    : 'SHOULD failures are warnings: they do not change the verdict (run with --strict to make them fail it).';
  const attention = [...result.rules]
    .map((rule) => ({ rule, as: shown(rule.outcome, rule.severity, strict) }))
    .filter(({ as }) => as === 'fail' || as === 'error' || as === 'waived' || as === 'warning' || as === 'inconclusive')
    .sort((a, b) => SHOWN_ORDER.indexOf(a.as) - SHOWN_ORDER.indexOf(b.as));
  const facts: [string, string][] = [
    ['Target', `<code>${text(result.target)}</code>`],
    ['Interface version', text(result.interfaceVersion)],
    ['Tool', `${text(result.tool.name)} ${text(result.tool.version)}`],
    ['Started', time(result.startedAt)],
    ['Duration', seconds(result.durationMs)],
    ['Requests', `${count(summary.requests)} requests, ${plural(summary.checks, 'check')}`],
    ['Seed', `${text(result.seed)} (${plural(result.numRuns, 'run')} per property check)`],
    ['Strict', strict ? 'yes' : 'no'],
  ];
  if (result.options.only.length > 0) facts.push(['Only', text(result.options.only.join(', '))]);
  if (result.options.skip.length > 0) facts.push(['Skipped rules', text(result.options.skip.join(', '))]);
  if (summary.thresholds === 'pass' || summary.thresholds === 'fail') {
    const profiles = result.load.map((l) => l.profile).join(', ');
    facts.push(['Load', `<a href="#load">${text(profiles)}</a>: ${summary.thresholds === 'pass' ? 'every threshold met' : '<strong class="bad">a threshold was breached</strong>'}`]);
  }
  if (result.options.insecure) facts.push(['TLS', 'certificates were not verified (--insecure)']);
  else if (result.options.customCa) facts.push(['TLS', 'verified against the CA given with --ca']);
  facts.push(['Animals created', `names start with <code>${text(result.namePrefix)}</code>`]);
  return `<section id="glance" class="glance">
<div class="verdict v-${attr(summary.verdict)}">
<p class="verdict-label">Verdict</p>
<p class="verdict-word" id="verdict">${text(verdictWord)}${qualifier}</p>
<p class="verdict-reason">${text(summary.reason)}</p>
${summary.abort ? `<p class="verdict-abort">The target could not be tested: <code>${text(summary.abort.code)}</code> ${text(summary.abort.message)}</p>` : ''}
<p class="verdict-policy">${policy}</p>
</div>
<div class="glance-grid">
${renderCounts(result, strict)}
<dl class="facts">
${facts.map(([k, v]) => `<div><dt>${k}</dt><dd>${v}</dd></div>`).join('\n')}
</dl>
</div>
<div class="attention">
<h2>Needs attention</h2>
${
  attention.length === 0
    ? '<p class="all-good">Every rule that ran passed.</p>'
    : `<ul>\n${attention.map(({ rule, as }) => `<li>${badge(as)} <a href="#${anchor(rule.id)}" class="rid">${text(rule.id)}</a> <span class="sev sev-${attr(rule.severity)}">${text(rule.severity)}</span> ${text(rule.title)}${glanceMessage(rule)}</li>`).join('\n')}\n</ul>`
}
${result.skippedPhases.length > 0 ? `<p class="not-run">Not run: ${result.skippedPhases.map((p) => `${text(p.phase)} (${text(p.reason)})`).join('; ')}.</p>` : ''}
</div>
</section>`;
}

/** The first finding's message of a rule (or the reason its check errored), cut short. */
function glanceMessage(rule: RuleResult): string {
  const check = rule.checks.find((c) => c.outcome === 'fail' || c.outcome === 'error') ?? rule.checks.find((c) => c.outcome === 'inconclusive');
  const message = check?.findings[0] ? findingText(check.findings[0]) : check?.reason;
  if (!message) return '';
  const cut = message.length > GLANCE_MESSAGE_CHARS ? `${message.slice(0, GLANCE_MESSAGE_CHARS)}…` : message;
  return `<span class="glance-msg">${text(cut)}</span>`;
}

/** Rules by severity and shown outcome; the warning column exists only when SHOULD failures are warnings, the waived one only with waivers. */
function renderCounts(result: ConformanceResult, strict: boolean): string {
  const waived = result.waivers.length > 0 || SEVERITIES.some((s) => (result.summary.counts[s].waived ?? 0) > 0);
  const columns = SHOWN_ORDER.filter((o) => (o !== 'warning' || !strict) && (o !== 'waived' || waived));
  const cell = (severity: Severity, as: Shown): number => {
    const counts = result.summary.counts[severity];
    if (as === 'warning') return severity === 'SHOULD' ? counts.fail : 0;
    if (as === 'fail' && severity === 'SHOULD' && !strict) return 0;
    return counts[as] ?? 0;
  };
  const row = (severity: Severity): string => {
    const total = Object.values(result.summary.counts[severity]).reduce((a, b) => a + b, 0);
    return `<tr><th scope="row"><span class="sev sev-${severity}">${severity}</span></th>${columns
      .map((as) => {
        const n = cell(severity, as);
        const na = (as === 'warning' && severity === 'MUST') || (as === 'fail' && severity === 'SHOULD' && !strict);
        return `<td class="${n > 0 ? `nz o-${as}` : 'zero'}">${na ? '–' : count(n)}</td>`;
      })
      .join('')}<td class="total">${count(total)}</td></tr>`;
  };
  return `<table class="counts">
<caption>Rules by severity and outcome</caption>
<thead><tr><th scope="col"></th>${columns.map((as) => `<th scope="col">${LABEL[as]}</th>`).join('')}<th scope="col">Total</th></tr></thead>
<tbody>
${SEVERITIES.map(row).join('\n')}
</tbody>
</table>`;
}

// ---------------------------------------------------------------------------
// Rules

function renderRules(result: ConformanceResult, strict: boolean, reportJson: string): string {
  const ordered = result.rules
    .map((rule, index) => ({ rule, index, as: shown(rule.outcome, rule.severity, strict) }))
    .sort((a, b) => SHOWN_ORDER.indexOf(a.as) - SHOWN_ORDER.indexOf(b.as) || a.index - b.index);
  const byOutcome = SHOWN_ORDER.map((as) => [as, ordered.filter((r) => r.as === as).length] as const).filter(([, n]) => n > 0);
  const bySeverity = SEVERITIES.map((s) => [s, ordered.filter((r) => r.rule.severity === s).length] as const).filter(([, n]) => n > 0);
  const box = (name: string, value: string, label: string, n: number) =>
    `<label class="chip"><input type="checkbox" name="${name}" value="${value}" checked> ${label} <span class="n">${count(n)}</span></label>`;
  return `<section id="rules">
<h2>Rules <span class="h-count">${count(result.rules.length)}</span></h2>
<p class="hint">Each rule of the document with its severity, outcome and section. Open a rule for the document's words, its checks and, for a failing or inconclusive check, the evidence: request, response and a command to reproduce it.</p>
<form class="filters" id="filters" hidden>
<fieldset><legend>Outcome</legend>${byOutcome.map(([as, n]) => box('outcome', as, LABEL[as], n)).join('')}</fieldset>
<fieldset><legend>Severity</legend>${bySeverity.map(([s, n]) => box('severity', s, s, n)).join('')}</fieldset>
<label class="search">Search <input type="search" id="search" placeholder="id, title, section or message" autocomplete="off"></label>
<button type="reset" class="reset">Show all</button>
<output id="shown-count" aria-live="polite"></output>
</form>
<div class="rule-list">
<div class="rule-head" aria-hidden="true"><span>Outcome</span><span>Rule</span><span>Severity</span><span>Title</span><span>Section of the document</span></div>
${ordered.map(({ rule, as }) => renderRule(rule, as, strict, reportJson)).join('\n')}
<p id="no-match" class="no-match" hidden>No rule matches these filters.</p>
</div>
</section>`;
}

/** The catalog's entry for a rule of the result (absent for a rule this version does not know). */
const definitionOf = (id: string) => catalog.find((r) => r.id === id);

/** A rule that passed with cases it could not decide says so beside its badge: never a bare pass. */
function openCases(rule: RuleResult): string {
  const open = inconclusiveCases(rule);
  return open > 0 && rule.outcome !== 'inconclusive' ? `<span class="open-cases">${count(open)} case${open === 1 ? '' : 's'} inconclusive</span>` : '';
}

function renderRule(rule: RuleResult, as: Shown, strict: boolean, reportJson: string): string {
  const definition = definitionOf(rule.id);
  const search = [
    rule.id,
    rule.title,
    rule.section,
    rule.group,
    rule.severity,
    LABEL[as],
    ...rule.checks.flatMap((c) => [c.id, c.title, c.reason ?? '', ...c.findings.map((f) => findingText(f))]),
  ]
    .join(' ')
    .toLowerCase();
  const statement = definition
    ? `<div class="doc"><p class="doc-label">The document (${text(definition.section)})</p><blockquote>${text(definition.statement)}</blockquote>${
        'interpretation' in definition && definition.interpretation ? `<p class="interp"><span>How it is checked:</span> ${text(definition.interpretation)}</p>` : ''
      }${'references' in definition && definition.references ? `<p class="interp"><span>Standards:</span> ${text(definition.references.join(', '))}</p>` : ''}</div>`
    : '';
  return `<details class="rule o-${as}" id="${anchor(rule.id)}" data-outcome="${as}" data-severity="${attr(rule.severity)}" data-search="${attr(search)}">
<summary>${badge(as)}${openCases(rule)}<span class="rid">${text(rule.id)}</span><span class="sev sev-${attr(rule.severity)}">${text(rule.severity)}</span><span class="rtitle">${text(rule.title)}</span><span class="rsec">${text(rule.section)}</span></summary>
<div class="rule-body">
${statement}
${rule.checks.map((check) => renderCheck(check, rule.severity, strict, reportJson)).join('\n')}
</div>
</details>`;
}

function renderCheck(check: CheckResult, severity: Severity, strict: boolean, reportJson: string): string {
  const as = shown(check.outcome, severity, strict);
  const tally = [
    check.passed > 0 ? `${count(check.passed)} passed` : '',
    check.failed > 0 ? `${count(check.failed)} failed` : '',
    check.inconclusive > 0 ? `${count(check.inconclusive)} inconclusive` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const total = check.failed + check.inconclusive;
  const kept = check.findings.length < total ? `<p class="kept">Showing ${count(check.findings.length)} of ${count(total)} findings (distinct problems first; the rest repeat them).</p>` : '';
  return `<div class="check o-${as}">
<div class="check-head">${badge(as)}<code class="cid">${text(check.id)}</code><span class="ctitle">${text(check.title)}</span><span class="kind">${text(check.kind)}</span>${tally ? `<span class="tally">${tally}</span>` : ''}</div>
${check.reason ? `<p class="reason">${text(check.reason)}</p>` : ''}
${kept}
${check.findings.map((finding, i) => renderFinding(finding, i === 0, reportJson)).join('\n')}
</div>`;
}

/**
 * A finding: the message and, for a failure, its case id; the counterexample,
 * every exchange with its curl command, the replay command of the failing
 * request (as the console prints it) and the re-run command.
 */
function renderFinding(finding: Finding, open: boolean, reportJson: string): string {
  const caseId = finding.case?.id;
  return `<details class="finding o-${finding.outcome === 'fail' ? 'fail' : 'inconclusive'}"${open ? ' open' : ''}${caseId ? ` data-case="${attr(caseId)}"` : ''}>
<summary>${renderMessage(findingText(finding))}${caseId ? `<span class="case">case <code class="case-id">${text(caseId)}</code></span>` : ''}</summary>
<div class="finding-body">
${finding.counterexample ? renderCounterexample(finding.counterexample) : ''}
${finding.evidence.map((e, i) => renderEvidence(e, i, finding.evidence.length)).join('\n')}
${caseId ? `<div class="cmd"><p class="cmd-label">Replay this request and judge the answer again (case ${text(caseId)}; the key comes from --api-key or $PETSTORE_API_KEY)</p><pre class="replay-case">${text(replayCommand(reportJson, caseId))}</pre></div>` : ''}
<div class="cmd"><p class="cmd-label">Re-run this rule with the same seed</p><pre class="replay">${text(finding.replay)}</pre></div>
</div>
</details>`;
}

/** "Expected … / Received …" on two lines when it has that form; as it is otherwise. */
function renderMessage(message: string): string {
  const m = /^(Expected [\s\S]*?) \/ (Received [\s\S]*)$/.exec(String(message));
  if (!m) return `<span class="msg">${text(message)}</span>`;
  return `<span class="msg"><span class="expected">${text(m[1])}</span><span class="received">${text(m[2])}</span></span>`;
}

function renderCounterexample(cx: Counterexample): string {
  return `<div class="cx">
<p class="cmd-label">Counterexample (shrunk)</p>
<pre class="cx-input">${text(cx.input)}</pre>
<p class="cx-meta">seed ${text(cx.seed)} · path <code>${text(cx.path)}</code> · found after ${plural(cx.numRuns, 'run')}, shrunk ${plural(cx.numShrinks, 'time')}</p>
</div>`;
}

function renderHeaders(headers: Record<string, string>): string {
  return Object.entries(headers ?? {})
    .map(([name, value]) => `<span class="hn">${text(name)}</span>: ${text(value)}`)
    .join('\n');
}

/** One request and its response, side by side, and the curl command that sends the same bytes. */
function renderEvidence(evidence: Evidence, index: number, of: number): string {
  const { request, response } = evidence;
  const requestBody = request.body !== undefined && request.body !== '' ? `\n\n${text(request.body)}` : '';
  const requestHeaders = renderHeaders(request.headers);
  const requestSide = `<div class="side"><p class="side-label">Request${request.bodyBytes > 0 ? ` · body ${plural(request.bodyBytes, 'byte')}` : ''}</p><pre class="http"><span class="line1">${text(request.method)} ${text(request.url)}</span>${requestHeaders ? `\n${requestHeaders}` : ''}${requestBody}</pre></div>`;
  let responseSide: string;
  if (response) {
    const status = Number(response.status);
    const klass = status >= 500 ? 's5' : status >= 400 ? 's4' : status >= 300 ? 's3' : 's2';
    const truncated = response.truncated ? `<p class="trunc">Body excerpt: the first ${count(String(response.body ?? '').length)} characters of ${plural(response.bodyBytes, 'byte')}.</p>` : '';
    const headers = renderHeaders(response.headers);
    const body = response.body ? `\n\n${text(response.body)}` : '';
    responseSide = `<div class="side"><p class="side-label">Response · ${millis(evidence.durationMs)}${response.bodyBytes > 0 ? ` · body ${plural(response.bodyBytes, 'byte')}` : ''}</p><pre class="http"><span class="line1 status ${klass}">HTTP ${text(response.status)}</span>${headers ? `\n${headers}` : ''}${body}</pre>${truncated}</div>`;
  } else {
    responseSide = `<div class="side"><p class="side-label">No response · ${millis(evidence.durationMs)}</p><pre class="http transport">${text(evidence.transportError ?? 'no response')}</pre></div>`;
  }
  return `<div class="exchange">
<p class="exchange-label">Exchange ${of > 1 ? `${index + 1} of ${of}` : ''} <span class="seq">request #${text(evidence.seq)}</span></p>
<div class="sides">${requestSide}${responseSide}</div>
<div class="cmd"><p class="cmd-label">Reproduce (the key comes from $PETSTORE_API_KEY)</p><pre class="curl">${text(evidence.curl)}</pre></div>
</div>`;
}

// ---------------------------------------------------------------------------
// Load

/** The load profiles that ran: figures per operation, thresholds, conformance under load, and charts. */
function renderLoad(result: ConformanceResult): string {
  if (result.load.length === 0) return '';
  return `<section id="load">
<h2>Load</h2>
${result.load.map(renderProfile).join('\n')}
</section>`;
}

const OUTCOME_OF_THRESHOLD: Record<ThresholdResult['outcome'], Shown> = { pass: 'pass', fail: 'fail', inconclusive: 'inconclusive' };

function renderProfile(load: LoadResult): string {
  const row = (label: string, f: LoadFigures) =>
    `<tr><th scope="row">${text(label)}</th><td>${count(f.requests)}</td><td>${text(f.throughput)}</td><td>${millis(f.latencyMs.p50)}</td><td>${millis(f.latencyMs.p95)}</td><td>${millis(f.latencyMs.p99)}</td><td>${millis(f.latencyMs.max)}</td><td>${text((f.errorRate * 100).toFixed(2))}%</td><td>${count(f.errors.non2xx)} / ${count(f.errors.timeouts)} / ${count(f.errors.socketErrors)}</td></tr>`;
  const thresholds = load.thresholds
    .map((t) => `<tr id="${attr(anchor(t.id))}"><td>${badge(OUTCOME_OF_THRESHOLD[t.outcome])}</td><td><code>${text(t.id)}</code></td><td><code>${text(t.expression)}</code></td><td>${text(t.measured)} ${text(t.unit)}</td><td>${text(t.reason ?? '')}</td></tr>`)
    .join('');
  const g = load.generatorLoad;
  const facts = [
    `${text(load.kind)} loop, ${text(load.generator)}, ${seconds(load.durationMs)}, up to ${count(load.settings.connections)} connections${load.settings.rate ? `, ${text(load.settings.rate)} req/s due` : ''}`,
    `generator: ${text(Math.round(g.cpuShare * 100))}% of a core, event-loop delay p99 ${millis(g.eventLoopDelayP99Ms)}${g.bound ? ' — <strong>generator-bound</strong>: the load generator, not the target, was the limit' : ''}`,
    `conformance under load: ${plural(load.conformance.sampled, 'response')} judged${load.conformance.failedRules.length ? `; <strong>failing under load: ${text(load.conformance.failedRules.join(', '))}</strong>` : ', every rule held'}`,
    ...(load.answered ? [`answered: ${count(load.answered.answered)} of ${count(load.answered.due)} requests due`] : []),
    ...(load.schedule ? [`schedule: ${count(load.schedule.sent)} of ${count(load.schedule.due)} due requests sent, ${count(load.schedule.dropped)} dropped (all connections busy), ${count(load.schedule.late)} late`] : []),
    ...(load.brokeAt ? [`broke at stage ${text(load.brokeAt.stage)} (${text(load.brokeAt.connections)} connections): ${text(load.brokeAt.thresholds.join('; '))}`] : []),
    ...(load.drift ? [`drift: p99 ×${text(load.drift.p99Ratio)} from the first tenth to the last; error rate ${text((load.drift.errorRateDelta * 100).toFixed(2))} points`] : []),
    ...(load.stoppedEarly ? [`stopped early: ${text(load.stoppedEarly)}`] : []),
  ];
  const overTime = (title: string, yLabel: string, lines: [string, string, (t: LoadResult['timeline'][number]) => number][]) =>
    lineChart({ title, xLabel: 'second of the profile', yLabel, series: lines.map(([label, colour, pick]) => ({ label, colour, points: load.timeline.map((t) => [t.second, pick(t)] as const) })) }, text);
  const throughput = overTime('Throughput over time', 'responses per second', [
    ['responses/s', '#2563eb', (t) => t.requests],
    ['errors/s', '#dc2626', (t) => t.errors],
  ]);
  const latency = overTime('Latency over time', 'ms', [
    ['p50', '#16a34a', (t) => t.p50],
    ['p99', '#d97706', (t) => t.p99],
  ]);
  // Percentiles on an even scale, labelled with the percentile.
  const distribution = load.overall.distribution;
  const percentiles = lineChart(
    {
      title: 'Latency percentiles (all operations)',
      xLabel: 'percentile',
      yLabel: 'ms',
      series: [{ label: 'latency', colour: '#7c3aed', points: distribution.map(([, ms], i) => [i, ms] as const) }],
      xTicks: distribution.map(([p], i) => [i, `${p}`] as const).filter((_, i) => i % 2 === 0 || i === distribution.length - 1),
    },
    text,
  );
  return `<article class="profile" id="load-${attr(load.profile)}">
<h3>Profile <code>${text(load.profile)}</code></h3>
<p class="muted">${text(load.description)}</p>
<ul class="load-facts">${facts.map((f) => `<li>${f}</li>`).join('')}</ul>
<table class="load">
<thead><tr><th>operation</th><th>requests</th><th>req/s</th><th>p50</th><th>p95</th><th>p99</th><th>max</th><th>errors</th><th>non-2xx / timeouts / socket</th></tr></thead>
<tbody>${row('all', load.overall)}${Object.entries(load.operations).map(([op, f]) => row(op, f)).join('')}</tbody>
</table>
<table class="thresholds"><thead><tr><th>outcome</th><th>threshold</th><th>expression</th><th>measured</th><th></th></tr></thead><tbody>${thresholds || '<tr><td colspan="5">no thresholds</td></tr>'}</tbody></table>
<div class="charts">${throughput}${latency}${percentiles}</div>
</article>`;
}

/** How a waiver's status is coloured: applied is a known deviation, expired and partial count as failures, stale is to clean up. */
const WAIVER_BADGE: Record<WaiverResult['status'], Shown> = { applied: 'waived', expired: 'fail', partial: 'fail', stale: 'warning' };

/** Waivers, up front: a waived failure is a known deviation, shown as prominently as a failure. */
function renderWaivers(waivers: readonly WaiverResult[]): string {
  if (waivers.length === 0) return '';
  const rows = waivers
    .map((w) => `<tr><td><span class="badge o-${WAIVER_BADGE[w.status] ?? 'error'}">${text(w.status)}</span></td><td><code>${text(w.rule)}</code>${w.operation ? ` on ${text(w.operation)}` : ''}</td><td>${text(w.reason)}</td><td>${text(w.issue)}</td><td>${text(w.expires)}</td><td>${text(w.note)}</td></tr>`)
    .join('');
  return `<section id="waivers">
<h2>Waivers <span class="h-count">${count(waivers.length)}</span></h2>
<p class="hint">Known, tracked deviations given with --waivers. An applied waiver keeps a failure from failing the run until it expires; the rule is still shown as waived below.</p>
<table class="waivers"><thead><tr><th>status</th><th>rule</th><th>reason</th><th>tracking issue</th><th>expires</th><th></th></tr></thead><tbody>${rows}</tbody></table>
</section>`;
}

// ---------------------------------------------------------------------------
// Observations and skipped phases

/** What the target did where the document says "not shown", by gap in catalog order. */
function renderObservations(observations: Observation[]): string {
  const known = new Set<string>(gaps.map((g) => g.id));
  const groups = [
    ...gaps.map((gap) => ({ id: gap.id as string, title: gap.title as string, section: gap.section as string, accepted: gap.accepted as string })),
    ...[...new Set(observations.map((o) => String(o.gap)).filter((id) => !known.has(id)))].map((id) => ({ id, title: '', section: '', accepted: '' })),
  ]
    .map((gap) => ({ gap, items: observations.filter((o) => String(o.gap) === gap.id) }))
    .filter(({ items }) => items.length > 0);
  const body =
    groups.length === 0
      ? '<p class="hint">No observations were recorded.</p>'
      : groups
          .map(
            ({ gap, items }) => `<div class="gap">
<h3><span class="gid">${text(gap.id)}</span> ${text(gap.title)} <span class="h-count">${plural(items.length, 'observation')}</span></h3>
${gap.section ? `<p class="gap-meta">${text(gap.section)} · accepted: ${text(gap.accepted)}</p>` : ''}
<ul class="obs">
${items.map(renderObservation).join('\n')}
</ul>
</div>`,
          )
          .join('\n');
  return `<section id="observations">
<h2>Observations on the document's gaps <span class="h-count">${count(observations.length)}</span></h2>
<p class="hint">Where the document leaves behaviour open ("not shown"), the suite fails nothing: it records what the target did. These are facts for the reader, not findings.</p>
${body}
</section>`;
}

function renderObservation(o: Observation): string {
  const line = `<span class="op">${text(o.operation)}</span><span class="obs-summary">${text(o.summary)}</span>${o.count > 1 ? `<span class="times">×${count(o.count)}</span>` : ''}`;
  if (!o.evidence) return `<li><div class="obs-line">${line}</div></li>`;
  return `<li><details><summary class="obs-line">${line}</summary>${renderEvidence(o.evidence, 0, 1)}</details></li>`;
}

function renderSkippedPhases(skipped: ConformanceResult['skippedPhases']): string {
  if (skipped.length === 0) return '';
  return `<section id="skipped">
<h2>Phases not run</h2>
<table class="skipped"><thead><tr><th scope="col">Phase</th><th scope="col">Why</th></tr></thead><tbody>
${skipped.map((p) => `<tr><td><code>${text(p.phase)}</code></td><td>${text(p.reason)}</td></tr>`).join('\n')}
</tbody></table>
</section>`;
}

// ---------------------------------------------------------------------------
// Style and script: constants, admitted by hash in the page's CSP.

const STYLE = `
.profile{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:2px 18px 16px;margin:10px 0}
.profile h3 code{font-size:15px}
.muted{color:var(--muted)}
.profile .muted{margin:0 0 6px}
.load-facts{margin:0 0 12px;padding-left:1.2rem;font-size:14px}
.load,.thresholds,.waivers{border-collapse:collapse;margin:6px 0 14px;font-size:14px;background:var(--card)}
.load th,.load td,.thresholds th,.thresholds td,.waivers th,.waivers td{border-bottom:1px solid var(--line);padding:5px 10px;text-align:right;font-variant-numeric:tabular-nums}
.load thead th,.thresholds thead th,.waivers thead th{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.load th:first-child,.thresholds th,.thresholds td:nth-child(2),.thresholds td:nth-child(3),.thresholds td:last-child,.waivers th,.waivers td{text-align:left}
.waivers{border:1px solid var(--line);width:100%}
.waivers td{vertical-align:top;overflow-wrap:anywhere}
.waivers td:nth-child(5){white-space:nowrap}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,520px),1fr));gap:12px}
.chart{width:100%;height:auto;background:#fff;border:1px solid #e3e8ef;border-radius:6px;color:#1f2937}

:root{--fg:#1d2433;--muted:#5b6576;--line:#e3e7ee;--bg:#f6f7f9;--card:#fff;--code:#f3f5f8;
--fail:#b42318;--fail-bg:#fef3f2;--warning:#a15c07;--warning-bg:#fffaeb;--error:#6941c6;--error-bg:#f4f3ff;
--inconclusive:#175cd3;--inconclusive-bg:#eff8ff;--pass:#067647;--pass-bg:#ecfdf3;--skip:#667085;--skip-bg:#f2f4f7;
--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ef;--muted:#9aa4b5;--line:#2c3340;--bg:#14181f;--card:#1b2029;--code:#232a35;
--fail:#f97066;--fail-bg:#3a1d1b;--warning:#fdb022;--warning-bg:#35290f;--error:#b692f6;--error-bg:#2a2240;
--inconclusive:#84caff;--inconclusive-bg:#172b45;--pass:#47cd89;--pass-bg:#14301f;--skip:#98a2b3;--skip-bg:#252b35}}
*{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
.wrap{max-width:1280px;margin:0 auto;padding:0 24px}
code,pre,.rid,.cid,.gid,.op{font-family:var(--mono);font-size:13px}
pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word}
h2{font-size:20px;margin:36px 0 6px}
h3{font-size:15px;margin:18px 0 4px}
a{color:var(--inconclusive)}
.h-count{font-weight:400;color:var(--muted);font-size:14px;margin-left:4px}
.hint{color:var(--muted);margin:0 0 14px;max-width:80ch}
.ctl{font-family:var(--mono);font-size:.85em;color:var(--error);background:var(--error-bg);border:1px solid var(--error);border-radius:3px;padding:0 2px;margin:0 1px}
.top{background:var(--card);border-bottom:1px solid var(--line);padding:18px 0 16px}
.top .tool{margin:0;color:var(--muted);font-size:13px}
.top h1{margin:2px 0 4px;font-size:24px}
.top .ver{font-weight:400;color:var(--muted);font-size:16px}
.top .target{margin:0;color:var(--muted);overflow-wrap:anywhere}
.top .target code{color:var(--fg)}
.glance{margin-top:22px}
.verdict{border-radius:10px;padding:18px 22px;border:1px solid;border-left-width:8px}
.verdict p{margin:0}
.v-conformant{background:var(--pass-bg);border-color:var(--pass)}
.v-non-conformant{background:var(--fail-bg);border-color:var(--fail)}
.v-error{background:var(--error-bg);border-color:var(--error)}
.verdict-label{text-transform:uppercase;letter-spacing:.08em;font-size:12px;color:var(--muted)}
.verdict-word{font-size:30px;font-weight:700;line-height:1.2}
.v-conformant .verdict-word{color:var(--pass)}
.v-non-conformant .verdict-word{color:var(--fail)}
.v-error .verdict-word{color:var(--error)}
.verdict-reason{font-size:16px;margin-top:4px!important;overflow-wrap:anywhere}
.verdict-abort{margin-top:6px!important;overflow-wrap:anywhere}
.verdict-policy{color:var(--muted);font-size:13px;margin-top:6px!important}
.glance-grid{display:grid;grid-template-columns:auto minmax(0,1fr);gap:18px;margin-top:18px;align-items:start}
@media (max-width:900px){.glance-grid{grid-template-columns:1fr}}
.counts{border-collapse:separate;border-spacing:0;background:var(--card);border:1px solid var(--line);border-radius:10px;overflow:hidden}
.counts caption{text-align:left;font-weight:600;padding:0 0 6px}
.counts th,.counts td{padding:9px 12px;text-align:center;border-bottom:1px solid var(--line)}
.counts thead th{font-size:12px;font-weight:600;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.counts tbody tr:last-child th,.counts tbody tr:last-child td{border-bottom:0}
.counts tbody th{text-align:left}
.counts td{font-variant-numeric:tabular-nums;font-size:18px}
.counts td.zero{color:var(--line)}
.counts td.total{color:var(--muted);font-size:15px}
.counts td.nz{font-weight:700}
.counts td.o-fail{color:var(--fail);background:var(--fail-bg)}
.counts td.o-warning{color:var(--warning);background:var(--warning-bg)}
.counts td.o-waived{color:var(--warning);background:var(--warning-bg)}
.counts td.o-error{color:var(--error);background:var(--error-bg)}
.counts td.o-inconclusive{color:var(--inconclusive);background:var(--inconclusive-bg)}
.counts td.o-pass{color:var(--pass)}
.counts td.o-skip{color:var(--skip)}
.facts{margin:0;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:6px 14px}
.facts div{display:grid;grid-template-columns:9.5em minmax(0,1fr);gap:10px;padding:5px 0;border-bottom:1px solid var(--line)}
.facts div:last-child{border-bottom:0}
.facts dt{color:var(--muted)}
.facts dd{margin:0;overflow-wrap:anywhere}
.attention{margin-top:18px;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:4px 18px 12px}
.attention h2{font-size:16px;margin:12px 0 6px}
.attention ul{list-style:none;margin:0;padding:0}
.attention li{padding:7px 0;border-top:1px solid var(--line);overflow-wrap:anywhere}
.attention li:first-child{border-top:0}
.attention .badge{margin-right:6px}
.attention .rid{font-weight:600;margin-right:4px}
.glance-msg{display:block;color:var(--muted);font-size:13px;margin:2px 0 0 7.6rem;white-space:pre-wrap}
.bad{color:var(--fail)}
.all-good{color:var(--pass);font-weight:600}
.not-run{color:var(--muted);font-size:13px;margin:8px 0 0}
.badge{display:inline-block;min-width:6.6rem;text-align:center;font-size:12px;font-weight:600;padding:2px 8px;border-radius:999px;border:1px solid}
.badge.o-fail{color:var(--fail);background:var(--fail-bg)}
.badge.o-warning{color:var(--warning);background:var(--warning-bg)}
.badge.o-waived{color:var(--warning);background:var(--warning-bg);border-style:dashed}
.open-cases{display:inline-block;font-size:12px;color:var(--inconclusive);margin:0 6px;white-space:nowrap}
.badge.o-error{color:var(--error);background:var(--error-bg)}
.badge.o-inconclusive{color:var(--inconclusive);background:var(--inconclusive-bg)}
.badge.o-pass{color:var(--pass);background:var(--pass-bg)}
.badge.o-skip{color:var(--skip);background:var(--skip-bg)}
.sev{display:inline-block;font-size:11px;font-weight:700;letter-spacing:.05em;padding:1px 6px;border-radius:4px;border:1px solid var(--line);color:var(--muted)}
.sev-MUST{color:var(--fg);border-color:var(--muted)}
.filters{position:sticky;top:0;z-index:2;display:flex;flex-wrap:wrap;gap:10px 18px;align-items:center;background:var(--bg);padding:10px 0;border-bottom:1px solid var(--line);margin-bottom:10px}
.filters fieldset{border:0;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.filters legend{float:left;color:var(--muted);font-size:13px;margin-right:4px}
.chip{display:inline-flex;gap:5px;align-items:center;font-size:13px;background:var(--card);border:1px solid var(--line);border-radius:999px;padding:3px 10px;cursor:pointer;user-select:none}
.chip .n{color:var(--muted)}
.search{font-size:13px;color:var(--muted);display:inline-flex;gap:6px;align-items:center}
.search input{font:inherit;color:var(--fg);background:var(--card);border:1px solid var(--line);border-radius:6px;padding:5px 9px;width:17rem}
.reset{font:inherit;font-size:13px;background:none;border:1px solid var(--line);border-radius:6px;padding:4px 10px;color:var(--fg);cursor:pointer}
#shown-count{font-size:13px;color:var(--muted);margin-left:auto}
.rule-list{background:var(--card);border:1px solid var(--line);border-radius:10px;overflow:hidden}
.rule-head,.rule>summary{display:grid;grid-template-columns:7.4rem 15rem 4.6rem minmax(0,1fr) minmax(0,17rem);gap:12px;align-items:baseline;padding:8px 14px}
.rule-head{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em;border-bottom:1px solid var(--line);font-weight:600}
@media (max-width:900px){.rule-head{display:none}.rule>summary{grid-template-columns:7.4rem minmax(0,1fr)}.rule>summary .rsec{grid-column:2}}
.rule{border-bottom:1px solid var(--line)}
.rule:last-of-type{border-bottom:0}
.rule>summary{cursor:pointer;list-style:none;border-left:4px solid transparent}
.rule>summary::-webkit-details-marker{display:none}
.rule>summary:hover{background:var(--bg)}
.rule.o-fail>summary{border-left-color:var(--fail)}
.rule.o-warning>summary{border-left-color:var(--warning)}
.rule.o-waived>summary{border-left-color:var(--warning)}
.rule.o-error>summary{border-left-color:var(--error)}
.rule.o-inconclusive>summary{border-left-color:var(--inconclusive)}
.rule[open]>summary{background:var(--bg);border-bottom:1px solid var(--line)}
.rule .rid{font-weight:600;overflow-wrap:anywhere}
.rule .rid::before{content:"▸";display:inline-block;width:1em;color:var(--muted);font-family:system-ui,sans-serif}
.rule[open] .rid::before{content:"▾"}
.rtitle{overflow-wrap:anywhere}
.rsec{color:var(--muted);font-size:13px;overflow-wrap:anywhere}
.rule-body{padding:12px 18px 18px 32px}
.doc{margin:0 0 12px;max-width:100ch}
.doc-label{margin:0;color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.doc blockquote{margin:4px 0 6px;padding:4px 12px;border-left:3px solid var(--line);font-style:italic}
.interp{margin:2px 0;font-size:13px;color:var(--muted)}
.interp span{font-weight:600}
.check{border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:8px 0;background:var(--card)}
.check.o-fail{border-color:var(--fail)}
.check.o-warning{border-color:var(--warning)}
.check.o-error{border-color:var(--error)}
.check.o-inconclusive{border-color:var(--inconclusive)}
.check-head{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline}
.cid{font-weight:600}
.kind{font-size:12px;color:var(--muted);border:1px solid var(--line);border-radius:4px;padding:0 5px}
.tally{margin-left:auto;font-size:13px;color:var(--muted)}
.reason,.kept{margin:6px 0 0;font-size:13px;color:var(--muted);white-space:pre-wrap;overflow-wrap:anywhere}
.finding{margin:10px 0 2px;border-top:1px dashed var(--line);padding-top:8px}
.finding>summary,.obs details>summary{cursor:pointer;list-style:none;display:flex;gap:.5em;align-items:baseline}
.finding>summary::-webkit-details-marker,.obs details>summary::-webkit-details-marker{display:none}
.finding>summary::before,.obs details>summary::before{content:"▸";color:var(--muted);flex:none;width:.8em}
.finding[open]>summary::before,.obs details[open]>summary::before{content:"▾"}
.msg{white-space:pre-wrap;overflow-wrap:anywhere}
.expected,.received{display:block}
.finding.o-fail .received{color:var(--fail);font-weight:600}
.finding.o-inconclusive .received{color:var(--inconclusive);font-weight:600}
.finding-body{margin:8px 0 0 1.2em}
.exchange{margin:10px 0 12px}
.exchange-label,.side-label,.cmd-label{margin:0 0 3px;font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em;font-weight:600}
.seq{text-transform:none;font-weight:400;margin-left:6px}
.sides{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:10px}
@media (max-width:900px){.sides{grid-template-columns:1fr}}
.http,.curl,.replay,.replay-case,.cx-input,.raw{background:var(--code);border:1px solid var(--line);border-radius:6px;padding:8px 10px;max-height:26rem;overflow:auto}
.http .line1{font-weight:700}
.hn{color:var(--muted)}
.status.s2{color:var(--pass)}
.status.s3{color:var(--inconclusive)}
.status.s4{color:var(--warning)}
.status.s5,.transport{color:var(--fail)}
.trunc{margin:3px 0 0;font-size:12px;color:var(--muted)}
.cmd{margin:8px 0 0}
.case{margin-left:.6em;font-size:12px;color:var(--muted);white-space:nowrap}
.cx{margin:8px 0}
.cx-meta{margin:3px 0 0;font-size:13px;color:var(--muted);overflow-wrap:anywhere}
.no-match{padding:14px;color:var(--muted);margin:0}
.gap{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:2px 16px 10px;margin:10px 0}
.gap h3 .gid{font-weight:600;margin-right:6px}
.gap-meta{margin:0 0 6px;font-size:13px;color:var(--muted)}
.obs{list-style:none;margin:0;padding:0}
.obs li{border-top:1px solid var(--line);padding:4px 0}
.obs-line{display:flex;gap:10px;align-items:baseline;overflow-wrap:anywhere}
div.obs-line{padding-left:1.3em}
.op{color:var(--muted);flex:0 0 9.5rem;overflow-wrap:anywhere}
.obs-summary{flex:1;min-width:0;white-space:pre-wrap}
.times{color:var(--muted);font-size:13px}
.skipped{border-collapse:collapse;background:var(--card);border:1px solid var(--line)}
.skipped th,.skipped td{padding:6px 12px;border-bottom:1px solid var(--line);text-align:left;overflow-wrap:anywhere}
footer{color:var(--muted);font-size:13px;margin-top:40px;padding-bottom:30px}
`;

/**
 * Filters and search over the rules' data-* attributes; opens a rule reached
 * by its fragment. Without script the page is complete, the filters hidden.
 */
const SCRIPT = `
(() => {
  const form = document.getElementById('filters');
  const rules = Array.from(document.querySelectorAll('details.rule'));
  const search = document.getElementById('search');
  const out = document.getElementById('shown-count');
  const none = document.getElementById('no-match');
  const picked = (name) => new Set(Array.from(form.querySelectorAll('input[name="' + name + '"]:checked'), (i) => i.value));
  const apply = () => {
    const outcomes = picked('outcome');
    const severities = picked('severity');
    const words = search.value.toLowerCase().split(/\\s+/).filter(Boolean);
    let n = 0;
    for (const rule of rules) {
      const hay = rule.dataset.search || '';
      const show = outcomes.has(rule.dataset.outcome) && severities.has(rule.dataset.severity) && words.every((w) => hay.includes(w));
      rule.hidden = !show;
      if (show) n++;
    }
    out.textContent = n + ' of ' + rules.length + ' rules shown';
    none.hidden = n > 0;
  };
  const reveal = () => {
    const target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (!target || !target.matches('details.rule')) return;
    if (target.hidden) { form.reset(); apply(); }
    target.open = true;
  };
  form.hidden = false;
  form.addEventListener('input', apply);
  form.addEventListener('submit', (e) => e.preventDefault());
  form.addEventListener('reset', () => setTimeout(apply));
  window.addEventListener('hashchange', reveal);
  apply();
  reveal();
})();
`;


/** Nothing but the two inline blocks, and no address to send a request to. */
const CSP = `default-src 'none'; style-src 'sha256-${sha256(STYLE)}'; script-src 'sha256-${sha256(SCRIPT)}'; img-src data:; base-uri 'none'; form-action 'none'`;

/** Writes report.html into the report directory. */
export const htmlReporter = fileReporter(HTML_REPORT_FILE, (result, written) => renderHtml(result, { reportJson: written.find((path) => path.endsWith('report.json')) ?? 'report.json' }));
