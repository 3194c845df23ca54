/**
 * The compatibility matrix (`petstore-conformance matrix`): three real reports
 * (the reference, a MUST bug, a SHOULD bug), the command (main(), in this
 * process), the Markdown table, the badges, refusal of invalid reports, and the
 * page in a real browser: visible, offline, and inert against hostile strings.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, type Page, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matrixCommand } from '../../../cli/matrix.js';
import { startReference } from '../../../reference/server.js';
import { badgeFor, type MatrixColumn, renderMatrixHtml, renderMatrixMarkdown } from '../../../reports/matrix.js';
import { outcomeLabel } from '../../../result/policy.js';
import { withOpenCases } from '../../fixtures/result.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult, LoadResult } from '../../../result/model.js';
import { CONTRACT_API_KEY, mutants } from '../../fixtures/mutants/index.js';
import { artifactsDir, findChromium, type Ran, reportErrors, runInProcess, tempDir, watch } from '../../helpers.js';
import { suiteText } from '../../../core/redact.js';

/** Chromium for the browser tests (docs/developing.md: skipped only when absent and not under CI). */
const CHROMIUM = findChromium('test/e2e/reports/matrix.test.ts');
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const HOSTILE = '</td><script>alert(1)</script><img src=x onerror=alert(2)> | **x** [y](javascript:alert(3))';
/** A column name cannot hold "=" (`--label name=path`). */
const HOSTILE_LABEL = '</td><script>alert(1)</script><b>x</b> | *y*';

/** The three implementations, in column order: the reference, a MUST bug, a SHOULD bug (a warning without --strict). */
const VARIANTS = ['reference', 'default-limit-21', 'no-www-authenticate'] as const;

let root: string;
const reports: Record<string, ConformanceResult> = {};
const reportPath = (name: string) => join(root, name, 'report.json');

async function runVariant(name: string): Promise<ConformanceResult> {
  const mutant = mutants.find((m) => m.name === name);
  if (!mutant) throw new Error(`no mutant ${name}`);
  const server = await startReference({ ...mutant.options, apiKey: CONTRACT_API_KEY, wrap: mutant.wrap });
  try {
    return await runConformance({ baseUrl: server.url, apiKey: CONTRACT_API_KEY, seed: 20_241_205, numRuns: 5, load: 'none' });
  } finally {
    await server.close();
  }
}

/** A load profile's result with one passing and one failing threshold (the functional runs have `load: 'none'`). */
function smokeLoad(expression = 'p99 < 1000ms'): LoadResult {
  const figures = {
    requests: 100,
    throughput: 33.3,
    latencyMs: { p50: 2, p90: 3, p95: 4, p97_5: 5, p99: 6, p99_9: 7, max: 8, mean: 2.5 },
    errors: { non2xx: 0, timeouts: 0, socketErrors: 0 },
    errorRate: 0,
    distribution: [] as [number, number][],
  };
  return {
    profile: 'smoke',
    kind: 'closed',
    description: 'test',
    generator: 'undici',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 3000,
    settings: { connections: 4, durationSec: 3, maxRequests: 1000, mix: { listPets: 1, getPet: 1, createPet: 1 } },
    overall: figures,
    operations: { listPets: figures, getPet: figures, createPet: figures },
    timeline: [],
    thresholds: [
      {
        id: 'LOAD-SMOKE-ALL-P99',
        expression,
        operation: 'all',
        metric: 'p99',
        comparator: '<',
        limit: 1000,
        measured: 6.25,
        unit: 'ms',
        outcome: 'pass',
      },
      {
        id: 'LOAD-SMOKE-ALL-THROUGHPUT',
        expression: 'throughput > 50/s',
        operation: 'all',
        metric: 'throughput',
        comparator: '>',
        limit: 50,
        measured: 33.3,
        unit: 'req/s',
        outcome: 'fail',
      },
    ],
    generatorLoad: { cpuShare: 0.2, eventLoopDelayP99Ms: 1, bound: false },
    conformance: { sampled: 10, undecodable: 0, failedRules: [] },
  };
}

/** The rules table of matrix.md: header cells, then each row's cells by rule id. */
function rulesTable(markdown: string): { header: string[]; rows: Map<string, string[]> } {
  const section = markdown.split('## Rules\n')[1]!.split('\n## ')[0]!;
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  // Cells split at pipes that are not escaped.
  const cells = (line: string) => line.slice(2, -2).split(/(?<!\\) \| /);
  const header = cells(lines[0]!);
  return { header, rows: new Map(lines.slice(2).map((l) => [cells(l)[0]!, cells(l)])) };
}

/** What a Markdown cell's link says and where it points. */
const link = (cell: string) => /^\[(?<text>[^\]]*)\]\((?<href>[^)]*)\)$/.exec(cell)?.groups ?? { text: cell, href: '' };

beforeAll(async () => {
  root = tempDir();
  const results = await Promise.all(VARIANTS.map(runVariant));
  for (const [i, name] of VARIANTS.entries()) {
    reports[name] = results[i]!;
    mkdirSync(join(root, name));
    writeFileSync(reportPath(name), JSON.stringify(results[i], null, 2));
  }
  // The reference's report has a report.html beside it: its cells link there, the others' to their report.json.
  writeFileSync(
    join(root, 'reference', 'report.html'),
    '<!doctype html><title>report</title><h2 id="LIST-LIMIT-DEFAULT">LIST-LIMIT-DEFAULT</h2>',
  );
}, 120_000);

describe('the reports the matrix is made of', () => {
  it('are valid and break what the variants break', () => {
    for (const name of VARIANTS) expect(reportErrors(reports[name])).toEqual([]);
    const outcome = (name: string, id: string) => reports[name]!.rules.find((r) => r.id === id)?.outcome;
    expect(reports.reference!.summary.verdict).toBe('conformant');
    expect(outcome('default-limit-21', 'LIST-LIMIT-DEFAULT')).toBe('fail');
    expect(reports['default-limit-21']!.summary.verdict).toBe('non-conformant');
    expect(outcome('no-www-authenticate', 'AUTH-CHALLENGE')).toBe('fail');
    expect(reports['no-www-authenticate']!.summary.verdict).toBe('conformant');
  });
});

describe('matrix command', () => {
  let out: string;
  let ran: Ran;

  beforeAll(async () => {
    out = join(root, 'matrix');
    ran = await runInProcess(['matrix', ...VARIANTS.map(reportPath), '--out-dir', out, '--label', `reference=${reportPath('reference')}`], {
      cwd: root,
    });
  });

  it('writes matrix.html, matrix.md and a badge per report, and says where', () => {
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      'badge-1-reference.json',
      expect.stringMatching(/^badge-2-127-0-0-1-\d+-v1\.json$/),
      expect.stringMatching(/^badge-3-127-0-0-1-\d+-v1\.json$/),
      'matrix.html',
      'matrix.md',
    ]);
    expect(ran.stdout).toContain('compatibility matrix of 3 reports written:');
    for (const file of readdirSync(out)) expect(ran.stdout).toContain(`matrix/${file}`);
  });

  it('has one column per report and each report’s outcome in each cell, linked to its evidence', () => {
    const { header, rows } = rulesTable(readFileSync(join(out, 'matrix.md'), 'utf8'));
    const labels = ['reference', ...VARIANTS.slice(1).map((name) => reports[name]!.target.replace(/^http:\/\//, ''))];
    expect(header).toEqual(['Rule', 'Title', 'Severity', ...labels]);
    expect(rows.size).toBe(reports.reference!.rules.length);
    // The cells the variants break.
    expect(
      rows
        .get('LIST-LIMIT-DEFAULT')!
        .slice(3)
        .map((c) => link(c).text),
    ).toEqual(['pass', 'fail', 'pass']);
    expect(
      rows
        .get('AUTH-CHALLENGE')!
        .slice(2)
        .map((c) => link(c).text),
    ).toEqual(['SHOULD', 'pass', 'pass', 'warning']);
    // Every cell is what its report says.
    for (const [i, name] of VARIANTS.entries()) {
      for (const rule of reports[name]!.rules)
        expect(link(rows.get(rule.id)![3 + i]!).text, `${name} ${rule.id}`).toBe(outcomeLabel(rule, false));
    }
    // Evidence: report.html#<the rule id in lower case> where there is one, else the report.json.
    const hrefs = rows
      .get('LIST-LIMIT-DEFAULT')!
      .slice(3)
      .map((c) => link(c).href);
    expect(hrefs).toEqual([
      '../reference/report.html#list-limit-default',
      '../default-limit-21/report.json',
      '../no-www-authenticate/report.json',
    ]);
  });

  it('writes shields.io badges: failing MUST rules count, a non-strict SHOULD failure does not', () => {
    const badges = readdirSync(out)
      .filter((f) => f.startsWith('badge-'))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(out, f), 'utf8')) as unknown);
    const label = 'petstore-conformance 1.0.0';
    expect(badges).toEqual([
      { schemaVersion: 1, label, message: 'conformant', color: 'brightgreen' },
      { schemaVersion: 1, label, message: '1 failure', color: 'red' },
      { schemaVersion: 1, label, message: 'conformant', color: 'brightgreen' },
    ]);
  });

  it('counts a SHOULD failure, and shows it as fail, when the run was strict', () => {
    const strict = structuredClone(reports['no-www-authenticate']!);
    strict.summary.strict = true;
    expect(badgeFor(strict)).toMatchObject({ message: '1 failure', color: 'red' });
    const column: MatrixColumn = { label: 'strict', result: strict, evidence: 'report.json', evidenceKind: 'json' };
    expect(
      rulesTable(renderMatrixMarkdown([column]))
        .rows.get('AUTH-CHALLENGE')!
        .slice(3),
    ).toEqual(['[fail](report.json)']);
    // A run that could not be tested is not certified, though no rule failed.
    const aborted = structuredClone(reports.reference!);
    aborted.summary.verdict = 'error';
    expect(badgeFor(aborted)).toMatchObject({ message: 'error', color: 'lightgrey' });
  });

  it('never shows a bare pass for a rule with inconclusive cases: the cell says how many, in the page and in matrix.md', () => {
    const open = withOpenCases(reports.reference!, 'PET-SCHEMA', 5);
    expect(reportErrors(open)).toEqual([]);
    const columns: MatrixColumn[] = [{ label: 'open', result: open, evidence: 'a/report.html', evidenceKind: 'html' }];
    const { rows } = rulesTable(renderMatrixMarkdown(columns));
    expect(link(rows.get('PET-SCHEMA')![3]!).text).toBe('pass, 5 cases inconclusive');
    expect(link(rows.get('LIST-RESPONSE')![3]!).text).toBe('pass');
    const page = renderMatrixHtml(columns);
    const cell =
      /<td class="cell o-pass"><a href="a\/report.html#pet-schema" title="([^"]*)"><span aria-hidden="true">✓<\/span> ([^<]*)<\/a><\/td>/.exec(
        page,
      );
    expect(cell?.[2]).toBe('pass, 5 cases inconclusive');
    expect(cell?.[1]).toMatch(/could not be judged$/);
  });

  it('says "not measured" for a threshold that could not be computed, never its 0', () => {
    const loaded = structuredClone(reports.reference!);
    const load = smokeLoad();
    load.thresholds[0] = {
      ...load.thresholds[0]!,
      measured: 0,
      outcome: 'fail',
      reason: 'not measured: no request was answered (12 sent: 12 timeouts, 0 socket errors)',
    };
    loaded.load = [load];
    const markdown = renderMatrixMarkdown([{ label: 'silent', result: loaded, evidence: 'a/report.html', evidenceKind: 'html' }]);
    expect(markdown).toContain(
      '| LOAD-SMOKE-ALL-P99 | smoke: p99 &lt; 1000ms | load | [fail not measured](a/report.html#load-smoke-all-p99) |',
    );
  });

  it('adds the load thresholds of each report as LOAD-… rows', () => {
    const loaded = structuredClone(reports.reference!);
    loaded.load = [smokeLoad()];
    expect(reportErrors(loaded)).toEqual([]);
    const columns: MatrixColumn[] = [
      { label: 'with load', result: loaded, evidence: 'a/report.html', evidenceKind: 'html' },
      { label: 'without', result: reports['default-limit-21']!, evidence: 'b/report.json', evidenceKind: 'json' },
    ];
    const markdown = renderMatrixMarkdown(columns);
    const load = markdown.split('## Load thresholds\n')[1]!;
    expect(load).toContain('| LOAD-SMOKE-ALL-P99 | smoke: p99 &lt; 1000ms | load | [pass 6.25 ms](a/report.html#load-smoke-all-p99) | — |');
    expect(load).toContain(
      '| LOAD-SMOKE-ALL-THROUGHPUT | smoke: throughput &gt; 50/s | load | [fail 33.3 req/s](a/report.html#load-smoke-all-throughput) | — |',
    );
    expect(renderMatrixMarkdown([columns[1]!])).not.toContain('## Load thresholds');
  });
});

describe('refusing what is not a report', () => {
  it('refuses a report that does not validate: exit 2, one line naming the file and the first error, nothing written', async () => {
    const bad = structuredClone(reports.reference!) as unknown as { summary: { verdict: string } };
    bad.summary.verdict = 'certified';
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));
    const ran = await runInProcess(['matrix', reportPath('reference'), 'bad.json', '--out-dir', 'out'], { cwd: dir });
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toBe(
      'petstore-conformance: error: bad.json: not a petstore-conformance report: /summary/verdict must be one of "conformant", "non-conformant", "inconclusive", "error", "interrupted"\n',
    );
    expect(readdirSync(dir)).toEqual(['bad.json']);
  });

  it('refuses a file that is not JSON, and one that is missing, each with one line', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'notes.txt'), '<html>\nnot a report\n');
    const notJson = await runInProcess(['matrix', 'notes.txt'], { cwd: dir });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^petstore-conformance: error: notes\.txt: not JSON \([^\n]+\)\n$/);
    const missing = await runInProcess(['matrix', 'nowhere.json'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('petstore-conformance: error: nowhere.json: no such file or directory\n');
  });

  it('refuses a --label that names no report, and a malformed one; a file name with a line break stays one line', async () => {
    const errors: string[] = [];
    const io = { stdout: sink([]), stderr: sink(errors), cwd: root };
    expect(
      await matrixCommand([reportPath('reference')], { outDir: join(root, 'unused'), labels: { acme: 'elsewhere/report.json' } }, io),
    ).toBe(2);
    expect(await matrixCommand(['a\nb\u001b[31m.json'], { outDir: join(root, 'unused') }, io)).toBe(2);
    expect(await matrixCommand([], { outDir: join(root, 'unused') }, io)).toBe(2);
    expect(errors).toEqual([
      'petstore-conformance: error: --label acme=elsewhere/report.json: elsewhere/report.json is not one of the reports given\n',
      'petstore-conformance: error: a\\u000ab\\u001b[31m.json: no such file or directory\n',
      'petstore-conformance: error: matrix needs at least one report.json\n',
    ]);
    const ran = await runInProcess(['matrix', reportPath('reference'), '--label', 'acme'], { cwd: root });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/^petstore-conformance: error: --label takes name=path \(a report\.json\), got "acme"[^\n]*\n$/);
  });
});

function sink(into: string[]): NodeJS.WritableStream {
  return { write: (chunk: string) => into.push(chunk) > 0 } as unknown as NodeJS.WritableStream;
}

describe.skipIf(!CHROMIUM)('matrix.html in a browser', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: CHROMIUM_ARGS, timeout: 30_000 });
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Opens a file and records what the page does that it should not. */
  async function open(file: string): Promise<{ page: Page; requests: string[]; dialogs: string[]; errors: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    const seen = { page, ...watch(page) };
    await page.goto(pathToFileURL(file).href, { timeout: 10_000 });
    return seen;
  }

  it('shows a column per implementation and the failing cell, with a sticky header, offline', async () => {
    const seen = await open(join(root, 'matrix', 'matrix.html'));
    const { page } = seen;
    try {
      const heads = page.locator('thead th.impl');
      await expect.poll(() => heads.count()).toBe(3);
      for (const [i, name] of VARIANTS.entries()) {
        const head = heads.nth(i);
        expect(await head.isVisible()).toBe(true);
        const label = i === 0 ? 'reference' : reports[name]!.target.replace(/^http:\/\//, '');
        expect(await head.locator('.name').innerText()).toBe(`${i + 1} ${label}`);
        expect(await head.innerText()).toContain(reports[name]!.target);
        expect(await head.innerText()).toContain(`seed ${reports[name]!.seed}`);
      }
      const failing = page.locator('tr:has(th#list-limit-default) td.cell').nth(1);
      expect(await failing.isVisible()).toBe(true);
      expect(await failing.innerText()).toBe('✗ fail');
      expect(await failing.getAttribute('class')).toContain('o-fail');
      expect(await failing.locator('a').getAttribute('href')).toBe('../default-limit-21/report.json');
      expect(await failing.locator('a').getAttribute('title')).toMatch(/Expected .*20/);
      expect(await heads.nth(2).locator('.verdict').innerText()).toBe('conformant · 1 warning');
      expect(await heads.nth(1).locator('.verdict').innerText()).toBe('non-conformant · 1 failure');
      const warning = page.locator('tr:has(th#auth-challenge) td.cell').nth(2);
      expect(await warning.innerText()).toBe('! warning');
      // Colour and text: the failing cell is not coloured like a passing one.
      const background = (i: number) =>
        page
          .locator('tr:has(th#list-limit-default) td.cell')
          .nth(i)
          .evaluate(
            (el) =>
              (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor,
          );
      expect(await background(1)).not.toBe(await background(0));
      await page.screenshot({ path: join(artifactsDir(), 'matrix.png') });

      // Sticky header row: scrolled down, the column headings stay at the top.
      await page.mouse.wheel(0, 900);
      await expect.poll(() => page.evaluate('window.scrollY')).toBeGreaterThan(500);
      expect(
        await page
          .locator('thead th.impl')
          .first()
          .evaluate((el) => Math.round(el.getBoundingClientRect().top)),
      ).toBe(0);
      expect(await heads.nth(1).isVisible()).toBe(true);
      await page.screenshot({ path: join(artifactsDir(), 'matrix-scrolled.png') });

      // The filter box (the only script): typing hides the other rows.
      await page.evaluate('window.scrollTo(0, 0)');
      await page.locator('#filter').fill('auth-ch');
      await expect.poll(() => page.locator('tbody tr[data-rule]:visible').count()).toBe(1);
      expect(await page.locator('tbody tr[data-rule]:visible th').innerText()).toBe('AUTH-CHALLENGE');

      expect(seen.requests.filter((url) => !/^(file|data|about):/.test(url))).toEqual([]);
      expect(seen.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('shows hostile strings of a report as text and injects no element', async () => {
    const hostile = structuredClone(reports['default-limit-21']!);
    hostile.target = `http://127.0.0.1:1/v1?${HOSTILE}`;
    hostile.tool.version = `<b>1</b>${HOSTILE}`;
    hostile.seed = 7;
    const rule = hostile.rules.find((r) => r.id === 'LIST-LIMIT-DEFAULT')!;
    const check = rule.checks.find((c) => c.outcome === 'fail')!;
    const challenge = `Expected WWW-Authenticate: Bearer … on a 401 / Received WWW-Authenticate: ${HOSTILE}`;
    Object.assign(check.findings[0]!, { code: 'NO_BEARER_CHALLENGE', args: { header: HOSTILE }, message: suiteText(challenge) });
    hostile.load = [smokeLoad(`p99 < 1000ms ${HOSTILE}`)];
    expect(reportErrors(hostile)).toEqual([]);
    const dir = join(root, 'hostile');
    mkdirSync(dir);
    writeFileSync(join(dir, 'report.json'), JSON.stringify(hostile));
    const out = join(root, 'hostile-matrix');
    const ran = await runInProcess(
      [
        'matrix',
        reportPath('reference'),
        join(dir, 'report.json'),
        '--out-dir',
        out,
        '--label',
        `${HOSTILE_LABEL}=${join(dir, 'report.json')}`,
      ],
      { cwd: root },
    );
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(readdirSync(out)).toContain('badge-2-td-script-alert-1-script-b-x-b-y.json');

    // Markdown: no raw HTML, and the rows keep their cell count.
    const markdown = readFileSync(join(out, 'matrix.md'), 'utf8');
    expect(markdown).not.toMatch(/<(script|img|b|\/td)/i);
    const { header, rows } = rulesTable(markdown);
    expect(header).toHaveLength(5);
    for (const cells of rows.values()) expect(cells).toHaveLength(5);

    const seen = await open(join(out, 'matrix.html'));
    const { page } = seen;
    try {
      const head = page.locator('thead th.impl').nth(1);
      expect(await head.locator('.name').innerText()).toBe(`2 ${HOSTILE_LABEL}`);
      expect(await head.innerText()).toContain(hostile.target);
      expect(await head.innerText()).toContain(`petstore-conformance <b>1</b>${HOSTILE}`);
      const cell = page.locator('tr:has(th#list-limit-default) td.cell').nth(1);
      expect(await cell.locator('a').getAttribute('title')).toBe(`${check.id}: ${challenge}`);
      expect(await page.locator('tr:has(th#load-smoke-all-p99) td.title').innerText()).toBe(`smoke: p99 < 1000ms ${HOSTILE}`);
      // Only the page's own elements: one script (the filter), no image, no bold, no injected cell.
      expect(await page.locator('script').count()).toBe(1);
      expect(await page.locator('img, b').count()).toBe(0);
      expect(await page.locator('tr:has(th#list-limit-default) > *').count()).toBe(5);
      expect(seen.dialogs).toEqual([]);
      expect(seen.errors).toEqual([]);
      expect(seen.requests.filter((url) => !/^(file|data|about):/.test(url))).toEqual([]);
      await page.screenshot({ path: join(artifactsDir(), 'matrix-hostile.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });
});
