import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReference } from '../../../reference/server.js';
import type { ConformanceResult, Finding } from '../../../result/model.js';
import { CONTRACT_API_KEY, mutants } from '../../fixtures/mutants/index.js';
import { runInProcess, tempDir } from '../../helpers.js';

// Every command runs main() in this process, sparing a child process each: these tests are about what replay sends,
// judges and refuses; how bin/ hands an exit code to the shell is tested in test/cli.test.ts.
const env = { PETSTORE_API_KEY: CONTRACT_API_KEY };
let reference: RunningServer;
beforeAll(async () => {
  reference = await startReference({ apiKey: CONTRACT_API_KEY });
});
afterAll(() => reference.close());

interface Recorded {
  server: RunningServer;
  report: string;
  finding: Finding;
  stdout: string;
}

/** Recorded runs by mutant and rule: the tests only read a report (or an edited copy), so a run is made once per file. */
const recordings = new Map<string, Promise<Recorded>>();
afterAll(async () => {
  await Promise.all([...recordings.values()].map(async (recorded) => (await recorded.catch(() => undefined))?.server.close()));
});

/** Runs the suite against a mutant (kept running until the end of the file), returns the report path and the first failure of `rule`. */
function recordFailure(mutantName: string, rule: string): Promise<Recorded> {
  const key = `${mutantName} ${rule}`;
  if (!recordings.has(key)) recordings.set(key, record(mutantName, rule));
  return recordings.get(key)!;
}

async function record(mutantName: string, rule: string, extra: readonly string[] = []): Promise<Recorded> {
  const mutant = mutants.find((m) => m.name === mutantName)!;
  const server = await startReference({ apiKey: CONTRACT_API_KEY, ...(mutant.options ?? {}), wrap: mutant.wrap });
  const dir = tempDir();
  const ran = await runInProcess(
    ['--base-url', server.url, '--seed', '6', '--num-runs', '10', '--load', 'none', '--report-dir', dir, ...extra],
    { env },
  );
  expect(ran.code).toBe(1);
  const report = join(dir, 'report.json');
  const result = JSON.parse(readFileSync(report, 'utf8')) as ConformanceResult;
  const finding = result.rules
    .find((r) => r.id === rule)!
    .checks.flatMap((c) => c.findings)
    .find((f) => f.case && f.case.judge.kind !== 'none')!;
  expect(finding, `${mutantName}: a replayable failure of ${rule}`).toBeDefined();
  return { server, report, finding, stdout: ran.stdout };
}

describe('petstore-conformance replay', () => {
  it.each([
    ['default-limit-21', 'LIST-LIMIT-DEFAULT', 'list'],
    ['error-status-as-string', 'ERROR-SCHEMA', 'response'],
    ['key-prefix-compare', 'AUTH-INVALID-KEY', 'status'],
    ['categoryId-through-double', 'CREATE-ECHO', 'create'],
    ['not-found-as-400', 'GET-NOT-FOUND', 'status'],
  ])('%s: the %s failure fails again against the mutant and passes against the reference', async (mutant, rule, kind) => {
    const { server, report, finding, stdout } = await recordFailure(mutant, rule);
    expect(finding.case!.judge.kind).toBe(kind);
    // The printed command names the run's target (replay sends only where it is told) and never the key nor --api-key.
    expect(stdout).toContain(`replay: npx petstore-conformance replay ${report} ${finding.case!.id} --base-url ${server.url}`);
    expect(stdout).not.toContain('--api-key');
    const again = await runInProcess(['replay', report, finding.case!.id, '--base-url', server.url], { env });
    expect(again.stdout).toMatch(/verdict: {2}still fails/);
    expect(again.code).toBe(1);
    const fixed = await runInProcess(['replay', report, finding.case!.id, '--base-url', reference.url], { env });
    expect(fixed.stdout).toMatch(/verdict: {2}passes now/);
    expect(fixed.stdout).toContain(`(recorded against ${server.url}; what the run knew of that store is not applied here)`);
    expect(fixed.code).toBe(0);
    expect(again.stdout + fixed.stdout).not.toContain(CONTRACT_API_KEY);
  });

  it('a failure recorded under a client fingerprint is sent again as that client, to the origin named now', async () => {
    const key = 'categoryId-through-double CREATE-ECHO chrome';
    if (!recordings.has(key)) recordings.set(key, record('categoryId-through-double', 'CREATE-ECHO', ['--fingerprints', 'chrome']));
    const { server, report, finding } = await recordings.get(key)!;
    // A POST as Chrome sends it: its own headers, Origin the recorded target's.
    expect(finding.case!.request.headers).toMatchObject({ 'sec-fetch-mode': 'cors', origin: new URL(server.url).origin });
    const again = await runInProcess(['replay', report, finding.case!.id, '--base-url', server.url], { env });
    expect(again.stdout, again.stderr).toMatch(/verdict: {2}still fails/);
    const fixed = await runInProcess(['replay', report, finding.case!.id, '--base-url', reference.url], { env });
    expect(fixed.stdout, fixed.stderr).toMatch(/verdict: {2}passes now/);
    // Sent again as Chrome, its Origin the one replay sends to now.
    expect(fixed.stdout).toContain(`-H 'origin: ${new URL(reference.url).origin}'`);
  });

  it('refuses an unknown case id, and a request that needs the key without one', async () => {
    const { report, finding } = await recordFailure('default-limit-21', 'LIST-LIMIT-DEFAULT');
    const unknown = await runInProcess(['replay', report, 'c-00000000'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no failure has case id c-00000000/);
    const keyless = await runInProcess(['replay', report, finding.case!.id, '--base-url', reference.url], {
      env: { PETSTORE_API_KEY: '' },
    });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toMatch(/this request carries the key: set PETSTORE_API_KEY/);
  });
});

describe('replay sends the key only to the origin it names, only in Authorization', () => {
  /** A reference that records the headers of every request it is sent. */
  async function recording(): Promise<{ server: RunningServer; seen: Record<string, string | undefined>[] }> {
    const seen: Record<string, string | undefined>[] = [];
    const server = await startReference({
      apiKey: CONTRACT_API_KEY,
      wrap: (inner) => (request) => (seen.push(request.headers), inner(request)),
    });
    return { server, seen };
  }

  /** The report with the case of `id` edited by `edit` (and the report itself by `whole`), written beside it. */
  function edited(
    report: string,
    id: string,
    edit: (c: NonNullable<Finding['case']>) => void,
    whole: (r: ConformanceResult) => void = () => {},
  ): string {
    const result = JSON.parse(readFileSync(report, 'utf8')) as ConformanceResult;
    const finding = result.rules.flatMap((r) => r.checks.flatMap((c) => c.findings)).find((f) => f.case?.id === id)!;
    edit(finding.case!);
    whole(result);
    const file = join(tempDir(), 'report.json');
    writeFileSync(file, JSON.stringify(result));
    return file;
  }

  it.each([
    [
      'a Host header',
      (c: NonNullable<Finding['case']>) => void (c.request.headers.host = 'evil.example' as never),
      /carries a header the suite never sends \("host"\)/,
    ],
    [
      'an X-Forwarded-Host header',
      (c: NonNullable<Finding['case']>) => void (c.request.headers['x-forwarded-host'] = 'evil.example' as never),
      /carries a header the suite never sends/,
    ],
    [
      'the placeholder in another header',
      (c: NonNullable<Finding['case']>) => void (c.request.headers.accept = '<API_KEY>' as never),
      /its accept header holds a placeholder of the key/,
    ],
    [
      'an Authorization the suite never sends',
      (c: NonNullable<Finding['case']>) => void (c.request.headers.authorization = 'Basic <API_KEY>' as never),
      /its Authorization header is not one the suite sends/,
    ],
    [
      'a path that leaves the base URL',
      (c: NonNullable<Finding['case']>) => void (c.request.path = '//evil.example/pets' as never),
      /its path is not a path under the base URL/,
    ],
    [
      'the placeholder in the path',
      (c: NonNullable<Finding['case']>) => void (c.request.path = '/pets?key=<API_KEY>' as never),
      /its path holds a placeholder of the key/,
    ],
  ])('an edited case with %s is refused in one line, and nothing is sent', async (_name, edit, message) => {
    const { report, finding } = await recordFailure('default-limit-21', 'LIST-LIMIT-DEFAULT');
    const other = await recording();
    try {
      const file = edited(report, finding.case!.id, edit);
      const ran = await runInProcess(['replay', file, finding.case!.id, '--base-url', other.server.url], { env });
      expect(ran.code).toBe(2);
      expect(ran.stderr.trim().split('\n')).toHaveLength(1);
      expect(ran.stderr).toMatch(message);
      expect(ran.stderr + ran.stdout).not.toContain(CONTRACT_API_KEY);
      expect(other.seen).toHaveLength(0);
    } finally {
      await other.server.close();
    }
  });

  it('without --base-url or PETSTORE_BASE_URL nothing is sent, not even to the recorded origin: one line names it as a hint, exit 2; with either, only the origin named gets the request, the key in Authorization only', async () => {
    const { report, finding } = await recordFailure('default-limit-21', 'LIST-LIMIT-DEFAULT');
    const recorded = await recording();
    const named = await recording();
    try {
      // A report whose target was edited to point elsewhere: a report names whatever origin its author wrote.
      const retargeted = edited(
        report,
        finding.case!.id,
        () => {},
        (r) => (r.target = `${recorded.server.url}`),
      );
      const unnamed = await runInProcess(['replay', retargeted, finding.case!.id], { env });
      expect(unnamed.code).toBe(2);
      expect(unnamed.stdout).toBe('');
      expect(unnamed.stderr.trim().split('\n')).toEqual([
        `petstore-conformance: error: ${retargeted}: case ${finding.case!.id} was recorded against ${new URL(recorded.server.url).origin}; replay sends only to an origin you name: pass --base-url ${recorded.server.url} (or set PETSTORE_BASE_URL) to send the request there; nothing was sent (see --help)`,
      ]);
      expect(recorded.seen).toHaveLength(0);
      expect(named.seen).toHaveLength(0);
      // --base-url, or PETSTORE_BASE_URL, names the origin; only that one gets the request, whatever the report names.
      const toNamed = await runInProcess(['replay', retargeted, finding.case!.id, '--base-url', named.server.url], { env });
      expect(toNamed.stdout.split('\n').slice(0, 2)).toEqual([
        `sending case ${finding.case!.id} to ${new URL(named.server.url).origin} (from --base-url), the key in its Authorization header`,
        '  connection: plain http, no TLS · no proxy · no client certificate',
      ]);
      const byVariable = await runInProcess(['replay', retargeted, finding.case!.id], {
        env: { ...env, PETSTORE_BASE_URL: named.server.url },
      });
      expect(byVariable.stdout.split('\n')[0]).toMatch(/ \(from PETSTORE_BASE_URL\), the key in its Authorization header$/);
      expect(recorded.seen).toHaveLength(0);
      expect(named.seen).toHaveLength(2);
      for (const headers of named.seen) {
        expect(headers.authorization).toBe(`Bearer ${CONTRACT_API_KEY}`);
        const others = Object.entries(headers).filter(([name]) => name !== 'authorization');
        expect(JSON.stringify(others)).not.toContain(CONTRACT_API_KEY);
      }
      const printed = unnamed.stdout + unnamed.stderr + toNamed.stdout + toNamed.stderr + byVariable.stdout + byVariable.stderr;
      expect(printed).not.toContain(CONTRACT_API_KEY);
      // The curl line it prints takes the key from the environment in a header file, never in an argument.
      expect(toNamed.stdout).toMatch(/^reproduce: curl .* -H @<\(printf '%s\\n' "authorization: Bearer \$\{PETSTORE_API_KEY\}"\)$/m);
      expect(printed).not.toContain('--api-key');
    } finally {
      await Promise.all([recorded.server.close(), named.server.close()]);
    }
  });
});
