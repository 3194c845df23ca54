import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Handler } from '../../../reference/handler.js';
import { suiteText } from '../../../core/redact.js';
import { JUNIT_REPORT_FILE, MAX_TEXT_BYTES, SHOULD_WARNING_PREFIX, junitReporter, renderJunit } from '../../../reports/junit.js';
import { rules } from '../../../spec/rules.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult } from '../../../result/model.js';
import { smokeLoad } from '../../fixtures/load-result.js';
import { evidence, finding, resultFixture, withOpenCases, withOutcomes } from '../../fixtures/result.js';
import { DISTINCTIVE_KEY, requireProgram, withServer } from '../../helpers.js';

const XSD = new URL('../../fixtures/junit/jenkins-junit.xsd', import.meta.url).pathname;
/** xmllint (Debian libxml2-utils), a prerequisite docs/developing.md lists: found on PATH. */
let XMLLINT: string;
const XUNIT_VIEWER = join(dirname(createRequire(import.meta.url).resolve('xunit-viewer/package.json')), 'bin', 'xunit-viewer.js');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program, at most `timeoutMs`; never rejects on a non-zero exit. */
function run(file: string, args: string[], timeoutMs = 60_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(error);
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** Writes `xml` to a fresh file under the OS temp dir. */
function tempFile(xml: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'pc-junit-')), JUNIT_REPORT_FILE);
  writeFileSync(path, xml);
  return path;
}

/** xmllint against the published Jenkins JUnit XSD: exit 0 means well-formed and valid. */
async function expectValid(path: string): Promise<void> {
  const ran = await run(XMLLINT, ['--noout', '--schema', XSD, path]);
  expect(ran.stderr).toMatch(/validates/);
  expect(ran.code).toBe(0);
}

/** The string value of an XPath 1.0 expression, as xmllint (libxml2, an independent parser) reads the file. */
async function xpath(path: string, expression: string): Promise<string> {
  const ran = await run(XMLLINT, ['--xpath', `string(${expression})`, path]);
  expect(ran.code, ran.stderr).toBe(0);
  // xmllint ends the value with one newline of its own.
  return ran.stdout.endsWith('\n') ? ran.stdout.slice(0, -1) : ran.stdout;
}

/**
 * Every count attribute agrees with the testcases under it: the number of
 * testsuites/testsuite elements whose counts disagree, which must be 0.
 */
async function countMismatches(path: string): Promise<string> {
  const suite =
    '//testsuite[number(@tests) != count(testcase) or number(@failures) != count(testcase[failure]) or number(@errors) != count(testcase[error]) or number(@skipped) != count(testcase[skipped])]';
  const root =
    '/testsuites[number(@tests) != count(//testcase) or number(@failures) != count(//testcase[failure]) or number(@errors) != count(//testcase[error])]';
  return xpath(path, `count(${suite}) + count(${root})`);
}

/**
 * xunit-viewer renders the file: its console rendering (a status icon per
 * testcase) and the HTML page. Its stdout goes to a file: it calls
 * process.exit right after writing, which would cut a piped stdout short.
 */
async function xunitViewer(path: string): Promise<{ console: string; html: string }> {
  const out = join(dirname(path), 'out.html');
  const consoleFile = join(dirname(path), 'console.txt');
  const fd = openSync(consoleFile, 'w');
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [XUNIT_VIEWER, '-r', path, '-o', out, '-c', '--no-clear', '-n'], {
        stdio: ['ignore', fd, 'inherit'],
        env: { ...process.env, NO_COLOR: '1' },
      });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('xunit-viewer did not finish within 60 s'));
      }, 60_000);
      child.on('error', reject);
      child.on('close', (exit) => {
        clearTimeout(timer);
        resolve(exit);
      });
    });
    const text = readFileSync(consoleFile, 'utf8');
    expect(code, text.slice(-2000)).toBe(0);
    expect(text).not.toMatch(/Failed to parse/);
    return { console: text, html: readFileSync(out, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/** Testcases by status, as xunit-viewer counts them from the parsed file for the page's description ("3 passed, 1 failure"). */
function viewerCounts(html: string): Record<string, number> {
  const description = /<meta name="description" content="([^"]*)">/.exec(html)?.[1] ?? '';
  return Object.fromEntries(
    description
      .split(', ')
      .filter(Boolean)
      .map((part) => {
        const [count, status] = part.split(' ');
        return [status!, Number(count)];
      }),
  );
}

const caseOf = (id: string) => `//testcase[@name='${id}']`;

// Broken variant: without limit, 21 animals (MUST LIST-LIMIT-DEFAULT), and getPet
// without its Sunset header (SHOULD GET-SUNSET-HEADER).
const broken =
  (inner: Handler): Handler =>
  async (request) => {
    if (request.method === 'GET' && request.path === '/pets' && !request.query.has('limit')) {
      return inner({ ...request, query: new URLSearchParams([...request.query, ['limit', '21']]) });
    }
    const answer = await inner(request);
    if (request.method === 'GET' && request.path.startsWith('/pets/')) {
      const { sunset: _dropped, ...headers } = answer.headers;
      return { ...answer, headers };
    }
    return answer;
  };

/** Two client fingerprints: every rule is decided (with one client, CLIENT-INDEPENDENT is skipped as not asked). */
const runAgainst = (url: string, strict: boolean) =>
  runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 21, numRuns: 10, strict, fingerprints: ['curl', 'chrome'] });

describe('junit.xml', () => {
  let failing: ConformanceResult;
  let failingStrict: ConformanceResult;
  let passing: ConformanceResult;

  beforeAll(async () => {
    XMLLINT = requireProgram('xmllint', 'libxml2-utils');
    [failing, failingStrict] = await withServer({ wrap: broken }, async (url) => [
      await runAgainst(url, false),
      await runAgainst(url, true),
    ]);
    passing = await withServer({}, (url) => runAgainst(url, false));
  }, 180_000);

  it('a failing run: valid against the Jenkins XSD, the failing rule a <failure> with its evidence, rendered by xunit-viewer', async () => {
    expect(failing.summary.verdict).toBe('non-conformant');
    const failed = failing.rules.filter((r) => r.outcome === 'fail').map((r) => r.id);
    expect(failed).toEqual(['LIST-LIMIT-DEFAULT', 'GET-SUNSET-HEADER']);
    const path = tempFile(renderJunit(failing));
    await expectValid(path);

    const rule = caseOf('LIST-LIMIT-DEFAULT');
    expect(await xpath(path, `${rule}/@classname`)).toBe('petstore.listPets');
    expect(await xpath(path, `${rule}/failure/@type`)).toBe('MUST');
    expect(await xpath(path, `${rule}/failure/@message`)).toBe('Expected at most 20 animals when limit is absent / Received 21');
    const text = await xpath(path, `${rule}/failure`);
    expect(text).toMatch(/^LIST-LIMIT-DEFAULT \(MUST\) Without limit, at most 20 animals are returned\nsection: /);
    expect(text).toMatch(/^request #\d+: GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets$/m);
    expect(text).toMatch(/^response: 200 \(/m);
    expect(text).toMatch(/^ {2}content-type: application\/json$/m);
    expect(text).toMatch(/^response body:\n\[\{"id":/m);
    expect(text).toMatch(
      /^reproduce: curl -sS -i -X GET '.*\/v1\/pets'(?: -H '[^']*')* -H @<\(printf '%s\\n' "authorization: Bearer \$\{PETSTORE_API_KEY\}"\)$/m,
    );
    expect(text).toMatch(/^re-run: npx petstore-conformance .*--seed 21 .*--only LIST-LIMIT-DEFAULT(,[A-Z,-]+)?$/m);

    // The run's properties, once, on the first testsuite.
    const suites = Number(await xpath(path, 'count(//testsuite)'));
    expect(suites).toBe(8);
    expect(await xpath(path, 'count(//properties)')).toBe('1');
    expect(await xpath(path, 'count(/testsuites/testsuite[1]/properties)')).toBe('1');
    expect(await xpath(path, "//properties/property[@name='seed']/@value")).toBe('21');
    expect(await xpath(path, "//properties/property[@name='target']/@value")).toBe(failing.target);
    expect(await xpath(path, "//properties/property[@name='tool.version']/@value")).toBe(failing.tool.version);
    expect(await xpath(path, "//properties/property[@name='interfaceVersion']/@value")).toBe('1.0.0');

    // What every reader expects: a time on each testcase, a timestamp (ISO 8601 without zone, as Ant writes it) and a
    // hostname on each testsuite, classnames with a package so Jenkins groups rules by operation.
    expect(await xpath(path, 'count(//testcase[not(@time)] | //testsuite[not(@timestamp) or not(@hostname) or not(@time)])')).toBe('0');
    expect(await xpath(path, "count(//testcase[not(starts-with(@classname, 'petstore.'))])")).toBe('0');
    expect(await xpath(path, "count(//testcase[@classname='petstore.listPets'])")).toBe(
      String(failing.rules.filter((r) => r.group === 'listPets').length),
    );
    const timestamp = await xpath(path, '/testsuites/testsuite[1]/@timestamp');
    expect(timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(timestamp).toBe(failing.startedAt.slice(0, 19));
    expect(await xpath(path, "count(//testsuite[@hostname != '" + hostname() + "'])")).toBe('0');
    // Times as CI servers add them up: a rule group's testsuite takes its wall time (the union of its active checks'
    // intervals, merged here independently), its testcases share it and never add up past it, and no suite outlasts the run.
    expect(Number(await xpath(path, 'sum(//testcase/@time)'))).toBeGreaterThan(0);
    expect(Number(await xpath(path, `${rule}/@time`))).toBeGreaterThan(0);
    const groups = [...new Set(failing.rules.map((r) => r.group))];
    expect(groups.length).toBeGreaterThan(1);
    for (const group of groups) {
      const intervals = failing.rules
        .filter((r) => r.group === group)
        .flatMap((r) => r.checks)
        .flatMap((c) => (c.startedMs === undefined ? [] : [[c.startedMs, c.startedMs + (c.durationMs ?? 0)] as const]))
        .sort((a, b) => a[0] - b[0]);
      let wall = 0;
      let end = -Infinity;
      for (const [from, to] of intervals) {
        wall += Math.max(0, to - Math.max(from, end));
        end = Math.max(end, to);
      }
      const suiteTime = Number(await xpath(path, `//testsuite[@name='${group}']/@time`));
      expect(suiteTime).toBeCloseTo(wall / 1000, 2);
      expect(suiteTime).toBeLessThanOrEqual(failing.durationMs / 1000 + 0.001);
      expect(Number(await xpath(path, `sum(//testsuite[@name='${group}']/testcase/@time)`))).toBeLessThanOrEqual(suiteTime + 0.005);
    }

    const xml = readFileSync(path, 'utf8');
    expect(xml).not.toContain(DISTINCTIVE_KEY);

    const viewer = await xunitViewer(path);
    expect(viewer.console).toMatch(/✗ LIST-LIMIT-DEFAULT\b/);
    expect(viewer.console).toContain('Expected at most 20 animals when limit is absent / Received 21');
    expect(viewer.console).toMatch(/✓ GET-SUNSET-HEADER\b/);
    expect(viewerCounts(viewer.html)).toEqual({ failure: 1, passed: failing.rules.length - 1 });
    expect(viewer.html.length).toBeGreaterThan(10_000);
  });

  it('a passing run: zero failures, errors and skips; valid; xunit-viewer sees every rule passed', async () => {
    expect(passing.summary.verdict).toBe('conformant');
    const path = tempFile(renderJunit(passing));
    await expectValid(path);
    expect(await xpath(path, '/testsuites/@tests')).toBe(String(rules.length));
    expect(await xpath(path, '/testsuites/@failures')).toBe('0');
    expect(await xpath(path, '/testsuites/@errors')).toBe('0');
    expect(await xpath(path, 'count(//failure | //error | //skipped | //system-out)')).toBe('0');
    expect(await xpath(path, '/testsuites/@time')).toBe((passing.durationMs / 1000).toFixed(3));
    expect(await countMismatches(path)).toBe('0');
    const viewer = await xunitViewer(path);
    expect(viewerCounts(viewer.html)).toEqual({ passed: rules.length });
  });

  it('a passing rule with inconclusive cases says so in its <system-out>, with why; still a pass, still valid', async () => {
    const path = tempFile(renderJunit(withOpenCases(passing, 'PET-SCHEMA', 5)));
    await expectValid(path);
    expect(await countMismatches(path)).toBe('0');
    expect(await xpath(path, '/testsuites/@failures')).toBe('0');
    expect(await xpath(path, 'count(//skipped)')).toBe('0');
    const out = await xpath(path, "//testcase[@name='PET-SCHEMA']/system-out");
    expect(out.split('\n').slice(0, 2)).toEqual(['pass, 5 cases inconclusive:', 'PET-SCHEMA (MUST) Every animal returned is a valid Pet']);
    expect(out).toMatch(/: the body of a 200 answer is longer than the suite reads of a response, so what it holds could not be judged$/);
    // Only that rule says it: every other passing testcase stays empty.
    expect(await xpath(path, 'count(//system-out)')).toBe('1');
  });

  it('SHOULD failures are warnings (a passing testcase with system-out) unless strict, then failures', async () => {
    const rule = caseOf('GET-SUNSET-HEADER');
    const lenient = tempFile(renderJunit(failing));
    expect(await xpath(lenient, `count(${rule}/*)`)).toBe('1');
    const warning = await xpath(lenient, `${rule}/system-out`);
    expect(warning.startsWith(`${SHOULD_WARNING_PREFIX} Expected Sunset: `)).toBe(true);
    expect(await xpath(lenient, '/testsuites/@failures')).toBe('1');
    expect(await xpath(lenient, "//testsuite[@name='deprecation']/@failures")).toBe('0');

    // The same result under --strict: the warning becomes a failure holding the same message and text.
    const flipped = tempFile(renderJunit({ ...failing, summary: { ...failing.summary, strict: true } }));
    await expectValid(flipped);
    expect(await xpath(flipped, `count(${rule}/*)`)).toBe('1');
    expect(await xpath(flipped, `${rule}/failure/@type`)).toBe('SHOULD');
    const message = await xpath(flipped, `${rule}/failure/@message`);
    const failureText = await xpath(flipped, `${rule}/failure`);
    expect(failureText).toMatch(/^GET-SUNSET-HEADER \(SHOULD\) /);
    expect(warning).toBe(`${SHOULD_WARNING_PREFIX} ${message}\n${failureText}`);

    // A real --strict run.
    expect(failingStrict.summary.strict).toBe(true);
    const strict = tempFile(renderJunit(failingStrict));
    await expectValid(strict);
    expect(await xpath(strict, `${rule}/failure/@message`)).toBe(
      'Expected Sunset: Thu, 05 Dec 2030 00:00:00 GMT / Received no Sunset header',
    );
    expect(await xpath(strict, '/testsuites/@failures')).toBe('2');
    expect(await xpath(strict, "//testsuite[@name='deprecation']/@failures")).toBe('1');
    expect(await xpath(strict, "//properties/property[@name='strict']/@value")).toBe('true');
    expect(await countMismatches(strict)).toBe('0');
    const viewer = await xunitViewer(strict);
    expect(viewer.console).toMatch(/✗ GET-SUNSET-HEADER\b/);
    expect(viewerCounts(viewer.html)).toEqual({ failure: 2, passed: failingStrict.rules.length - 2 });
  });

  it('counts on testsuites and each testsuite match the testcases, and the result', async () => {
    const result = withOutcomes(passing, {
      'LIST-LIMIT-DEFAULT': 'fail',
      'GET-RESPONSE': 'error',
      'LIST-PAGE-FULL': 'inconclusive',
      'CREATE-ECHO': 'skip',
      'AUTH-CHALLENGE': 'fail',
    });
    for (const strict of [false, true]) {
      const path = tempFile(renderJunit({ ...result, summary: { ...result.summary, strict } }));
      await expectValid(path);
      expect(await countMismatches(path)).toBe('0');
      expect(await xpath(path, '/testsuites/@tests')).toBe(String(result.rules.length));
      expect(await xpath(path, '/testsuites/@failures')).toBe(strict ? '2' : '1');
      expect(await xpath(path, '/testsuites/@errors')).toBe('1');
      expect(await xpath(path, 'count(//testcase[skipped])')).toBe('2');
      expect(await xpath(path, "//testsuite[@name='listPets']/@failures")).toBe('1');
      expect(await xpath(path, "//testsuite[@name='listPets']/@skipped")).toBe('1');
      expect(await xpath(path, "//testsuite[@name='getPet']/@errors")).toBe('1');
      const crashed = passing.rules.find((r) => r.id === 'GET-RESPONSE')!.checks[0]!.id;
      expect(await xpath(path, `${caseOf('GET-RESPONSE')}/error/@message`)).toBe(`${crashed}: check crashed: TypeError: boom`);
      expect(await xpath(path, `${caseOf('CREATE-ECHO')}/skipped`)).toMatch(/not among the rules selected to run/);
      expect(await xpath(path, `${caseOf('LIST-PAGE-FULL')}/skipped`)).toMatch(
        /^[\w.-]+: Expected a full page \/ Received 3 of 7; inconclusive, the store changed$/m,
      );
      const viewer = await xunitViewer(path);
      const passed = result.rules.length - (strict ? 5 : 4);
      expect(viewerCounts(viewer.html)).toEqual({ failure: strict ? 2 : 1, error: 1, passed, skipped: 2 });
    }
  });

  it('hostile evidence (forbidden characters, lone surrogates, ]]>, megabytes) still gives well-formed, valid XML whose text round-trips', async () => {
    const result = hostileResult();
    // Quadratic escaping of the megabytes would show as this test's timeout.
    const xml = renderJunit(result);
    const path = tempFile(xml);
    await expectValid(path);
    expect(await countMismatches(path)).toBe('0');

    // Every hostile string reads back as sent, minus what XML 1.0 cannot carry (→ U+FFFD) and with CR/CRLF as LF.
    const failure = await xpath(path, `${caseOf('PET-SCHEMA')}/failure`);
    for (const text of HOSTILE) expect(failure).toContain(xmlSafe(text));
    expect(await xpath(path, `${caseOf('PET-SCHEMA')}/failure/@message`)).toBe(attributeSafe(HOSTILE.join(' ')));
    expect(await xpath(path, "//properties/property[@name='target']/@value")).toBe(attributeSafe(result.target));
    const reason = await xpath(path, `${caseOf('LIST-PAGE-FULL')}/skipped`);
    for (const text of HOSTILE) expect(reason).toContain(xmlSafe(text));
    const crash = await xpath(path, `${caseOf('GET-RESPONSE')}/error`);
    for (const text of HOSTILE) expect(crash).toContain(xmlSafe(text));

    // Megabytes are cut at 64 KiB per element, with a marker.
    for (const id of ['LIST-RESPONSE', 'AUTH-CHALLENGE']) {
      const big = await xpath(path, `(${caseOf(id)}/failure | ${caseOf(id)}/system-out)`);
      expect(Buffer.byteLength(big)).toBeLessThanOrEqual(MAX_TEXT_BYTES);
      expect(Buffer.byteLength(big)).toBeGreaterThan(MAX_TEXT_BYTES - 100);
      expect(big).toMatch(/\n… \[cut: \d+ more characters not shown; report\.json keeps the evidence\]$/);
    }
    expect(xml.length).toBeLessThan(1024 * 1024);

    const viewer = await xunitViewer(path);
    expect(viewer.console).toMatch(/✗ PET-SCHEMA\b/);
    expect(viewer.console).toMatch(/! GET-RESPONSE\b/);
  });

  it('load thresholds: a testsuite of their own, classname petstore.load.<profile>, the profile time split between them', async () => {
    const load = smokeLoad();
    const result: ConformanceResult = { ...passing, load: [load], summary: { ...passing.summary, thresholds: 'fail' } };
    const path = tempFile(renderJunit(result, { hostname: 'ci-runner-7' }));
    await expectValid(path);
    expect(await countMismatches(path)).toBe('0');
    const suite = "//testsuite[@name='load']";
    expect(await xpath(path, `count(${suite}/testcase)`)).toBe('3');
    expect(await xpath(path, `count(${suite}/testcase[@classname='petstore.load.smoke'])`)).toBe('3');
    expect(await xpath(path, `${suite}/testcase[@name='LOAD-SMOKE-ALL-P99']/@time`)).toBe('1.000');
    expect(await xpath(path, `${suite}/@time`)).toBe('3.000');
    expect(await xpath(path, `${suite}/@timestamp`)).toBe('2026-01-02T03:04:05');
    expect(await xpath(path, `count(//testsuite[@hostname='ci-runner-7'])`)).toBe(await xpath(path, 'count(//testsuite)'));
    expect(await xpath(path, `${suite}/testcase[@name='LOAD-SMOKE-ALL-THROUGHPUT']/failure/@message`)).toBe(
      'throughput > 50/s: measured 40 req/s',
    );
    expect(await xpath(path, `count(${suite}/properties)`)).toBe('0');
  });

  it('junitReporter writes junit.xml into the report directory and returns its path', async () => {
    const reportDir = join(mkdtempSync(join(tmpdir(), 'pc-junit-')), 'nested');
    const reporter = junitReporter({ reportDir, out: process.stdout, progress: process.stderr, color: false, interactive: false, env: {} });
    const written = await reporter.onRunEnd!(failing, []);
    expect(written).toEqual([join(reportDir, 'junit.xml')]);
    expect(readFileSync(written[0]!, 'utf8')).toBe(renderJunit(failing));
  });
});

/** What an attribute gives back: as {@link xmlSafe}, and tab/LF (attribute-value normalisation) as one space. */
function attributeSafe(text: string): string {
  return xmlSafe(text).replace(/[\t\n]+/g, ' ');
}

/** What junit.xml's text gives back for `text`: what XML 1.0 cannot carry, and U+FFFD, as `\uXXXX`; CR and CRLF as LF. */
function xmlSafe(text: string): string {
  return text
    .replace(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffd-\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    .replace(/\r\n?/g, '\n');
}

const C0 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('');
/** Byte sequences a server can send, as they reach the evidence (lossy UTF-8 aside, any UTF-16 can appear). */
const HOSTILE = [
  `controls[${C0}]`,
  'nonchars[\ufffe\uffff] replacement[\ufffd] latin1-as-utf8[\ufffd\ufffd\ufffd]',
  'lone[\ud800][\udfff][x\udc00y][\udbff',
  ']]> <![CDATA[ x ]]> </failure></testcase></testsuites> <?xml version="1.0"?> <!-- --> &amp; &#0; &#x1; &nbsp; &undefined; " \' < > &',
  'escapes-already[\\u0000 \\ufffd]',
  'crlf[a\r\nb\rc\nd]',
  'astral[😀 𝄞] bidi[\u202e] bom[\ufeff] nel[\u0085] del[\u007f]',
];

/** Every hostile string in messages, bodies, headers, curl, reasons and the target; megabytes in two rules. */
function hostileResult(): ConformanceResult {
  const all = HOSTILE.join('\n');
  const fixture = resultFixture();
  const base: ConformanceResult = {
    ...fixture,
    target: `http://127.0.0.1:1/v1?${HOSTILE[0]}${HOSTILE[2]}${HOSTILE[3]}`,
    summary: { ...fixture.summary, verdict: 'non-conformant', reason: all },
  };
  const result = withOutcomes(base, {
    'PET-SCHEMA': 'fail',
    'LIST-RESPONSE': 'fail',
    'AUTH-CHALLENGE': 'fail',
    'LIST-PAGE-FULL': 'inconclusive',
    'GET-RESPONSE': 'error',
  });
  const byId = (id: string) => result.rules.find((r) => r.id === id)!;
  const headers = Object.fromEntries(HOSTILE.map((h, i) => [`x-hostile-${i}-${h}`, h]));
  byId('PET-SCHEMA').checks[0]!.findings = [
    {
      ...finding('PET-SCHEMA', 'resources.check', 'fail', HOSTILE.join(' '), [
        {
          ...evidence(all, headers, `curl $'${all}'`),
          transportError: suiteText(all),
          request: {
            method: 'POST',
            url: suiteText(`http://127.0.0.1:1/v1/pets?${HOSTILE[1]}`),
            headers: {},
            body: suiteText(all),
            bodyBytes: 9,
          },
        },
      ]),
      counterexample: { input: suiteText(all), seed: 1, path: '0:1', numRuns: 1, numShrinks: 0 },
    },
  ];
  // Megabytes: ASCII in a MUST failure, multi-byte with controls in a SHOULD warning.
  byId('LIST-RESPONSE').checks[0]!.findings = [
    finding('LIST-RESPONSE', 'listPets.check', 'fail', 'Expected an array / Received megabytes', [evidence('A'.repeat(3 * 1024 * 1024))]),
  ];
  byId('AUTH-CHALLENGE').checks[0]!.findings = [
    finding('AUTH-CHALLENGE', 'auth.check', 'fail', 'Expected a challenge / Received megabytes', [
      evidence(`é\u0001😀\ud800`.repeat(512 * 1024)),
    ]),
  ];
  byId('LIST-PAGE-FULL').checks[0]!.findings = [finding('LIST-PAGE-FULL', 'listPets.check', 'inconclusive', all)];
  byId('LIST-PAGE-FULL').checks[0]!.reason = suiteText(all);
  byId('GET-RESPONSE').checks[0]!.reason = suiteText(all);
  return result;
}
