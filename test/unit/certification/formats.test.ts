/**
 * A bundle's own formats read back, in milliseconds: manifest.json and
 * transcript.har against their schemas, and bytes that are no
 * bundle; each defect as data, worded by the one formatter.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { unpackBundle } from '../../../certification/bundle.js';
import { describeStep } from '../../../certification/format.js';
import { readManifest } from '../../../certification/manifest.js';
import { parseTranscript } from '../../../certification/transcript.js';
import { TransportError } from '../../../core/errors.js';
import { redactorFor } from '../../../core/redact.js';
import { renderTranscript, toTranscriptEntry, type RecordedExchange, type TranscriptEntry } from '../../../core/transcript.js';
import { MANIFEST_FORMAT, MANIFEST_FORMAT_2 } from '../../../spec/manifest-schema.js';

const manifest = {
  format: MANIFEST_FORMAT,
  product: { name: 'Acme Petstore', version: '2.4.1', contact: 'certification@acme.example' },
  fingerprints: ['curl', 'chrome'],
  tool: { name: 'petstore-conformance', version: '1.0.0' },
  suiteHash: `sha256:${'a'.repeat(64)}`,
  interfaceVersion: '1.0.0',
  seed: 1,
  numRuns: 40,
  load: 'smoke',
  namePrefix: 'pctest-x',
  environment: { node: 'v20.20.0', platform: 'linux', release: '6', arch: 'x64' },
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:01.000Z',
  target: 'http://127.0.0.1:8080/v1',
  certified: true,
  reasons: [],
  files: { 'report.json': 'b'.repeat(64) },
};
const manifestBytes = (value: unknown) => Buffer.from(JSON.stringify(value));
const exchange = (seq: number, x: Partial<RecordedExchange>): RecordedExchange => ({
  seq,
  meta: { operation: 'listPets', auth: 'valid', check: 'preflight' },
  request: { method: 'GET', url: 'http://h/v1/pets?limit=1', headers: { authorization: 'Bearer <API_KEY>' } },
  durationMs: 1.5,
  ...x,
});
const answered = exchange(1, {
  response: { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('[]'), truncated: false },
});
const failed = exchange(2, {
  request: { method: 'POST', url: 'http://h/v1/pets', headers: {}, body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) },
  error: new TransportError('PC_ERR_TIMEOUT', 'no answer'),
});
const redactor = redactorFor('Kq4-Vb7Pm2wQ-Zx81w-Tn3');
const har = (...entries: TranscriptEntry[]) => renderTranscript(entries);
const entry = toTranscriptEntry(answered, redactor);

describe('manifest.json', () => {
  it('a manifest as certify writes it is read', () => {
    expect(readManifest(manifestBytes(manifest))).toEqual({ manifest });
  });

  it('a manifest of format 2 (no product, no fingerprints) is read against its own schema; one of format 3 must have both', () => {
    const { product: _product, fingerprints: _fingerprints, ...earlier } = { ...manifest, format: MANIFEST_FORMAT_2 };
    expect(readManifest(manifestBytes(earlier))).toEqual({ manifest: earlier });
    expect(readManifest(manifestBytes({ ...earlier, product: manifest.product }))).toEqual({
      defect: { kind: 'schema', violations: [{ path: '/product', message: 'is not a known key' }] },
    });
    expect(readManifest(manifestBytes({ ...earlier, format: MANIFEST_FORMAT }))).toMatchObject({
      defect: { kind: 'schema', violations: [{ path: '/product', message: 'is missing' }] },
    });
  });

  it.each([
    ['not JSON', Buffer.from('{'), { kind: 'not-json' }, 'manifest.json: not JSON; nothing else in the bundle can be checked'],
    [
      'a manifest of the first format (a transcript of JSON lines)',
      manifestBytes({ ...manifest, format: 'petstore-conformance-certification/1' }),
      { kind: 'format', format: 'petstore-conformance-certification/1' },
      'manifest.json: not a certification manifest this version reads (format "petstore-conformance-certification/1", expected "petstore-conformance-certification/3" or "petstore-conformance-certification/2"); nothing else in the bundle can be checked',
    ],
    [
      'a hash that is no sha256',
      manifestBytes({ ...manifest, files: { 'report.json': 'x' } }),
      { kind: 'schema', violations: [{ path: '/files/report.json', message: 'must match pattern "^[0-9a-f]{64}$"' }] },
      'manifest.json: not a certification manifest (/files/report.json must match pattern "^[0-9a-f]{64}$"); nothing else in the bundle can be checked',
    ],
    [
      'a fingerprint the suite does not know',
      manifestBytes({ ...manifest, fingerprints: ['wget'] }),
      {
        kind: 'schema',
        violations: [
          {
            path: '/fingerprints/0',
            message: 'must be one of "curl", "python-requests", "go-http-client", "okhttp", "node-fetch", "chrome"',
          },
        ],
      },
      'manifest.json: not a certification manifest (/fingerprints/0 must be one of "curl", "python-requests", "go-http-client", "okhttp", "node-fetch", "chrome"); nothing else in the bundle can be checked',
    ],
    [
      'a key missing',
      manifestBytes({ ...manifest, certified: undefined }),
      { kind: 'schema', violations: [{ path: '/certified', message: 'is missing' }] },
      'manifest.json: not a certification manifest (/certified is missing); nothing else in the bundle can be checked',
    ],
  ])('%s is a defect, said in one line', (_label, bytes, defect, text) => {
    expect(readManifest(bytes)).toEqual({ defect });
    expect(describeStep({ code: 'MANIFEST_INVALID', defect: defect as never })).toEqual({ mark: '✗', text });
  });
});

describe('transcript.har', () => {
  it('an HTTP Archive as core/transcript.ts writes it is read back: a response, and a transport error with a body that is not UTF-8', () => {
    const entries = [entry, toTranscriptEntry(failed, redactor)];
    const parsed = parseTranscript(har(...entries));
    expect(parsed).toEqual({ entries });
    expect(entries[1]).toMatchObject({
      request: { postData: { text: 'e//+fQ==', _encoding: 'base64' } },
      response: { status: 0 },
      _error: { code: 'PC_ERR_TIMEOUT' },
    });
    expect(entry).toMatchObject({
      request: { queryString: [{ name: 'limit', value: '1' }] },
      response: { status: 200, content: { text: 'W10=', encoding: 'base64', mimeType: 'application/json' } },
    });
  });

  it.each([
    ['not JSON', '{', { kind: 'not-json' }, 'verdicts: not recomputed: transcript.har: not JSON'],
    [
      'a _seq twice',
      har(entry, entry),
      { kind: 'seq-repeated', entry: 1, seq: 1 },
      'verdicts: not recomputed: transcript.har: /log/entries/1 repeats _seq 1',
    ],
    [
      'a method the suite never sends',
      har({ ...entry, request: { ...entry.request, method: 'DELETE' as 'GET' } }),
      { kind: 'schema' },
      'verdicts: not recomputed: transcript.har: /log/entries/0/request/method must be one of "GET", "POST"',
    ],
    [
      'a body that is not base64',
      har({ ...entry, response: { ...entry.response, content: { ...entry.response.content, text: 'not base64!' } } }),
      { kind: 'schema' },
      'verdicts: not recomputed: transcript.har: /log/entries/0/response/content/text must match pattern "^[A-Za-z0-9+/]*={0,2}$"',
    ],
    [
      'an error with a response',
      har({ ...entry, _error: { code: 'PC_ERR_TLS', message: 'x' } }),
      { kind: 'schema' },
      'verdicts: not recomputed: transcript.har: /log/entries/0/response/status must be 0',
    ],
  ])('%s is a defect, said in one line', (_label, text, defect, words) => {
    const parsed = parseTranscript(text);
    expect(parsed).toMatchObject({ defect });
    if (!('defect' in parsed)) throw new Error('read');
    expect(describeStep({ code: 'TRANSCRIPT_INVALID', defect: parsed.defect }).text).toMatch(words);
  });
});

describe('bytes that are no bundle', () => {
  it.each([
    ['not gzip', Buffer.from('hello'), { layer: 'gzip', detail: 'it is not gzip-compressed' }, 'not a .tar.gz (it is not gzip-compressed)'],
    [
      'gzip of no tar',
      gzipSync(Buffer.from('not a tar archive at all '.repeat(50))),
      { layer: 'tar' },
      /^not a tar archive inside the gzip \(.+\)$/,
    ],
  ])('%s: one NOT_A_BUNDLE problem, no file', async (_label, bytes, problem, words) => {
    const contents = await unpackBundle(bytes);
    expect(contents.files.size).toBe(0);
    expect(contents.problems).toEqual([expect.objectContaining({ code: 'NOT_A_BUNDLE', ...problem })]);
    expect(describeStep(contents.problems[0]!).text).toMatch(words);
  });

  // 64 MiB of zeros, 64 KiB gzipped: past the archive's end (two zero blocks) nothing more is decompressed. Before, each
  // chunk was joined to all that came before it, in node-tar's buffer: 98 s for these bytes, 2 GiB never ended. The
  // test's bound is a hang's, thousands of times what the work takes.
  it('zeros past the archive end are not read: a small gzip of much nothing is answered at once', { timeout: 30_000 }, async () => {
    const contents = await unpackBundle(gzipSync(Buffer.alloc(64 * 1024 * 1024)));
    expect(contents.files.size).toBe(0);
    expect(contents.problems).toEqual([expect.objectContaining({ code: 'NOT_A_BUNDLE', layer: 'tar' })]);
  });
});
