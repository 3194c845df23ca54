/**
 * The library: a program that calls runConformance writes the same reports the
 * CLI writes, with the reporters exported from the package entry (the built
 * dist/index.js, resolved by the package's own name as an installed package is);
 * one that calls certify and verifyBundle makes and checks a bundle without the CLI.
 */
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import { describe, expect, it, vi } from 'vitest';
import { DISTINCTIVE_KEY, requireProgram, tempDir, withServer } from '../../helpers.js';

// The longest step certifies and verifies every kind of damage: up to 8 s on a quiet two-core machine, ×7 for a shared runner.
vi.setConfig({ testTimeout: 60_000 });

/** The package entry, by name: package.json's "exports" (a package may import itself by its name). */
type Library = typeof import('../../../index.js');
const load = async (): Promise<Library> => (await import(/* @vite-ignore */ ['petstore', 'conformance'].join('-'))) as Library;

describe("the library names its options, never the CLI's flags", () => {
  it.each([
    [{ baseUrl: 'ftp://h/v1' }, 'baseUrl must use http or https; write it as http://host:port/path, e.g. http://127.0.0.1:8080/v1'],
    [{ numRuns: 0 }, 'numRuns must be an integer from 1 to 10000, got 0'],
    [{ only: ['NOT-A-RULE'] }, 'only: unknown rule id NOT-A-RULE (see petstore-conformance rules)'],
    [{ load: 'huge' }, /^load: unknown profile "huge"/],
    [
      { connection: { headers: { Authorization: 'Bearer x' } } },
      /^connection\.headers Authorization: .*pass the key with apiKey, never as a header$/,
    ],
  ])('%o is refused before anything is sent: %s', async (options, message) => {
    const library = await load();
    const refused = library.runConformance({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: DISTINCTIVE_KEY, ...options });
    await expect(refused).rejects.toThrow(library.PcError);
    await expect(refused).rejects.toThrow(message);
  });
});

describe('the package entry exports the reporters', () => {
  it('renders report.json, junit.xml, report.html, the console summary and the GitHub summary from a result', async () => {
    expect(createRequire(import.meta.url).resolve('petstore-conformance')).toBe(
      new URL('../../../dist/index.js', import.meta.url).pathname,
    );
    const library = await load();
    expect(library.renderJunit).toBeTypeOf('function');
    const result = await withServer({}, (baseUrl) => library.runConformance({ baseUrl, apiKey: DISTINCTIVE_KEY, seed: 12, numRuns: 3 }));
    expect(result.summary.verdict).toBe('conformant');

    const json = library.renderJson(result);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(result)));

    const dir = tempDir();
    const junit = join(dir, library.JUNIT_REPORT_FILE);
    writeFileSync(junit, library.renderJunit(result, { hostname: 'library-host' }));
    const xmllint = requireProgram('xmllint', 'libxml2-utils');
    execFileSync(xmllint, ['--noout', '--schema', new URL('../../fixtures/junit/jenkins-junit.xsd', import.meta.url).pathname, junit], {
      stdio: 'pipe',
    });

    const html = library.renderHtml(result, { reportJson: 'out/report.json' });
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('Conformant');

    const summary = library.renderSummary(result, [], false);
    expect(summary).toMatch(/^CONFORMANT: 24 of 24 MUST rules passed$/m);
    expect(library.renderVerdictLine(result, false)).toBe(`CONFORMANT: ${result.summary.reason}`);
    expect(library.renderStepSummary(result)).toMatch(/^## petstore-conformance: ✅ conformant/);
    expect(library.renderAnnotations(result)).toBe('');
    expect(library.exitCode(result.summary)).toBe(library.EXIT.conformant);
    expect(library.REPORTER_NAMES).toEqual(['json', 'junit', 'html', 'github', 'console']);
    for (const text of [json, html, summary]) expect(text).not.toContain(DISTINCTIVE_KEY);
  });

  it('its file reporters write into a report directory, as the CLI does', async () => {
    const library = await load();
    const result = await withServer({}, (baseUrl) =>
      library.runConformance({ baseUrl, apiKey: DISTINCTIVE_KEY, seed: 13, numRuns: 2, only: ['LIST-LIMIT-DEFAULT'] }),
    );
    const reportDir = tempDir();
    const ctx = {
      reportDir,
      out: process.stdout,
      progress: process.stderr,
      color: false,
      interactive: false,
      env: {},
      verbosity: 'quiet' as const,
    };
    const written: string[] = [];
    for (const name of ['json', 'junit', 'html'] as const) written.push(...(await library.reporters[name](ctx).onRunEnd!(result, written)));
    expect(written).toEqual(['report.json', 'junit.xml', 'report.html'].map((f) => join(reportDir, f)));
  });
});

describe('the package entry certifies and verifies without the CLI', () => {
  it('certify gives the bundle as bytes; verifyBundle finds nothing wrong with it, and each kind of damage as a problem with its code', async () => {
    const library = await load();
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const product = { name: 'Acme Petstore', version: '2.4.1', contact: 'certification@acme.example' };
    const events: string[] = [];
    const { bundle, manifest, result } = await withServer({}, (baseUrl) =>
      library.certify({ baseUrl, apiKey: DISTINCTIVE_KEY, product, signKey: privateKey, onEvent: (e) => events.push(e.type) }),
    );
    expect(manifest).toMatchObject({
      certified: true,
      reasons: [],
      numRuns: library.CERTIFICATION.numRuns,
      load: library.CERTIFICATION.load,
      target: result.target,
    });
    expect(events.at(-1)).toBe('run-end');
    expect(bundle.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));

    const verified = await library.verifyBundle(bundle, { publicKey });
    expect(verified.problems).toEqual([]);
    expect(verified.steps.map((s) => s.code)).toEqual([
      'SIGNATURE_VALID',
      'FILES_MATCH',
      'SUITE_MATCHES',
      'VERDICTS_AGREE',
      'LOAD_NOT_RECOMPUTED',
      'DECISION_FOLLOWS',
    ]);
    expect(verified.product).toEqual(product);
    expect(library.renderVerification(verified, 'acme.tar.gz')).toMatch(/^VERIFIED: .*the bundle's decision: CERTIFIED$/m);

    // Another key: the signature is the one problem.
    const other = generateKeyPairSync('ed25519').publicKey;
    const wrongKey = await library.verifyBundle(bundle, { publicKey: other });
    expect(wrongKey.problems).toEqual([{ code: 'SIGNATURE_INVALID' }]);
    expect(library.describeStep(wrongKey.problems[0]!)).toEqual({
      mark: '✗',
      text: expect.stringMatching(/^signature: manifest\.sig is not a valid signature of manifest\.json/),
    });

    // A file changed after the manifest was made: its hash, expected and actual, as data.
    const files = await unpack(bundle);
    for (const [name, content] of files) expect(content.includes(DISTINCTIVE_KEY), name).toBe(false);
    const junit = Buffer.concat([files.get('junit.xml')!, Buffer.from('<!-- edited -->\n')]);
    const changed = await library.verifyBundle(await repack(new Map([...files, ['junit.xml', junit]])));
    expect(changed.problems).toEqual([
      {
        code: 'HASH_MISMATCH',
        file: 'junit.xml',
        expected: manifest.files['junit.xml'],
        actual: createHash('sha256').update(junit).digest('hex'),
      },
    ]);

    // A rule's outcome edited in report.json, its hash updated: recomputed from the transcript, it disagrees.
    const report = JSON.parse(files.get('report.json')!.toString()) as typeof result;
    report.rules.find((r) => r.id === 'LIST-LIMIT-DEFAULT')!.outcome = 'fail';
    const edited = Buffer.from(JSON.stringify(report));
    const forged = { ...manifest, files: { ...manifest.files, 'report.json': createHash('sha256').update(edited).digest('hex') } };
    const recomputed = await library.verifyBundle(
      await repack(new Map([...files, ['report.json', edited], ['manifest.json', Buffer.from(JSON.stringify(forged))]])),
    );
    expect(recomputed.problems).toContainEqual({
      code: 'RULE_DIFFERS',
      rule: 'LIST-LIMIT-DEFAULT',
      severity: 'MUST',
      recorded: 'fail',
      recomputed: 'pass',
    });

    expect((await library.verifyBundle(Buffer.from('not a bundle'))).problems).toEqual([
      { code: 'NOT_A_BUNDLE', layer: 'gzip', detail: 'it is not gzip-compressed' },
    ]);
  });

  it('certify refuses an invalid product before anything is sent', async () => {
    const library = await load();
    const refused = library.certify({
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: DISTINCTIVE_KEY,
      product: { name: 'x', version: '1', contact: 'call us' },
    });
    await expect(refused).rejects.toThrow(library.ProductRefused);
    await expect(refused).rejects.toMatchObject({
      reason: '/contact must match format "email": it must be an email address or an http(s) URL',
      code: 'PC_ERR_USAGE',
    });
  });
});

/** The files of a bundle's bytes, extracted with tar. */
async function unpack(bundle: Uint8Array): Promise<Map<string, Buffer>> {
  const dir = tempDir();
  const to = join(dir, 'files');
  writeFileSync(join(dir, 'bundle.tar.gz'), bundle);
  mkdirSync(to);
  await tar.x({ file: join(dir, 'bundle.tar.gz'), cwd: to });
  return new Map(readdirSync(to).map((name) => [name, readFileSync(join(to, name))]));
}

/** A bundle's bytes of `files`, packed with tar. */
async function repack(files: ReadonlyMap<string, Buffer>): Promise<Buffer> {
  const from = tempDir();
  for (const [name, content] of files) writeFileSync(join(from, name), content);
  return tar.c({ gzip: true, cwd: from }, [...files.keys()]).concat();
}
