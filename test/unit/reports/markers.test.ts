/**
 * The markers that tell a file the suite wrote from a user's file of the same
 * name (reports/markers.ts, the matrix's, the bundle's, export-load's): every
 * format as the suite renders it is known, within the bytes its marker reads;
 * a lookalike of another tool is not.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BUNDLE_MARKER, packBundle } from '../../../certification/bundle.js';
import { renderArtillery } from '../../../suites/load/export/artillery.js';
import { renderK6 } from '../../../suites/load/export/k6.js';
import { EXPORTED_MARKER } from '../../../suites/load/export/script.js';
import type { Marker } from '../../../core/safe-write.js';
import { renderHtml } from '../../../reports/html.js';
import { renderJson } from '../../../reports/json.js';
import { renderJunit } from '../../../reports/junit.js';
import { GENERATOR_META, REPORT_MARKERS, reportMarkerOf } from '../../../reports/markers.js';
import { badgeFor, matrixMarkerOf, renderMatrixHtml, renderMatrixMarkdown } from '../../../reports/matrix.js';
import { builtinProfiles, validateProfile } from '../../../suites/load/profiles.js';
import { resultFixture } from '../../fixtures/result.js';

/** What the marker says of a file holding `content`, given only the bytes it reads, as core/safe-write.ts gives them. */
const knows = (marker: Marker | undefined, content: string | Uint8Array) => marker!.test(Buffer.from(content).subarray(0, marker!.bytes));

const result = resultFixture({ 'LIST-LIMIT-DEFAULT': 'fail' });
const columns = [{ label: 'acme', result, evidence: 'report.html', evidenceKind: 'html' as const }];

describe('the report files', () => {
  it('report.json, junit.xml and report.html as rendered are known; a long target in the page title too', () => {
    expect(knows(REPORT_MARKERS.json, renderJson(result))).toBe(true);
    // `tool` first, whatever order the object was built in.
    const { tool, ...rest } = result;
    expect(knows(REPORT_MARKERS.json, renderJson({ ...rest, tool }))).toBe(true);
    expect(knows(REPORT_MARKERS.junit, renderJunit(result))).toBe(true);
    expect(knows(REPORT_MARKERS.html, renderHtml(result))).toBe(true);
    expect(knows(REPORT_MARKERS.html, renderHtml({ ...result, target: `http://127.0.0.1:1/${'a'.repeat(4000)}` }))).toBe(true);
    expect(reportMarkerOf('junit.xml')).toBe(REPORT_MARKERS.junit);
    expect(reportMarkerOf('notes.txt')).toBeUndefined();
  });

  it('a page of 1.0.0, written before pages had a generator meta, is known by its head', () => {
    const page = renderHtml(result);
    expect(page).toContain(GENERATOR_META);
    expect(knows(REPORT_MARKERS.html, page.replace(`${GENERATOR_META}\n`, ''))).toBe(true);
  });

  it.each([
    ['json', '{"tool": {"name": "jest"}}'],
    ['json', '{}'],
    ['json', '{"results": [], "tool": {"name": "petstore-conformance"}}'],
    ['junit', '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="jest tests" tests="3">'],
    ['junit', '<testsuite name="petstore-conformance">'],
    ['html', '<!doctype html>\n<html><head><title>Coverage report</title></head>'],
    ['html', 'x\n'],
    ['html', ''],
  ] as const)('a %s file of someone else (%j) is not', (kind, content) => {
    expect(knows(REPORT_MARKERS[kind], content)).toBe(false);
  });
});

describe("the matrix's files", () => {
  it('matrix.html, matrix.md and a badge as rendered are known', () => {
    expect(knows(matrixMarkerOf('matrix.html'), renderMatrixHtml(columns))).toBe(true);
    expect(knows(matrixMarkerOf('matrix.md'), renderMatrixMarkdown(columns))).toBe(true);
    expect(knows(matrixMarkerOf('badge-1-acme.json'), `${JSON.stringify(badgeFor(result))}\n`)).toBe(true);
  });

  it('lookalikes are not, and a name not of the matrix has no marker', () => {
    expect(knows(matrixMarkerOf('matrix.md'), '# Compatibility matrix\n\nOur own notes.\n')).toBe(false);
    expect(knows(matrixMarkerOf('badge-1-acme.json'), '{}')).toBe(false);
    expect(
      knows(matrixMarkerOf('badge-1-acme.json'), JSON.stringify({ schemaVersion: 1, label: 'coverage', message: '93%', color: 'green' })),
    ).toBe(false);
    expect(knows(matrixMarkerOf('badge-1-acme.json'), JSON.stringify({ ...badgeFor(result), mine: true }))).toBe(false);
    expect(matrixMarkerOf('badge-notes.json')).toBeUndefined();
    expect(matrixMarkerOf('report.json')).toBeUndefined();
  });
});

describe("certify's bundle and export-load's scripts", () => {
  it('a bundle (its manifest first) is known; another .tar.gz, plain gzip and a gzip that inflates past the bound are not', async () => {
    const manifest = `${JSON.stringify({ format: 'petstore-conformance-certification/2', tool: result.tool }, null, 2)}\n`;
    const at = new Date('2025-01-01T00:00:00Z');
    expect(
      knows(
        BUNDLE_MARKER,
        await packBundle(
          new Map([
            ['manifest.json', manifest],
            ['report.json', renderJson(result)],
          ]),
          at,
        ),
      ),
    ).toBe(true);
    expect(knows(BUNDLE_MARKER, await packBundle(new Map([['backup.sql', 'select 1;\n']]), at))).toBe(false);
    expect(knows(BUNDLE_MARKER, gzipSync(manifest))).toBe(false);
    expect(knows(BUNDLE_MARKER, gzipSync(Buffer.alloc(8 * 1024 * 1024)))).toBe(false);
    expect(knows(BUNDLE_MARKER, 'not gzip')).toBe(false);
  });

  it("a k6 script, an Artillery script and its processor are known; someone's own script is not", () => {
    const profile = { ...builtinProfiles.smoke, name: 'smoke' };
    const input = { profile, thresholds: validateProfile(profile), command: 'export-load --profile smoke', scriptName: 'gate.yml' };
    expect(knows(EXPORTED_MARKER, renderK6(input).script)).toBe(true);
    const artillery = renderArtillery(input);
    expect(knows(EXPORTED_MARKER, artillery.script)).toBe(true);
    for (const extra of Object.values(artillery.extra)) expect(knows(EXPORTED_MARKER, extra)).toBe(true);
    expect(knows(EXPORTED_MARKER, "// my load test\nimport http from 'k6/http';\n")).toBe(false);
  });
});
