/**
 * A bundle's own formats read back, in milliseconds: manifest.json and each
 * line of transcript.jsonl against their schemas, and bytes that are no
 * bundle; each defect as data, worded by the one formatter.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { unpackBundle } from '../../certification/bundle.js';
import { describeStep } from '../../certification/format.js';
import { readManifest } from '../../certification/manifest.js';
import { parseTranscript } from '../../certification/transcript.js';
import { MANIFEST_FORMAT } from '../../spec/manifest-schema.js';

const manifest = {
  format: MANIFEST_FORMAT,
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
const entry = { seq: 1, meta: { operation: 'listPets', auth: 'valid', check: 'preflight' }, request: { method: 'GET', url: 'http://h/v1/pets', headers: { authorization: 'Bearer <API_KEY>' } }, response: { status: 200, headers: {}, body: 'W10=', truncated: false }, durationMs: 1.5 };
const lines = (...entries: unknown[]) => entries.map((e) => `${JSON.stringify(e)}\n`).join('');

describe('manifest.json', () => {
  it('a manifest as certify writes it is read', () => {
    expect(readManifest(manifestBytes(manifest))).toEqual({ manifest });
  });

  it.each([
    ['not JSON', Buffer.from('{'), { kind: 'not-json' }, 'manifest.json: not JSON; nothing else in the bundle can be checked'],
    ['another format', manifestBytes({ ...manifest, format: 'petstore-conformance-certification/2' }), { kind: 'format', format: 'petstore-conformance-certification/2' }, 'manifest.json: not a certification manifest this version reads (format "petstore-conformance-certification/2", expected "petstore-conformance-certification/1"); nothing else in the bundle can be checked'],
    ['a hash that is no sha256', manifestBytes({ ...manifest, files: { 'report.json': 'x' } }), { kind: 'schema', violations: [{ path: '/files/report.json', message: 'must match pattern "^[0-9a-f]{64}$"' }] }, 'manifest.json: not a certification manifest (/files/report.json must match pattern "^[0-9a-f]{64}$"); nothing else in the bundle can be checked'],
    ['a key missing', manifestBytes({ ...manifest, certified: undefined }), { kind: 'schema', violations: [{ path: '/', message: "must have required property 'certified'" }] }, "manifest.json: not a certification manifest (/ must have required property 'certified'); nothing else in the bundle can be checked"],
  ])('%s is a defect, said in one line', (_label, bytes, defect, text) => {
    expect(readManifest(bytes)).toEqual({ defect });
    expect(describeStep({ code: 'MANIFEST_INVALID', defect: defect as never })).toEqual({ mark: '✗', text });
  });
});

describe('transcript.jsonl', () => {
  it('lines as core/transcript.ts writes them are read, a transport error in place of a response too', () => {
    const failed = { ...entry, seq: 2, response: undefined, error: { code: 'PC_ERR_TIMEOUT', message: 'no answer' } };
    expect(parseTranscript(lines(entry, failed))).toEqual({ entries: [entry, JSON.parse(JSON.stringify(failed))] });
  });

  it.each([
    ['a line that is not JSON', `${lines(entry)}{\n`, { line: 2, defect: { kind: 'not-json' } }, 'verdicts: not recomputed: transcript.jsonl line 2: not JSON'],
    ['a seq twice', lines(entry, entry), { line: 2, defect: { kind: 'seq-repeated', seq: 1 } }, 'verdicts: not recomputed: transcript.jsonl line 2: seq 1 appears twice'],
    ['a method the suite never sends', lines({ ...entry, request: { ...entry.request, method: 'DELETE' } }), { line: 1 }, 'verdicts: not recomputed: transcript.jsonl line 1: /request/method must be equal to one of the allowed values: "GET", "POST"'],
    ['a body that is not base64', lines({ ...entry, response: { ...entry.response, body: 'not base64!' } }), { line: 1 }, 'verdicts: not recomputed: transcript.jsonl line 1: /response/body must match pattern "^[A-Za-z0-9+/]*={0,2}$"'],
    ['a response and an error both', lines({ ...entry, error: { code: 'PC_ERR_TLS', message: 'x' } }), { line: 1 }, 'verdicts: not recomputed: transcript.jsonl line 1: / must match exactly one schema in oneOf'],
  ])('%s is the first bad line, said in one line', (_label, text, expected, words) => {
    const parsed = parseTranscript(text);
    expect(parsed).toMatchObject(expected);
    if ('entries' in parsed) throw new Error('read');
    expect(describeStep({ code: 'TRANSCRIPT_INVALID', line: parsed.line, defect: parsed.defect }).text).toBe(words);
  });
});

describe('bytes that are no bundle', () => {
  it.each([
    ['not gzip', Buffer.from('hello'), { layer: 'gzip', detail: 'it is not gzip-compressed' }, 'not a .tar.gz (it is not gzip-compressed)'],
    ['gzip of no tar', gzipSync(Buffer.from('not a tar archive at all '.repeat(50))), { layer: 'tar' }, /^not a tar archive inside the gzip \(.+\)$/],
  ])('%s: one NOT_A_BUNDLE problem, no file', async (_label, bytes, problem, words) => {
    const contents = await unpackBundle(bytes);
    expect(contents.files.size).toBe(0);
    expect(contents.problems).toEqual([expect.objectContaining({ code: 'NOT_A_BUNDLE', ...problem })]);
    expect(describeStep(contents.problems[0]!).text).toMatch(words);
  });
});
