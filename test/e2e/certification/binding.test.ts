/**
 * What a certificate binds: manifest.json names the product, the base URL,
 * the tool version, the seed, the client fingerprints and the times; `verify`
 * prints them, and with `--product` / `--base-url` fails for a bundle
 * presented for another product or origin. A bundle certified before the
 * manifest named them (format 2, test/fixtures/certification) is still read.
 * One certification against the reference, made once for the file.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseUrlDifferences, productDifferences } from '../../../certification/binding.js';
import { FINGERPRINT_IDS } from '../../../core/fingerprints.js';
import { TOOL_VERSION } from '../../../core/version.js';
import { startReference } from '../../../reference/server.js';
import type { ConformanceResult } from '../../../result/model.js';
import { DISTINCTIVE_KEY, type Ran, repackBundleFiles, runInProcess, tempDir, unpackBundleFiles } from '../../helpers.js';

const dir = tempDir();
const path = (name: string) => join(dir, name);
const PRODUCT = { name: 'Acme Petstore', version: '2.4.1', contact: 'certification@acme.example', description: 'the store' };
const BUNDLE = path('acme.tar.gz');
const FIXTURE = new URL('../../fixtures/certification/format-2.tar.gz', import.meta.url).pathname;
const FIXTURE_KEY = new URL('../../fixtures/certification/format-2.pub.pem', import.meta.url).pathname;
/** The base URL the fixture bundle was certified at. */
const FIXTURE_TARGET = 'http://127.0.0.1:46871/v1';

let certified: Ran;
let target: string;

beforeAll(async () => {
  writeFileSync(path('product.json'), JSON.stringify(PRODUCT));
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  writeFileSync(path('vendor.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(path('vendor.pub.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
  const reference = await startReference({ apiKey: DISTINCTIVE_KEY });
  target = reference.url;
  try {
    certified = await runInProcess(
      ['certify', '--base-url', `${reference.url}/`, '--product', path('product.json'), '--out', BUNDLE, '--sign-key', path('vendor.pem')],
      { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } },
    );
  } finally {
    await reference.close();
  }
}, 90_000);

const unpack = unpackBundleFiles;
const repack = (files: Map<string, Buffer>) => repackBundleFiles(files, 'edited.tar.gz');

const json = <T>(files: Map<string, Buffer>, name: string) => JSON.parse(files.get(name)!.toString()) as T;
const verify = (bundle: string, ...flags: string[]) => runInProcess(['verify', bundle, ...flags]);
/** The ✗ lines of verify's output. */
const problems = (ran: Pick<Ran, 'stdout'>) => ran.stdout.split('\n').filter((l) => l.startsWith('✗ '));
/** A product.json file of `product`, in the test's folder. */
function productFile(product: object): string {
  const file = path(`product-${createHash('sha256').update(JSON.stringify(product)).digest('hex').slice(0, 8)}.json`);
  writeFileSync(file, JSON.stringify(product));
  return file;
}

describe('the certificate binds what was tested', () => {
  it('manifest.json names the product, the base URL, the tool version, the seed, the client fingerprints and the times', async () => {
    expect(certified.code, certified.stderr).toBe(0);
    const files = await unpack(BUNDLE);
    const manifest = json<Record<string, unknown>>(files, 'manifest.json');
    const report = json<ConformanceResult>(files, 'report.json');
    expect(manifest).toMatchObject({
      format: 'petstore-conformance-certification/3',
      // The description is free text: product.json, bound by its hash, keeps it.
      product: { name: 'Acme Petstore', version: '2.4.1', contact: 'certification@acme.example' },
      // Given with a trailing slash; named as the suite names a base URL.
      target,
      tool: { name: 'petstore-conformance', version: TOOL_VERSION },
      seed: report.seed,
      fingerprints: [...FINGERPRINT_IDS],
      startedAt: report.startedAt,
      finishedAt: report.finishedAt,
    });
    expect(manifest.product).not.toHaveProperty('description');
  });

  it('verify prints them', async () => {
    const files = await unpack(BUNDLE);
    const manifest = json<{ seed: number; startedAt: string; finishedAt: string }>(files, 'manifest.json');
    const ran = await verify(BUNDLE);
    expect(ran.code, ran.stdout).toBe(0);
    const header = ran.stdout.split('\n\n')[0]!.split('\n');
    expect(header).toContain('product:  Acme Petstore 2.4.1 (contact: certification@acme.example)');
    expect(header).toContain(`base URL: ${target}`);
    expect(header).toContain(`tested:   from ${manifest.startedAt} to ${manifest.finishedAt}, seed ${manifest.seed}`);
    const clients = header.find((l) => l.startsWith('clients:  '));
    expect(clients).toBeDefined();
    for (const id of FINGERPRINT_IDS) expect(clients).toContain(`${id} (`);
    expect(header).toContainEqual(
      expect.stringMatching(new RegExp(`^tool: {5}petstore-conformance ${TOOL_VERSION.replace(/\./g, '\\.')} on Node `)),
    );
  });

  it('--product of the same product (its description aside) and --base-url of the same origin written otherwise (scheme and host case, trailing slash) verify', async () => {
    const url = new URL(target);
    const written = `HTTP://${url.host.toUpperCase()}${url.pathname}//`;
    const ran = await verify(BUNDLE, '--product', productFile({ ...PRODUCT, description: 'another text' }), '--base-url', written);
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.stdout).toContain('✓ product: certified for the product given, Acme Petstore 2.4.1 (contact: certification@acme.example)');
    expect(ran.stdout).toContain(`✓ base URL: certified at the base URL given, ${target}`);
    expect(ran.stdout).toMatch(/^VERIFIED: /m);
  });

  it.each([
    ['version', { ...PRODUCT, version: '2.5.0' }, 'the version differs (bundle "2.4.1", given "2.5.0")'],
    ['name', { ...PRODUCT, name: 'Other Store' }, 'the name differs (bundle "Acme Petstore", given "Other Store")'],
    [
      'contact',
      { ...PRODUCT, contact: 'https://other.example/support' },
      'the contact differs (bundle "certification@acme.example", given "https://other.example/support")',
    ],
  ])('--product naming another product (its %s) fails: exit 1, one line naming the field', async (_field, product, words) => {
    const ran = await verify(BUNDLE, '--product', productFile(product));
    expect(ran.code, ran.stdout).toBe(1);
    expect(problems(ran)).toEqual([`✗ product: the bundle was certified for Acme Petstore 2.4.1, not for the product given: ${words}`]);
    expect(ran.stdout).toMatch(/^NOT VERIFIED: 1 problem\(s\) above$/m);
    expect(ran.stdout + ran.stderr).not.toContain(DISTINCTIVE_KEY);
  });

  it.each([
    [
      'the port',
      (u: URL) => `http://${u.hostname}:${Number(u.port) + 1}${u.pathname}`,
      (u: URL) => `the port differs (bundle "${u.port}", given "${Number(u.port) + 1}")`,
    ],
    ['the scheme', (u: URL) => `https://${u.host}${u.pathname}`, () => 'the scheme differs (bundle "http", given "https")'],
    ['the host', (u: URL) => `http://localhost:${u.port}${u.pathname}`, () => 'the host differs (bundle "127.0.0.1", given "localhost")'],
    ['the path (its letter case counts)', (u: URL) => `http://${u.host}/V1`, () => 'the path differs (bundle "/v1", given "/V1")'],
  ])('--base-url of another origin or path (%s) fails: exit 1, one line saying what differs', async (_what, other, words) => {
    const url = new URL(target);
    const given = other(url);
    const ran = await verify(BUNDLE, '--base-url', given);
    expect(ran.code, ran.stdout).toBe(1);
    expect(problems(ran)).toEqual([
      `✗ base URL: the bundle was certified at ${target}, not at the base URL given (${given}): ${words(url)}`,
    ]);
  });

  it('a base URL that is none, or that carries credentials, is a usage error: exit 2, one line, the password not in it', async () => {
    for (const [given, words] of [
      ['127.0.0.1/v1', /--base-url "127\.0\.0\.1\/v1" is not an absolute URL/],
      ['http://user:s3cr3t-pass@127.0.0.1/v1', /--base-url must not carry credentials/],
    ] as const) {
      const ran = await verify(BUNDLE, '--base-url', given);
      expect(ran.code).toBe(2);
      expect(ran.stderr.trim().split('\n')).toHaveLength(1);
      expect(ran.stderr).toMatch(words);
      expect(ran.stderr).not.toContain('s3cr3t-pass');
    }
  });

  it('product.json swapped for another product, its hash updated (unsigned): the manifest still names the product certified, and says they differ', async () => {
    const files = await unpack(BUNDLE);
    const other = `${JSON.stringify({ ...PRODUCT, version: '9.9.9' }, null, 2)}\n`;
    const manifest = json<{ files: Record<string, string> }>(files, 'manifest.json');
    manifest.files['product.json'] = createHash('sha256').update(other).digest('hex');
    files.set('product.json', Buffer.from(other));
    files.set('manifest.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    files.delete('manifest.sig');
    const edited = await repack(files);
    const ran = await verify(edited);
    expect(ran.code, ran.stdout).toBe(1);
    expect(problems(ran)).toEqual(['✗ product.json and manifest.json name different products: version "9.9.9" against "2.4.1"']);
    // The manifest's product is the one compared: asked for the product of the swapped file, verify names the difference too.
    const asked = await verify(edited, '--product', productFile({ ...PRODUCT, version: '9.9.9' }));
    expect(problems(asked)).toContain(
      '✗ product: the bundle was certified for Acme Petstore 2.4.1, not for the product given: the version differs (bundle "2.4.1", given "9.9.9")',
    );
  });
});

describe('a bundle certified before the manifest named the product and fingerprints (format 2, made by the code of e42da02)', () => {
  it('is read: signature and files check, its facts are printed, the product and base URL it binds (through product.json and target) are compared', async () => {
    const ran = await verify(
      FIXTURE,
      '--public-key',
      FIXTURE_KEY,
      '--product',
      productFile({ name: 'Acme Petstore', version: '2.4.1', contact: 'certification@acme.example' }),
      '--base-url',
      `${FIXTURE_TARGET}/`,
    );
    const header = ran.stdout.split('\n\n')[0]!.split('\n');
    expect(header).toContain('product:  Acme Petstore 2.4.1 (contact: certification@acme.example)');
    expect(header).toContain(`base URL: ${FIXTURE_TARGET}`);
    expect(header).toContain('tested:   from 2026-11-27T03:41:47.469Z to 2026-11-27T03:41:51.920Z, seed 20301205');
    expect(header).toContain("clients:  the tool's own (petstore-conformance); a manifest of format 2 records no client fingerprints");
    expect(ran.stdout).toContain('✓ signature: manifest.json is signed by the given Ed25519 key');
    expect(ran.stdout).toContain('✓ files: all 5 match their sha256 in manifest.json');
    expect(ran.stdout).toContain('✓ product: certified for the product given, Acme Petstore 2.4.1 (contact: certification@acme.example)');
    expect(ran.stdout).toContain(`✓ base URL: certified at the base URL given, ${FIXTURE_TARGET}`);
    // Made by other code, the suite hash differs (any change of the suite does that), and the recomputation may diverge
    // where the suite changed since; nothing about the manifest, its files, signature, product or base URL is a problem.
    expect(problems(ran).filter((l) => /^✗ (manifest\.json|signature|product|base URL|[a-z]+\.(json|xml|html|har|sig):)/.test(l))).toEqual(
      [],
    );
    const other = await verify(FIXTURE, '--base-url', 'http://127.0.0.1:46872/v1');
    expect(problems(other)).toContain(
      `✗ base URL: the bundle was certified at ${FIXTURE_TARGET}, not at the base URL given (http://127.0.0.1:46872/v1): the port differs (bundle "46871", given "46872")`,
    );
    expect(other.code).toBe(1);
  });
});

describe('binding, unit', () => {
  it.each([
    ['http://example.com/v1', 'HTTP://EXAMPLE.COM:80/v1/'],
    ['https://example.com/v1', 'https://Example.com:443/v1'],
    ['http://example.com', 'http://example.com/'],
    ['http://[::1]:8080/a/b', 'http://[0:0:0:0:0:0:0:1]:8080/a/b//'],
  ])('%s and %s name the same base URL', (bundle, given) => {
    expect(baseUrlDifferences(bundle, given)).toEqual([]);
  });

  it.each([
    ['http://example.com/v1', 'http://example.com:8080/v1', [{ field: 'port', bundle: '80', given: '8080' }]],
    [
      'http://example.com/v1',
      'https://example.com/v1',
      [
        { field: 'scheme', bundle: 'http', given: 'https' },
        { field: 'port', bundle: '80', given: '443' },
      ],
    ],
    ['http://example.com/v1', 'http://example.com/v2', [{ field: 'path', bundle: '/v1', given: '/v2' }]],
    ['http://example.com/v1', 'http://www.example.com/v1', [{ field: 'host', bundle: 'example.com', given: 'www.example.com' }]],
  ])('%s against %s: each part that differs', (bundle, given, differences) => {
    expect(baseUrlDifferences(bundle, given)).toEqual(differences);
  });

  it('products differ by name, version or contact, never by their description', () => {
    const product = { name: 'A', version: '1', contact: 'a@example.com' };
    expect(productDifferences(product, { ...product, description: 'x' } as typeof product)).toEqual([]);
    expect(productDifferences(product, { ...product, version: '2', contact: 'b@example.com' })).toEqual([
      { field: 'version', bundle: '1', given: '2' },
      { field: 'contact', bundle: 'a@example.com', given: 'b@example.com' },
    ]);
  });
});
