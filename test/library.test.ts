/**
 * The library: a program that calls runConformance writes the same reports the
 * CLI writes, with the reporters exported from the package entry (the built
 * dist/index.js, resolved by the package's own name as an installed package is).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISTINCTIVE_KEY, requireProgram, tempDir, withServer } from './helpers.js';

/** The package entry, by name: package.json's "exports" (a package may import itself by its name). */
type Library = typeof import('../index.js');
const load = async (): Promise<Library> => (await import(/* @vite-ignore */ ['petstore', 'conformance'].join('-'))) as Library;

describe('the package entry exports the reporters', () => {
  it('renders report.json, junit.xml, report.html, the console summary and the GitHub summary from a result', async () => {
    expect(createRequire(import.meta.url).resolve('petstore-conformance')).toBe(new URL('../dist/index.js', import.meta.url).pathname);
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
    execFileSync(xmllint, ['--noout', '--schema', new URL('./fixtures/junit/jenkins-junit.xsd', import.meta.url).pathname, junit], { stdio: 'pipe' });

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
    const result = await withServer({}, (baseUrl) => library.runConformance({ baseUrl, apiKey: DISTINCTIVE_KEY, seed: 13, numRuns: 2, only: ['LIST-LIMIT-DEFAULT'] }));
    const reportDir = tempDir();
    const ctx = { reportDir, out: process.stdout, progress: process.stderr, color: false, interactive: false, env: {}, verbosity: 'quiet' as const };
    const written: string[] = [];
    for (const name of ['json', 'junit', 'html'] as const) written.push(...(await library.reporters[name](ctx).onRunEnd!(result, written)));
    expect(written).toEqual(['report.json', 'junit.xml', 'report.html'].map((f) => join(reportDir, f)));
  });
});
