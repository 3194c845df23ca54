/**
 * The API key never appears, whole or in part, in any encoding, in anything a
 * run, a certification or a replay writes. Targets echo the key back in every
 * form a server may use (plain; JSON-escaped as JSON, PHP and `\uXXXX` write
 * it; percent-encoded in either case, as UTF-8 or Latin-1; base64 and
 * base64url of the key, of `Bearer <key>`, of `conformance:<key>` and of
 * `user:<key>`; hex in either case; and nested: percent-encoded twice, a JSON
 * escape inside a JSON string, base64 of the whole Basic header the suite sends), in header values, in header names and in
 * bodies, repeated so that a form straddles every cut the reports make (4096
 * characters of a body, 120 of a message's excerpt, 160 of a shown value).
 * Case-folded too (lower, upper, ASCII letters only), the auth checks' near
 * misses and pieces of the key with them, and the Authorization values the
 * suite sends reflected as header names (which come back in lower case).
 * Secret headers and values a config file took from the environment are echoed
 * alike. Everything written is then searched for any 8-character window of
 * each secret, in any letter case, in every decoded form (test/leaks.ts).
 *
 * Each way of giving the key (the environment, --api-key) has runs through
 * bin/, so that a leak through the process's own stdout or stderr (a library
 * writing there rather than to main()'s streams) is caught; the other runs call
 * main() in this process.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import { describe, expect, it, vi } from 'vitest';
import { MAX_KEY_LENGTH } from '../../../core/redact.js';
import type { Handler } from '../../../reference/handler.js';
import { startReference } from '../../../reference/server.js';
import { renderAnnotations, renderStepSummary } from '../../../reports/github.js';
import { renderHtml } from '../../../reports/html.js';
import { renderJson } from '../../../reports/json.js';
import { renderJunit } from '../../../reports/junit.js';
import { renderSummary } from '../../../reports/console.js';
import { runRedactor, runSecrets } from '../../../suites/credentials.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult, RunEvent } from '../../../result/model.js';
import { runCli, runInProcess, tempDir, TINY_PROFILE } from '../../helpers.js';
import { ECHO_FORMS, expectNoLeak, findLeak } from '../../leaks.js';

/** One certification, in the tests that certify: up to 15 s on a quiet two-core machine, ×6 for a runner sharing its cores. */
const CERTIFICATION_MS = 90_000;
// A step runs the suite against a target echoing the key in every form, the longest the CLI, replay, a certification and
// verify one after another: up to 30 s on a quiet two-core machine, ×6 for a runner that shares its cores.
vi.setConfig({ testTimeout: 180_000 });

/** `"`, `\`, `/`, `+`, `=`, Latin-1 letters, a literal `%41` and a `~`: every escaping has something to do. */
const HOSTILE_KEY = 'Qz7"Wx\\Rb/Tn+Vm=Hé-Üp9ß~Kd%41Ly';
/** A key a header name can carry as it is (it comes back in lower case); no English in it, so it is searched for in any case. */
const TOKEN_KEY = 'Zq9-Xkw7PvtJ-mR4yQ8nTb-Lx3';

/** The forms the end-to-end tests echo (test/leaks.ts `ECHO_FORMS`), each run as a target of its own. */
const FORM_NAMES = [
  'plain',
  'json',
  'json-php',
  'json-unicode-lower',
  'json-unicode-upper',
  'json-mixed',
  'percent',
  'percent-lower',
  'percent-all',
  'percent-latin1',
  'percent-twice',
  'percent-latin1-twice',
  'json-unicode-in-json',
  'base64',
  'base64-latin1',
  'base64-bearer',
  'base64-basic',
  'base64-user',
  'base64-basic-header',
  'base64-bearer-php',
  'base64url',
  'base64url-bearer',
  'base64 of a piece',
  'base64 of a piece, lower case',
  'basic, lower case, unpadded',
  'basic cut short',
  'hex of a piece',
  'hex',
  'hex-upper',
  'hex-latin1',
  'lower',
  'upper',
  'ascii-upper',
  'near miss, lower case',
  'near miss, upper case',
  'swapped piece',
  'piece, lower case',
  'rot13',
  'reversed',
  'spaced in fours',
  'zero-width spaces between',
  'array of characters',
  'fullwidth',
  'quoted-printable',
  'css escapes',
  'base64 of base64',
  'hex of base64',
  'base32',
  'one big number',
  'base64 in lines of 76',
] as const;
const FORMS: Record<string, (key: string) => string> = Object.fromEntries(FORM_NAMES.map((name) => [name, ECHO_FORMS[name]!]));

/** A header name carrying `form`, when a header name can (HTTP tokens only; it comes back in lower case). */
const headerName = (form: string): string | undefined => (/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(form) ? `x-n-${form}` : undefined);

/**
 * A target that echoes the key back: every answer carries `form` in a header
 * value, in a header name where an HTTP token can hold it, and with `request`
 * the request's headers, JSON-escaped;
 * every error answer (a refused key answered 400 instead of 401) is a broken
 * Error body holding `form` repeated over 4400 characters, at a phase that
 * moves with each answer, so that every cut (an excerpt of 120 characters, a
 * shown value of 160, a body of 4096) falls inside one.
 * `form` may change per answer (`pick`).
 */
function echoing(
  key: string,
  pick: (n: number) => string,
  options: { headers?: boolean; request?: boolean } = {},
): (inner: Handler) => Handler {
  let n = 0;
  return (inner) => async (request) => {
    const answer = await inner(request);
    const i = n++;
    const form = FORMS[pick(i)]!(key);
    const headers: Record<string, string> = { ...answer.headers };
    if (options.headers !== false) {
      if (options.request) headers['x-echo'] = JSON.stringify(request.headers);
      // Where a header value can carry it (not a line break, nor a character beyond Latin-1).
      if (/^[\t\x20-\x7e\x80-\xff]*$/.test(form)) headers['x-form'] = form;
      const name = headerName(form);
      if (name) headers[name] = '1';
    }
    if (answer.status < 400) return { ...answer, headers };
    const status = answer.status === 401 && request.headers.authorization !== undefined ? 400 : answer.status;
    const message = `${'.'.repeat(i % 13)}${`${form}|`.repeat(Math.ceil(4400 / (form.length + 1)))}`;
    return {
      status,
      headers: { ...headers, 'content-type': 'application/json' },
      body: `{"code":"echo","message":"${message}","status":"${status}","auth":${JSON.stringify(request.headers.authorization ?? null)}}`,
    };
  };
}

/** Everything the reporters write from a result, and the run's events. */
function written(result: ConformanceResult, events: RunEvent[]): Record<string, string> {
  return {
    'report.json': renderJson(result),
    'junit.xml': renderJunit(result),
    'report.html': renderHtml(result),
    annotations: renderAnnotations(result),
    'step summary': renderStepSummary(result),
    console: renderSummary(result, [], false),
    events: JSON.stringify(events.filter((e) => e.type !== 'run-end')),
  };
}

/** The files of a bundle, extracted with tar. */
async function unpack(bundle: string): Promise<Record<string, string>> {
  const to = tempDir();
  await tar.x({ file: bundle, cwd: to });
  return Object.fromEntries(readdirSync(to).map((name) => [name, readFileSync(join(to, name), 'latin1')]));
}

describe('the API key', () => {
  describe.each([
    ['a key holding " \\ / + = and Latin-1', HOSTILE_KEY, Object.keys(FORMS)],
    [
      'a key a header name can carry as it is',
      TOKEN_KEY,
      [
        'plain',
        'json-php',
        'percent-all',
        'percent-twice',
        'base64-bearer',
        'base64-basic-header',
        'hex-upper',
        'lower',
        'upper',
        'near miss, lower case',
        'near miss, upper case',
        'swapped piece',
        'piece, lower case',
        'basic, lower case, unpadded',
        'basic cut short',
        'base64 of a piece',
        'hex of a piece',
      ],
    ],
  ])('%s', (_name, key, forms) => {
    it.concurrent.each(forms)(
      'echoed %s in header names, header values and bodies across every cut: in no report, event or console line',
      async (form) => {
        const server = await startReference({ apiKey: key, wrap: echoing(key, () => form) });
        try {
          const events: RunEvent[] = [];
          // The rules whose checks meet error answers: refused keys, missing keys, unknown ids (and the setup phase, which always runs).
          const result = await runConformance({
            baseUrl: server.url,
            apiKey: key,
            seed: 11,
            numRuns: 2,
            only: ['ERROR-SCHEMA', 'AUTH-REQUIRED', 'AUTH-INVALID-KEY', 'AUTH-SCHEME', 'GET-NOT-FOUND'],
            onEvent: (e) => events.push(e),
          });
          const texts = written(result, events);
          // The echo reached the reports: findings quote cut excerpts of it, and evidence shows its headers.
          expect(result.summary.verdict).toBe('non-conformant');
          const messages = result.rules.flatMap((r) => r.checks.flatMap((c) => c.findings.map((f) => f.message)));
          expect(messages.some((m) => m.includes('…'))).toBe(true);
          expect(texts['report.json']).toMatch(/<API_KEY>|<base64 (?:of|holding)|<hex of/);
          expectNoLeak(texts, [key]);
        } finally {
          await server.close();
        }
      },
    );
  });

  it('a header name carrying the key is redacted like a value', async () => {
    const forms = ['plain', 'hex', 'percent-all', 'base64url'];
    const server = await startReference({ apiKey: TOKEN_KEY, wrap: echoing(TOKEN_KEY, (n) => forms[n % forms.length]!) });
    try {
      const result = await runConformance({ baseUrl: server.url, apiKey: TOKEN_KEY, seed: 3, numRuns: 2 });
      const names = result.rules.flatMap((r) =>
        r.checks.flatMap((c) => c.findings.flatMap((f) => f.evidence.flatMap((e) => Object.keys(e.response?.headers ?? {})))),
      );
      expect(names.length).toBeGreaterThan(0);
      expect(names.some((n) => n.includes('<API_KEY> in lower case>'))).toBe(true);
      expect(names.some((n) => n.includes('<hex of <API_KEY>>'))).toBe(true);
      expectNoLeak({ names: names.join('\n') }, [TOKEN_KEY]);
    } finally {
      await server.close();
    }
  });

  it('a key holding ordinary words of the rule catalog is taken: those pieces, public in every report, are not looked for; the key and its other pieces still are', async () => {
    const key = 'Zq8_Required_DISTINCT_k3y';
    const server = await startReference({ apiKey: key });
    try {
      const result = await runConformance({ baseUrl: server.url, apiKey: key, seed: 5, numRuns: 2, load: 'none' });
      expect(result.summary.verdict).toBe('conformant');
      const html = renderHtml(result);
      // The catalog's own words stay as written ("required", "distinct" are in its statements).
      expect(html.toLowerCase()).toMatch(/\brequired\b/);
      expect(html.toLowerCase()).toMatch(/\bdistinct/);
      expect(html).not.toContain('<part of');
      // Every piece of the key but the catalog's own words ("required", "distinct"), in any letter case, is in no report.
      const reports = `${renderJson(result)}\n${renderJunit(result)}\n${html}`.toLowerCase();
      const pieces = Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8).toLowerCase()).filter(
        (piece) => piece !== 'required' && piece !== 'distinct',
      );
      expect(pieces.length).toBeGreaterThan(10);
      for (const piece of pieces) expect(reports, piece).not.toContain(piece);
    } finally {
      await server.close();
    }
    const redactor = runRedactor(runSecrets(key));
    expect(redactor.redact(`echo ${key.toLowerCase()}!`)).toBe('echo <<API_KEY> in lower case>!');
    expect(redactor.redact('name: q8_Required_DISTINCT')).not.toContain('Required_DISTINCT');
    expect(redactor.redact('the name is required; ids are distinct')).toBe('the name is required; ids are distinct');
  });

  it('a transport given to the engine that says it redacts (`redacted: true`) still goes through the door: what it answers is redacted', async () => {
    const key = TOKEN_KEY;
    const server = await startReference({ apiKey: key, wrap: echoing(key, () => 'plain') });
    const { HttpClient } = await import('../../../core/http.js');
    const inner = new HttpClient({ baseUrl: server.url, timeoutMs: 10_000 });
    // Shaped as a replayer once was: a flag anyone can set is no vouching.
    const claims = Object.assign(inner, { redacted: true as const });
    try {
      const seen: string[] = [];
      const onExchange = (x: { response?: { headers: Record<string, string>; body: Uint8Array } }) =>
        void seen.push(JSON.stringify(x.response?.headers ?? {}), Buffer.from(x.response?.body ?? []).toString('latin1'));
      const result = await runConformance({
        baseUrl: server.url,
        apiKey: key,
        seed: 4,
        numRuns: 2,
        load: 'none',
        only: ['AUTH-INVALID-KEY', 'ERROR-SCHEMA'],
        transport: claims,
        onExchange,
      });
      // What the checks judged and the engine handed on (certify records it) crossed the door: redacted.
      expect(seen.join('\n')).toContain('<API_KEY>');
      expectNoLeak({ exchanges: seen.join('\n'), 'report.json': renderJson(result) }, [key]);
    } finally {
      await inner.close();
      await server.close();
    }
  });

  it(`the CLI, certify, verify and replay, against a target echoing every form in turn: no file, no line of output`, async () => {
    const forms = Object.keys(FORMS);
    const server = await startReference({
      apiKey: HOSTILE_KEY,
      wrap: echoing(HOSTILE_KEY, (n) => forms[n % forms.length]!, { request: true }),
    });
    const certifyTarget = await startReference({
      apiKey: HOSTILE_KEY,
      wrap: echoing(HOSTILE_KEY, (n) => forms[n % forms.length]!, { request: true }),
    });
    try {
      const dir = tempDir();
      const summary = join(dir, 'step-summary.md');
      const env = { PETSTORE_API_KEY: HOSTILE_KEY, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
      // A load phase of one second (smoke lasts three): its samples of the echo reach the reports all the same.
      writeFileSync(join(dir, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { tiny: TINY_PROFILE } }));
      // Through bin/, the key from the environment.
      const ran = await runCli(
        ['--base-url', server.url, '--num-runs', '5', '--load', 'tiny', '--json', '--report-dir', join(dir, 'reports')],
        { env, cwd: dir },
      );
      expect(ran.code).toBe(1);
      const reports = readdirSync(join(dir, 'reports')).sort();
      expect(reports).toEqual(['junit.xml', 'report.html', 'report.json']);
      const texts: Record<string, string> = { stdout: ran.stdout, stderr: ran.stderr, 'step summary': readFileSync(summary, 'utf8') };
      for (const file of reports) texts[file] = readFileSync(join(dir, 'reports', file), 'utf8');
      expect(texts['report.json']).toContain('<API_KEY>');
      expectNoLeak(texts, [HOSTILE_KEY]);

      // Replay of a recorded failure, against the same target.
      const report = JSON.parse(texts['report.json']!) as ConformanceResult;
      expect(report.load[0]!.overall.requests).toBeGreaterThan(0);
      const cases = report.rules.flatMap((r) => r.checks.flatMap((c) => c.findings.flatMap((f) => (f.case ? [f.case.id] : []))));
      expect(cases.length).toBeGreaterThan(0);
      for (const id of cases.slice(0, 3)) {
        const replayed = await runInProcess(['replay', join(dir, 'reports', 'report.json'), id, '--base-url', server.url], {
          env: { PETSTORE_API_KEY: HOSTILE_KEY },
        });
        expect(replayed.stdout).toMatch(/^sending case /);
        expectNoLeak({ [`replay ${id}`]: replayed.stdout + replayed.stderr }, [HOSTILE_KEY]);
      }
      // Certification: every file of the bundle, and verify's output.
      const bundle = join(dir, 'echo.tar.gz');
      const product = join(dir, 'product.json');
      await import('node:fs/promises').then((fs) =>
        fs.writeFile(product, JSON.stringify({ name: 'Echo', version: '1.0.0', contact: 'echo@example.invalid' })),
      );
      const certified = await runInProcess(['certify', '--base-url', certifyTarget.url, '--product', product, '--out', bundle], {
        env: { PETSTORE_API_KEY: HOSTILE_KEY },
        timeoutMs: CERTIFICATION_MS,
      });
      expect(certified.code, certified.stderr).toBe(1);
      const files = await unpack(bundle);
      expect(Object.keys(files).sort()).toEqual([
        'junit.xml',
        'manifest.json',
        'product.json',
        'report.html',
        'report.json',
        'transcript.har',
      ]);
      // Response bodies in the transcript are base64: decoded, they hold the placeholder where the key was.
      const bodies = (
        JSON.parse(files['transcript.har']!) as { log: { entries: { response: { content: { text: string } } }[] } }
      ).log.entries.map((e) => Buffer.from(e.response.content.text, 'base64').toString('utf8'));
      expect(bodies.some((b) => b.includes('<API_KEY>'))).toBe(true);
      const verified = await runInProcess(['verify', bundle]);
      expect(verified.code, verified.stdout).toBe(0);
      expectNoLeak(
        {
          ...files,
          'transcript bodies': bodies.join('\n'),
          'certify output': certified.stdout + certified.stderr,
          'verify output': verified.stdout + verified.stderr,
        },
        [HOSTILE_KEY],
      );
    } finally {
      await Promise.all([server.close(), certifyTarget.close()]);
    }
  });

  it('reflected as header names (lower case), the near misses and pieces among them; secret headers and ${ENV} values of the config file in any case: in no file, bundle or line of the CLI, certify, verify or replay', async () => {
    const key = TOKEN_KEY;
    // Token characters only, so that header names can carry them too; no English in them.
    const secret = 'Tr4ce-Qv7Wm2Xp-Hz9k-77';
    const token = 'Dp1oy-Tk9Zq-Hw3Rm8Vb-55';
    /** Every answer reflects each Authorization it was sent, and the secret headers, as header names; the secrets in another case and cut short as values; errors quote them in the body. */
    const reflecting =
      (inner: Handler): Handler =>
      async (request) => {
        const answer = await inner(request);
        const headers: Record<string, string> = { ...answer.headers };
        const authorization = request.headers.authorization;
        const name = authorization === undefined ? undefined : `x-auth-${authorization.replace(/ /g, '-')}`;
        if (name && /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) headers[name] = '1';
        const echoed: string[] = [];
        for (const [header, value] of [
          ['x-trace', request.headers['x-trace']],
          ['x-deploy', request.headers['x-deploy']],
        ] as const) {
          if (value === undefined) continue;
          headers[`x-n-${value}`] = '1';
          headers[`${header}-upper`] = value.toUpperCase();
          headers[`${header}-lower`] = value.toLowerCase();
          headers[`${header}-prefix`] = value.slice(0, 12);
          echoed.push(value.toUpperCase(), value.toLowerCase(), value.slice(0, 12), value.slice(3));
        }
        if (answer.status < 400) return { ...answer, headers };
        const status = answer.status === 401 && authorization !== undefined ? 400 : answer.status;
        const message = [authorization ?? '', (authorization ?? '').toLowerCase(), ...echoed].join('|');
        return {
          status,
          headers: { ...headers, 'content-type': 'application/json' },
          body: `{"code":"echo","message":${JSON.stringify(message)},"status":"${status}"}`,
        };
      };
    const server = await startReference({ apiKey: key, wrap: reflecting });
    const certifyTarget = await startReference({ apiKey: key, wrap: reflecting });
    try {
      const dir = tempDir();
      const config = join(dir, 'conformance.json');
      writeFileSync(config, JSON.stringify({ headers: { 'X-Deploy': '${CI_DEPLOY_TOKEN}' }, profiles: { tiny: TINY_PROFILE } }));
      const env = { PETSTORE_API_KEY: key, CI_DEPLOY_TOKEN: token };
      const reports = join(dir, 'reports');
      const ran = await runInProcess(
        [
          '--base-url',
          server.url,
          '--config',
          config,
          '--secret-header',
          `X-Trace: ${secret}`,
          '--num-runs',
          '3',
          '--load',
          'tiny',
          '--report-dir',
          reports,
        ],
        { env, cwd: dir },
      );
      expect(ran.code, ran.stderr).toBe(1);
      const texts: Record<string, string> = { stdout: ran.stdout, stderr: ran.stderr };
      for (const file of readdirSync(reports)) texts[file] = readFileSync(join(reports, file), 'utf8');
      expect(Object.keys(texts).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'stderr', 'stdout']);
      // Each secret is labelled as itself, in the case it came back in, its pieces as its own.
      const report = texts['report.json']!;
      for (const label of [
        'x-auth-bearer-<<API_KEY> in lower case>',
        '<<secret x-trace> in upper case>',
        '<<secret x-trace> in lower case>',
        '<part of <secret x-trace>>',
        '<secret x-deploy>',
        '<part of <secret x-deploy>>',
      ])
        expect(report).toContain(label);
      const result = JSON.parse(report) as ConformanceResult;
      expect(result.options.connection?.secretHeaders).toEqual(['x-deploy', 'x-trace']);
      expectNoLeak(texts, [key, secret, token]);

      // Replay of a recorded failure: the secret headers given again, as they must be.
      const cases = result.rules.flatMap((r) => r.checks.flatMap((c) => c.findings.flatMap((f) => (f.case ? [f.case.id] : []))));
      expect(cases.length).toBeGreaterThan(0);
      for (const id of cases.slice(0, 2)) {
        const replayed = await runInProcess(
          [
            'replay',
            join(reports, 'report.json'),
            id,
            '--base-url',
            server.url,
            '--secret-header',
            `X-Trace: ${secret}`,
            '--secret-header',
            `X-Deploy: ${token}`,
          ],
          { env: { PETSTORE_API_KEY: key } },
        );
        expect(replayed.stdout, replayed.stderr).toMatch(/^sending case /);
        expectNoLeak({ [`replay ${id}`]: replayed.stdout + replayed.stderr }, [key, secret, token]);
      }

      // Certification (no config file there): every file of the bundle, the transcript's bodies, and verify's output.
      const bundle = join(dir, 'reflect.tar.gz');
      const product = join(dir, 'product.json');
      writeFileSync(product, JSON.stringify({ name: 'Reflect', version: '1.0.0', contact: 'reflect@example.invalid' }));
      const certified = await runInProcess(
        ['certify', '--base-url', certifyTarget.url, '--secret-header', `X-Trace: ${secret}`, '--product', product, '--out', bundle],
        { env: { PETSTORE_API_KEY: key }, timeoutMs: CERTIFICATION_MS },
      );
      expect(certified.code, certified.stderr).toBe(1);
      const files = await unpack(bundle);
      // The auth check's near miss, reflected as a header name: the attack, every exchange of it recorded.
      expect(files['transcript.har']).toContain('x-auth-bearer-<<API_KEY> without its last character, in lower case>');
      const bodies = (
        JSON.parse(files['transcript.har']!) as { log: { entries: { response: { content: { text: string } } }[] } }
      ).log.entries.map((e) => Buffer.from(e.response.content.text, 'base64').toString('utf8'));
      const verified = await runInProcess(['verify', bundle]);
      expect(verified.code, verified.stdout).toBe(0);
      expectNoLeak(
        {
          ...files,
          'transcript bodies': bodies.join('\n'),
          'certify output': certified.stdout + certified.stderr,
          'verify output': verified.stdout + verified.stderr,
        },
        [key, secret],
      );
    } finally {
      await Promise.all([server.close(), certifyTarget.close()]);
    }
  });

  it('extra headers whose names say they carry credentials (-H X-Api-Key, Cookie) are secrets too: in no file, bundle or line of the CLI, certify, verify or replay; other extra headers are kept for the curl lines', async () => {
    const key = TOKEN_KEY;
    const apiKey = 'xk_Hd83JsQpLm7Za91';
    const cookie = 'session=Cs9fPq27LmXzAb4';
    const tenant = 'acme-prod-Qw8';
    // A failure with evidence on every read (its curl line carries every extra header), and each header echoed back.
    const failing =
      (inner: Handler): Handler =>
      async (request) => {
        const answer = await inner(request);
        const echoed = [request.headers['x-api-key'], request.headers.cookie].join(' ');
        if (request.method === 'GET' && /\/pets\/\d+$/.test(request.path))
          return { status: 500, headers: { 'content-type': 'application/json' }, body: { code: 'echo', message: echoed, status: 500 } };
        return answer;
      };
    const server = await startReference({ apiKey: key, wrap: failing });
    try {
      const dir = tempDir();
      const reports = join(dir, 'reports');
      const headers = ['-H', `X-Api-Key: ${apiKey}`, '-H', `Cookie: ${cookie}`, '-H', `X-Tenant: ${tenant}`];
      const env = { PETSTORE_API_KEY: key };
      const ran = await runInProcess(['--base-url', server.url, ...headers, '--num-runs', '3', '--load', 'none', '--report-dir', reports], {
        env,
        cwd: dir,
      });
      expect(ran.code, ran.stderr).toBe(1);
      const texts: Record<string, string> = { stdout: ran.stdout, stderr: ran.stderr };
      for (const file of readdirSync(reports)) texts[file] = readFileSync(join(reports, file), 'utf8');
      const result = JSON.parse(texts['report.json']!) as ConformanceResult;
      expect(result.options.connection?.secretHeaders).toEqual(['cookie', 'x-api-key']);
      // Labelled as secret headers are, and the header that carries none kept as it was sent: the curl lines still reproduce.
      expect(texts['report.json']).toContain('x-api-key: ${PETSTORE_SECRET_HEADER_X_API_KEY}');
      expect(texts['report.json']).toContain(`-H 'x-tenant: ${tenant}'`);
      expectNoLeak(texts, [key, apiKey, cookie]);

      const id = result.rules.flatMap((r) => r.checks.flatMap((c) => c.findings.flatMap((f) => (f.case ? [f.case.id] : []))))[0]!;
      const replayed = await runInProcess(['replay', join(reports, 'report.json'), id, '--base-url', server.url, ...headers], { env });
      expect(replayed.stdout, replayed.stderr).toMatch(/^sending case /);
      expectNoLeak({ replay: replayed.stdout + replayed.stderr }, [key, apiKey, cookie]);

      const bundle = join(dir, 'headers.tar.gz');
      const product = join(dir, 'product.json');
      writeFileSync(product, JSON.stringify({ name: 'Headers', version: '1.0.0', contact: 'headers@example.invalid' }));
      const certified = await runInProcess(['certify', '--base-url', server.url, ...headers, '--product', product, '--out', bundle], {
        env,
        timeoutMs: CERTIFICATION_MS,
      });
      expect(certified.code, certified.stderr).toBe(1);
      const files = await unpack(bundle);
      const verified = await runInProcess(['verify', bundle]);
      expect(verified.code, verified.stdout).toBe(0);
      expectNoLeak({ ...files, certify: certified.stdout + certified.stderr, verify: verified.stdout + verified.stderr }, [
        key,
        apiKey,
        cookie,
      ]);
    } finally {
      await server.close();
    }
  });

  it(`a key of ${MAX_KEY_LENGTH} characters is redacted in every form without a pattern built from it; a longer one is refused in one line that shows none of it`, async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_."\\é';
    let long = '';
    for (let i = 0; long.length < MAX_KEY_LENGTH; i++) long += alphabet[(i * 7919 + (i >> 3)) % alphabet.length];
    // Forms of a 4096-character key do not fit in headers (16 KiB): it is echoed in bodies only.
    const forms = ['plain', 'json-php', 'percent', 'base64-bearer', 'hex'];
    const server = await startReference({ apiKey: long, wrap: echoing(long, (n) => forms[n % forms.length]!, { headers: false }) });
    try {
      // A pattern built from a key this long would take minutes per body (the test's timeout catches it); the scan takes none.
      const result = await runConformance({
        baseUrl: server.url,
        apiKey: long,
        seed: 5,
        numRuns: 2,
        only: ['ERROR-SCHEMA', 'AUTH-INVALID-KEY'],
      });
      expect(result.summary.abort).toBeUndefined();
      const report = renderJson(result);
      expect(report).toContain('<API_KEY>');
      expectNoLeak({ 'report.json': report }, [long]);
    } finally {
      await server.close();
    }
    for (const length of [MAX_KEY_LENGTH + 1, 24_562, 100_000]) {
      const key = long.repeat(Math.ceil(length / long.length)).slice(0, length);
      const ran = await runInProcess(['--base-url', 'http://127.0.0.1:9/v1', '--api-key', key]);
      expect(ran.code).toBe(2);
      expect(ran.stderr.trim().split('\n')).toHaveLength(1);
      expect(ran.stderr).toContain(`the API key is ${length} characters long; at most ${MAX_KEY_LENGTH} are supported`);
      expect(findLeak(ran.stdout + ran.stderr, key)).toBeUndefined();
    }
  });
});

describe('arguments', () => {
  const DASH_KEY = '-Xq7Secr3tK3y';
  const RUN = { 'bin/': runCli, 'main()': runInProcess };

  it.each([
    [['--api-key', DASH_KEY], 'bin/'],
    [[`--api-key=${DASH_KEY}`], 'main()'],
  ] as const)('%j (through %s): a key that begins with "-" is the value of --api-key', async (flag, through) => {
    const server = await startReference({ apiKey: DASH_KEY });
    try {
      const ran = await RUN[through](
        ['--base-url', server.url, ...flag, '--only', 'AUTH-VALID-KEY', '--num-runs', '1', '--reporter', 'console'],
        { env: { PETSTORE_API_KEY: '' } },
      );
      expect(ran.code, ran.stderr).toBe(0);
      expect(findLeak(ran.stdout + ran.stderr, DASH_KEY)).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it.each([
    // yargs refuses this one: through bin/, in case it wrote anything on the process's streams.
    [
      ['--base-url', 'http://127.0.0.1:9/v1', '--api-kye', DASH_KEY],
      /unknown arguments: --api-kye \(did you mean --api-key\?\), \d+ other argument\(s\), not shown/,
      'bin/',
    ],
    [['--base-url', 'http://127.0.0.1:9/v1', '--api-kye', 'Zz9SecretWord-77'], /unknown arguments?: --api-kye/, 'main()'],
    [['--base-url', 'http://127.0.0.1:9/v1', 'Zz9SecretWord-77'], /unknown arguments?: 1 other argument\(s\), not shown/, 'main()'],
    [
      ['--base-url', 'http://user:Zz9SecretWord-77@127.0.0.1:999999/v1', '--api-key', 'a-real-key-1234'],
      /--base-url "http:\/\/…@127\.0\.0\.1:999999\/v1" is not an absolute URL/,
      'main()',
    ],
    [
      ['--base-url', 'http://user:Zz9Secret/Word-77@127.0.0.1:999999/v1', '--api-key', 'a-real-key-1234'],
      /is not an absolute URL/,
      'main()',
    ],
    // A piece of it in another letter case is as visible: the message says so.
    [
      ['--base-url', 'http://acmeprod.127.0.0.1.nip.invalid:9/v1', '--api-key', 'ACMEPROD-7f3a9xyzQ'],
      /--base-url holds the API key \(whole, or 8 characters of it in any letter case, which every request URL in the reports would then show hidden\)/,
      'main()',
    ],
    [['--base-url', 'http://127.0.0.1:9/Zz9SecretWord-77/v1', '--api-key', 'Zz9SecretWord-77'], /--base-url holds the API key/, 'main()'],
    // Without "//", userinfo parses as the scheme: the message names the flag and the expected form, not the scheme.
    [
      ['--base-url', 'Zz9SecretWord-77:x@127.0.0.1/v1', '--api-key', 'a-real-key-1234'],
      /--base-url must use http or https; write it as http:\/\/host:port\/path/,
      'main()',
    ],
    [
      ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'a-real-key-1234', '--proxy', 'Zz9SecretWord-77:x@127.0.0.1:3128'],
      /--proxy: the suite talks to HTTP\(S\) proxies only/,
      'main()',
    ],
    // A header given without its name is a bare value, perhaps a secret: not echoed.
    [
      ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'a-real-key-1234', '-H', 'Zz9SecretWord-77'],
      /--header takes "Name: value"/,
      'main()',
    ],
    [
      ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'a-real-key-1234', '--secret-header', ':Zz9SecretWord-77'],
      /--secret-header takes "Name: value"/,
      'main()',
    ],
    // A short key of digits: the generated integers would carry it (a run would withhold requests and crash checks).
    [
      ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', '0000'],
      /the API key has only digits and "-" and is 4 characters long; .* at least 12 characters/,
      'main()',
    ],
    [
      ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', '20240117-77'],
      /the API key has only digits and "-" and is 11 characters long/,
      'main()',
    ],
    // A secret holding a member name of report.json: refused, as the report's structure is never redacted.
    [
      ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'xx-durationMs-77'],
      /the API key is, or holds, a word .* a report field/,
      'main()',
    ],
    [
      ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'a-real-key-1234', '--secret-header', 'X-Sec: VerySecretHeaderValue99'],
      /^petstore-conformance: error: the value of secret header x-sec is, or holds, a word .* a report field\); it could not be kept out of the reports/,
      'main()',
    ],
    // Every secret meets the key's rules: a secret header in the base URL would be redacted out of every request URL.
    [
      [
        '--base-url',
        'http://127.0.0.1:9/Zz9SecretWord-77/v1',
        '--api-key',
        'a-real-key-1234',
        '--secret-header',
        'X-Sec: Zz9SecretWord-77',
      ],
      /--base-url holds the value of secret header x-sec \(whole, or 8 characters of it in any letter case, [^)]*\); it could not be kept out of the reports/,
      'main()',
    ],
    // Every secret, not the key only: one of digits shorter than 12 is in the generated ids and categoryIds, and hiding it would rewrite them before they are judged.
    [
      ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'a-real-key-1234', '--secret-header', 'X-Tenant: 2024061512'],
      /the value of secret header x-tenant has only digits and "-" and is 10 characters long; .* it could not be kept out of the reports/,
      'main()',
    ],
  ] as const)('%j: one line, exit 2, no secret in it (through %s)', async (args, message, through) => {
    const ran = await RUN[through]([...args], { env: { PETSTORE_API_KEY: '' } });
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toMatch(message);
    for (const secret of [DASH_KEY, 'Zz9SecretWord-77', 'Zz9Secret/Word-77', 'xx-durationMs-77', 'VerySecretHeaderValue99', '2024061512'])
      expect(findLeak(ran.stdout + ran.stderr, secret), ran.stderr).toBeUndefined();
  });

  // A value the config file takes from the environment into headers is a secret: admitted as one, never shown.
  it.each([
    [
      { headers: { 'X-Deploy': '${CI_DEPLOY_TOKEN}' } },
      'Dp1oy-7',
      /"headers\.X-Deploy" uses \$\{CI_DEPLOY_TOKEN\}, whose value is shorter than 8 characters; a value taken from the environment into headers is a secret/,
    ],
    [
      { headers: { 'X-Deploy': '${CI_DEPLOY_TOKEN}' } },
      '2024061512',
      /the value of secret header x-deploy has only digits and "-" and is 10 characters long/,
    ],
    [
      { headers: { 'X-Deploy': 'id-${CI_DEPLOY_TOKEN}' } },
      'xx-durationMs-77',
      /the value of secret header x-deploy is, or holds, a word .* a report field/,
    ],
    [
      { headers: { 'X-Deploy': '${CI_DEPLOY_TOKEN}' } },
      'Zz9SecretWord-77',
      /--base-url holds the value of secret header x-deploy \(whole, or 8 characters of it in any letter case, [^)]*\); it could not be kept out of the reports/,
    ],
  ] as const)(
    'config %j with its variable set: one line, exit 2, naming the key and the variable, never the value',
    async (file, value, message) => {
      const dir = tempDir();
      const config = join(dir, 'conformance.json');
      writeFileSync(config, JSON.stringify(file));
      const ran = await runInProcess(
        ['--base-url', 'http://127.0.0.1:9/Zz9SecretWord-77/v1', '--api-key', 'a-real-key-1234', '--config', config],
        { env: { CI_DEPLOY_TOKEN: value }, cwd: dir },
      );
      expect(ran.code).toBe(2);
      expect(ran.stderr.trim().split('\n')).toHaveLength(1);
      expect(ran.stderr).toMatch(message);
      expect(ran.stdout + ran.stderr).not.toContain(value);
    },
  );
});
