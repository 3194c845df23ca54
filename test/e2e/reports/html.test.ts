import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../../../reference/handler.js';
import { suiteText } from '../../../core/redact.js';
import { HTML_REPORT_FILE, htmlReporter, renderHtml } from '../../../reports/html.js';
import type { RuleId } from '../../../spec/rules.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult, Outcome } from '../../../result/model.js';
import { artifactsDir, DISTINCTIVE_KEY, findChromium, tempDir, withServer, watch } from '../../helpers.js';

/** Chromium for the browser tests (docs/developing.md: skipped only when absent and not under CI). */
const CHROMIUM = findChromium('test/e2e/reports/html.test.ts');
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * A reference broken four ways: default limit 21 (LIST-LIMIT-DEFAULT, MUST);
 * Error.status written as a string (ERROR-STATUS-MATCHES…, MUST); getPet
 * without its Deprecation header (a SHOULD: a warning); categoryId through a
 * double (CREATE-ECHO, a property failure with a counterexample).
 */
const broken =
  (inner: Handler): Handler =>
  async (request) => {
    const query =
      request.method === 'GET' && request.path === '/pets' && !request.query.has('limit')
        ? new URLSearchParams([...request.query, ['limit', '21']])
        : request.query;
    const answer = await inner({ ...request, query });
    const headers = { ...answer.headers };
    if (request.path.startsWith('/pets/')) delete headers.deprecation;
    let body = answer.body;
    if (answer.status >= 400) body = { ...(answer.body as object), status: String(answer.status) };
    if (request.method === 'POST' && answer.status === 201) {
      const pet = answer.body as { categoryId: bigint };
      body = { ...pet, categoryId: BigInt(Number(pet.categoryId)) };
    }
    return { ...answer, headers, body };
  };

const offline = (urls: string[]) => urls.filter((url) => !/^(file|data|about):/.test(url));

/** The rule ids the page shows (not hidden by a filter), in page order. */
const visibleRules = (page: Page) =>
  page
    .locator('details.rule:visible')
    .evaluateAll((els) => els.map((el) => `${el.getAttribute('data-outcome')} ${el.getAttribute('data-severity')}`));

let browser: Browser;

beforeAll(async () => {
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
});

afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)('report.html of a failing run, in a browser', () => {
  let result: ConformanceResult;
  let url: string;
  let reportJson: string;

  beforeAll(async () => {
    result = await withServer({ wrap: broken }, (baseUrl) => runConformance({ baseUrl, apiKey: DISTINCTIVE_KEY, seed: 7, numRuns: 10 }));
    const reportDir = tempDir();
    const ctx = { reportDir, out: process.stdout, progress: process.stderr, color: false, interactive: false, env: {} };
    // report.json written before it (as the CLI orders reporters): the replay commands name it.
    const written = await htmlReporter(ctx).onRunEnd!(result, [join(reportDir, 'report.json')]);
    expect(written).toEqual([join(reportDir, HTML_REPORT_FILE)]);
    reportJson = join(reportDir, 'report.json');
    url = pathToFileURL(written[0]!).href;
  });

  const outcomeOf = (id: string) => result.rules.find((r) => r.id === id)?.outcome;

  it('the run is the failing one the test needs', () => {
    expect(result.summary.verdict).toBe('non-conformant');
    expect(result.summary.strict).toBe(false);
    expect(outcomeOf('LIST-LIMIT-DEFAULT')).toBe('fail');
    expect(outcomeOf('CREATE-ECHO')).toBe('fail');
    expect(outcomeOf('GET-DEPRECATION-HEADER')).toBe('fail');
    expect(readFileSync(new URL(url), 'utf8')).not.toContain(DISTINCTIVE_KEY);
  });

  it('shows the verdict, evidence on click, working filters and search, and makes no network request', async () => {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.setDefaultTimeout(10_000);
    const seen = watch(page);
    try {
      await page.goto(url);
      const total = result.rules.length;

      // At a glance.
      const verdict = page.locator('#verdict');
      expect(await verdict.isVisible()).toBe(true);
      expect(await verdict.textContent()).toBe('Non-conformant');
      expect(await page.locator('.verdict-reason').textContent()).toBe(result.summary.reason);
      expect(await page.locator('.top .target').textContent()).toContain(result.target);
      expect(await page.locator('.top h1').textContent()).toContain(result.interfaceVersion);
      expect(await page.locator('.counts').isVisible()).toBe(true);

      // A failing MUST rule: evidence hidden until its summary is clicked.
      const rule = page.locator('#list-limit-default');
      const curl = rule.locator('pre.curl').first();
      expect(await curl.isVisible()).toBe(false);
      await rule.locator('summary').first().click();
      await curl.waitFor({ state: 'visible' });
      expect(await curl.textContent()).toMatch(
        /^curl -sS -i -X GET '.*\/v1\/pets' -H @<\(printf '%s\\n' "authorization: Bearer \$\{PETSTORE_API_KEY\}"\)$/,
      );
      const status = rule.locator('.status').first();
      expect(await status.isVisible()).toBe(true);
      expect(await status.textContent()).toBe('HTTP 200');
      expect(await rule.locator('.received').first().textContent()).toBe('Received 21');
      expect(await rule.locator('pre.replay').first().textContent()).toMatch(/--seed 7 .*--only LIST-LIMIT-DEFAULT/);
      // Beside the failure: its case id and the replay command, as the console prints them.
      const failure = result.rules
        .find((r) => r.id === 'LIST-LIMIT-DEFAULT')!
        .checks.flatMap((c) => c.findings)
        .find((f) => f.outcome === 'fail')!;
      expect(failure.case?.id).toMatch(/^c-[0-9a-f]{8}$/);
      expect(await rule.locator('.case-id').first().textContent()).toBe(failure.case!.id);
      const replay = rule.locator('pre.replay-case').first();
      expect(await replay.isVisible()).toBe(true);
      expect(await replay.textContent()).toBe(
        `npx petstore-conformance replay ${reportJson} ${failure.case!.id} --base-url ${result.target}`,
      );

      // A property failure: its shrunk counterexample and re-run command.
      const echo = page.locator('#create-echo');
      await echo.locator('summary').first().click();
      const cx = echo.locator('pre.cx-input').first();
      await cx.waitFor({ state: 'visible' });
      expect(await cx.textContent()).toMatch(/categoryId/);
      expect(await echo.locator('.cx-meta').first().textContent()).toMatch(
        /seed -?\d+ · path \S+ · found after \d+ runs?, shrunk \d+ times?/,
      );

      // A SHOULD failure in a non-strict run is a warning.
      const warning = page.locator('#get-deprecation-header');
      expect(await warning.getAttribute('data-outcome')).toBe('warning');
      expect(await warning.locator('summary .badge').textContent()).toBe('Warning');

      // Filters: all rules shown at first.
      expect(await page.locator('#filters').isVisible()).toBe(true);
      expect(await visibleRules(page)).toHaveLength(total);
      expect(await page.locator('#shown-count').textContent()).toBe(`${total} of ${total} rules shown`);

      // Outcome filter: without "pass", no passing rule and every other one.
      const passing = result.rules.filter((r) => r.outcome === 'pass').length;
      await page.locator('input[name="outcome"][value="pass"]').uncheck();
      let shown = await visibleRules(page);
      expect(shown).toHaveLength(total - passing);
      expect(shown.filter((s) => s.startsWith('pass '))).toEqual([]);
      // Only failures.
      for (const box of await page.locator('input[name="outcome"]').all())
        if ((await box.getAttribute('value')) !== 'fail') await box.uncheck();
      shown = await visibleRules(page);
      expect(shown.length).toBe(result.rules.filter((r) => r.outcome === 'fail' && r.severity === 'MUST').length);
      expect(new Set(shown)).toEqual(new Set(['fail MUST']));
      await page.locator('button.reset').click();
      await expect.poll(async () => (await visibleRules(page)).length, { timeout: 5_000 }).toBe(total);

      // Severity filter: without MUST, only the SHOULD rules.
      await page.locator('input[name="severity"][value="MUST"]').uncheck();
      shown = await visibleRules(page);
      expect(shown).toHaveLength(result.rules.filter((r) => r.severity === 'SHOULD').length);
      expect(shown.every((s) => s.endsWith(' SHOULD'))).toBe(true);
      await page.locator('input[name="severity"][value="MUST"]').check();
      expect(await visibleRules(page)).toHaveLength(total);

      // Text search: by id (any case), by words of a title, and nothing.
      await page.locator('#search').fill('list-limit-DEFAULT');
      expect(await page.locator('details.rule:visible').evaluateAll((els) => els.map((el) => el.id))).toEqual(['list-limit-default']);
      await page.locator('#search').fill('deprecation');
      const matching = await page.locator('details.rule:visible').evaluateAll((els) => els.map((el) => el.id));
      expect(matching).toContain('get-deprecation-header');
      expect(matching.length).toBeLessThan(total);
      await page.locator('#search').fill('no rule says this');
      expect(await visibleRules(page)).toEqual([]);
      expect(await page.locator('#no-match').isVisible()).toBe(true);
      await page.locator('#search').fill('');
      expect(await visibleRules(page)).toHaveLength(total);

      // The document's gaps and the skipped phases.
      expect(await page.locator('#observations .obs li').count()).toBe(result.observations.length);
      expect(await page.locator('#skipped td').allTextContents()).toEqual(result.skippedPhases.flatMap((p) => [p.phase, p.reason]));
      // No load data yet: no load section.
      expect(await page.locator('#load').count()).toBe(0);

      const artifacts = artifactsDir();
      await page.screenshot({ path: join(artifacts, 'html-report.png'), fullPage: true });
      writeFileSync(join(artifacts, 'html-report.html'), readFileSync(new URL(url)));

      expect(seen.requests.length).toBeGreaterThan(0);
      expect(offline(seen.requests)).toEqual([]);
      expect(seen.errors).toEqual([]);
      expect(seen.dialogs).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('reads without script: the rules open to their evidence, the filters stay hidden', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      const seen = watch(page);
      await page.goto(url);
      expect(await page.locator('#verdict').isVisible()).toBe(true);
      expect(await page.locator('#filters').isVisible()).toBe(false);
      const rule = page.locator('#list-limit-default');
      await rule.locator('summary').first().click();
      await rule.locator('pre.curl').first().waitFor({ state: 'visible' });
      expect(offline(seen.requests)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('report.html says what a reader needs without the console', () => {
  it('every failure with a case has its case id and replay command beside it', async () => {
    const result = await withServer({ wrap: broken }, (baseUrl) =>
      runConformance({ baseUrl, apiKey: DISTINCTIVE_KEY, seed: 7, numRuns: 5 }),
    );
    const html = renderHtml(result, { reportJson: 'runs/my report/report.json' });
    const cases = result.rules
      .flatMap((r) => r.checks.flatMap((c) => c.findings))
      .filter((f) => f.case)
      .map((f) => f.case!.id);
    expect(cases.length).toBeGreaterThan(2);
    for (const id of new Set(cases)) {
      expect(html).toContain(`<code class="case-id">${id}</code>`);
      expect(html).toContain(
        `<pre class="replay-case">npx petstore-conformance replay &#39;runs/my report/report.json&#39; ${id} --base-url ${result.target}</pre>`,
      );
    }
    expect(renderHtml(result)).toContain(`npx petstore-conformance replay report.json ${cases[0]} --base-url ${result.target}`);
    expect(html).not.toContain('--api-key');
  });

  it('a check that could not judge says what happened, not that no request was made', async () => {
    // Every request but the preflight answered 503: many requests, none a check could judge.
    const down: (inner: Handler) => Handler = (inner) => (request) =>
      request.method === 'GET' && request.path === '/pets' && request.query.get('limit') === '1'
        ? inner(request)
        : { status: 503, headers: { 'content-type': 'application/json' }, body: { code: 'down', message: 'down', status: 503 } };
    const result = await withServer({ wrap: down }, (baseUrl) => runConformance({ baseUrl, apiKey: DISTINCTIVE_KEY, seed: 7, numRuns: 3 }));
    const reasons = result.rules.flatMap((r) => r.checks.map((c) => c.reason ?? ''));
    expect(reasons.filter((r) => /no request this check judges was made/.test(r))).toEqual([]);
    const schema = result.rules.find((r) => r.id === 'PET-SCHEMA')!.checks.find((c) => c.id === 'responses.pet-schema')!;
    expect(schema.outcome).toBe('inconclusive');
    expect(schema.reason).toMatch(/^none of the run's \d+ answers was one this check judges for PET-SCHEMA: they were 503 ×\d+/);
    const limit = result.rules.find((r) => r.id === 'LIST-LIMIT-DEFAULT')!.checks.find((c) => c.id === 'listPets.default-limit')!;
    expect(limit.reason).toBe(
      'this check sent 1 request, answered 503 ×1: none of the answers was one it could judge LIST-LIMIT-DEFAULT on',
    );
    const html = renderHtml(result);
    expect(html).toContain(`<p class="reason">${limit.reason}</p>`);
  });
});

describe('renderHtml with hostile strings', () => {
  const PAYLOAD = '</script><script>window.__pwned=1;alert(1)</script><img src=x onerror="window.__pwned=2">&amp;\'"';
  const CONTROLS = 'a\u0000b\u0007c\u001b[31md\re\u2028f\u2029g\u202eh\ud800i\udfffj\u0085k\tl';
  /** How the page must show CONTROLS: each invisible or reordering character as a visible \uXXXX, tab kept. */
  const CONTROLS_SHOWN = 'a\\u0000b\\u0007c\\u001b[31md\\u000de\\u2028f\\u2029g\\u202eh\\ud800i\\udfffj\\u0085k\tl';
  // Hand-made evidence stands for text a redactor already went through.
  const H = suiteText(`${PAYLOAD} ${CONTROLS}`);
  const H_SHOWN = `${PAYLOAD} ${CONTROLS_SHOWN}`;
  const BIG = suiteText('x<'.repeat(512 * 1024));

  const hostile = (): ConformanceResult => ({
    tool: { name: 'petstore-conformance', version: H as '1.0.0' },
    interfaceVersion: H,
    target: `http://127.0.0.1:1/${H}`,
    seed: 1,
    numRuns: 1,
    startedAt: H,
    finishedAt: H,
    durationMs: 1,
    options: { strict: false, timeoutMs: 1, only: [], skip: [], load: H, insecure: false, customCa: false },
    namePrefix: H,
    summary: {
      verdict: 'non-conformant',
      reason: H,
      strict: false,
      counts: {
        MUST: { pass: 0, fail: 1, inconclusive: 0, error: 1, skip: 0, waived: 0 },
        SHOULD: { pass: 0, fail: 0, inconclusive: 0, error: 0, skip: 0, waived: 0 },
      },
      requests: 1,
      checks: 1,
      thresholds: 'none',
    },
    rules: [
      {
        id: `HOSTILE-${H}` as RuleId,
        title: H,
        severity: 'MUST',
        group: 'listPets',
        section: H,
        outcome: 'fail',
        checks: [
          {
            id: H,
            kind: 'property',
            title: H,
            outcome: 'fail',
            passed: 0,
            failed: 1,
            inconclusive: 0,
            reason: H,
            findings: [
              {
                rule: 'LIST-RESPONSE',
                check: H,
                operation: 'listPets',
                outcome: 'fail',
                code: 'WRONG_STATUS',
                args: { status: H, request: H, received: H },
                message: suiteText(`Expected ${H} for ${H} / Received ${H}`),
                key: H,
                rerun: { only: [H as RuleId] },
                counterexample: { input: H, seed: 1, path: H, numRuns: 1, numShrinks: 1 },
                evidence: [
                  {
                    seq: 1,
                    request: { method: H, url: H, headers: { [H]: H }, body: H, bodyBytes: 1 },
                    response: {
                      status: 200,
                      headers: { [H]: H, 'x-big': BIG },
                      body: suiteText(`${H}${BIG}`),
                      bodyBytes: BIG.length,
                      truncated: true,
                    },
                    durationMs: 1,
                    curl: H,
                  },
                ],
              },
            ],
          },
        ],
      },
      // An outcome outside the union must not reach an attribute or class unescaped.
      {
        id: 'LIST-RESPONSE',
        title: 'plain',
        severity: 'MUST',
        group: 'listPets',
        section: 's',
        outcome: `"><b id=injected>${H}` as Outcome,
        checks: [],
      },
    ],
    observations: [
      {
        gap: H as 'GAP-NULL-STATUS',
        operation: 'listPets',
        summary: H,
        count: 2,
        evidence: { seq: 2, request: { method: 'GET', url: H, headers: {}, bodyBytes: 0 }, transportError: H, durationMs: 1, curl: H },
      },
    ],
    skippedPhases: [{ phase: H as 'load', why: { code: 'load-none' }, reason: H }],
    load: [],
    waivers: [],
  });

  /** The tags the writer itself uses; anything else in the output was injected. */
  const OWN_TAGS = new Set(
    'html head meta title link style body header div p h1 h2 h3 span code main section dl dt dd ul li a table caption thead tbody tr th td form fieldset legend label input button output details summary blockquote pre footer script'.split(
      ' ',
    ),
  );

  it('escapes every string: no injected tag, one script, well-formed, no raw control characters', () => {
    const html = renderHtml(hostile());
    const tags = new Set([...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)/g)].map((m) => m[1]!.toLowerCase()));
    expect([...tags].filter((t) => !OWN_TAGS.has(t))).toEqual([]);
    expect(html.match(/<script/gi)).toHaveLength(1);
    expect(html.match(/<\/script/gi)).toHaveLength(1);
    expect(html).not.toContain('<b id=injected');
    expect(html.isWellFormed()).toBe(true);
    expect(html).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202e]/);
    // Bounded input stays linear: the 1 MiB body and header are there once each, escaped.
    expect(html.length).toBeLessThan(8 * BIG.length);
  });

  it.skipIf(!CHROMIUM)('shows the hostile text literally in a browser, runs nothing injected and requests nothing', async () => {
    const dir = tempDir();
    const path = join(dir, HTML_REPORT_FILE);
    writeFileSync(path, renderHtml(hostile()));
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    const seen = watch(page);
    try {
      await page.goto(pathToFileURL(path).href);
      expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('#injected').count()).toBe(0);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('script').count()).toBe(1);
      expect(await page.title()).toContain(PAYLOAD);
      expect(await page.locator('.verdict-reason').textContent()).toBe(H_SHOWN);
      // The invisible characters are marked, not rendered raw.
      expect(await page.locator('.verdict-reason .ctl').allTextContents()).toEqual([
        '\\u0000',
        '\\u0007',
        '\\u001b',
        '\\u000d',
        '\\u2028',
        '\\u2029',
        '\\u202e',
        '\\ud800',
        '\\udfff',
        '\\u0085',
      ]);
      const rule = page.locator('details.rule').first();
      await rule.locator('summary').first().click();
      expect(await rule.locator('.rtitle').textContent()).toBe(H_SHOWN);
      expect(await rule.locator('.expected').first().textContent()).toBe(`Expected ${H_SHOWN} for ${H_SHOWN}`);
      expect(await rule.locator('.received').first().textContent()).toBe(`Received ${H_SHOWN}`);
      expect(await rule.locator('pre.curl').first().textContent()).toBe(H_SHOWN);
      expect(await rule.locator('pre.replay').first().textContent()).toContain(`--only ${H_SHOWN}`);
      expect(await rule.locator('pre.cx-input').first().textContent()).toBe(H_SHOWN);
      expect(await rule.locator('pre.curl').first().isVisible()).toBe(true);
      expect(await page.locator('.obs-summary').first().textContent()).toBe(H_SHOWN);
      expect(await page.locator('#skipped td').allTextContents()).toEqual([H_SHOWN, H_SHOWN]);
      // The unknown outcome is shown as an error of the suite.
      expect(await page.locator('details.rule[data-outcome="error"] .rtitle').textContent()).toBe('plain');
      // Searching for the payload finds the rule that holds it.
      await page.locator('#search').fill('</script><script>');
      expect(await page.locator('details.rule:visible').count()).toBe(1);
      expect(seen.dialogs).toEqual([]);
      expect(seen.errors).toEqual([]);
      expect(offline(seen.requests)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
