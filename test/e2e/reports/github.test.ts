import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeData, renderAnnotations, renderStepSummary } from '../../../reports/github.js';
import { exitCode } from '../../../result/policy.js';
import type { ConformanceResult } from '../../../result/model.js';
import { smokeLoad } from '../../fixtures/load-result.js';
import { resultFixture, withOpenCases } from '../../fixtures/result.js';
import type { Handler } from '../../../reference/handler.js';
import { DISTINCTIVE_KEY, runInProcess, tempDir, withServer } from '../../helpers.js';

/** A variant without the Sunset header (a SHOULD warning) and with Error.status written as a string (a MUST failure). */
const broken =
  (inner: Handler): Handler =>
  async (request) => {
    const answer = await inner(request);
    const { sunset: _dropped, ...headers } = answer.headers;
    const body =
      answer.status >= 400 && typeof answer.body === 'object' ? { ...(answer.body as object), status: String(answer.status) } : answer.body;
    return { ...answer, headers, body };
  };

describe('GitHub Actions output', () => {
  it('escapes workflow command data', () => {
    expect(escapeData('50% done\r\nnext')).toBe('50%25 done%0D%0Anext');
  });

  it('writes ::error for failing MUST rules, ::warning for SHOULD warnings, and a step summary', async () => {
    await withServer({ wrap: broken }, async (url) => {
      const dir = tempDir();
      const summary = join(dir, 'summary.md');
      const ran = await runInProcess(['--base-url', url, '--num-runs', '5', '--report-dir', dir], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
      });
      expect(ran.code).toBe(1);
      expect(ran.stdout).toMatch(/^::error title=ERROR-SCHEMA \(MUST\) Every error response has an Error body::Expected .*%0Acurl /m);
      expect(ran.stdout).toMatch(/^::warning title=GET-SUNSET-HEADER \(SHOULD\) .*::Expected Sunset: Thu, 05 Dec 2030/m);
      const markdown = readFileSync(summary, 'utf8');
      expect(markdown).toMatch(/^## petstore-conformance: ❌ non-conformant/);
      expect(markdown).toMatch(/\| ERROR-SCHEMA \| MUST \| ❌ fail \|/);
      expect(markdown).toMatch(/\| GET-SUNSET-HEADER \| SHOULD \| ⚠️ warning \|/);
      expect(ran.stdout + markdown).not.toContain(DISTINCTIVE_KEY);
    });
  });

  it('a step summary that is a link is refused, and the line names where it is, not the report folder', async () => {
    const dir = tempDir();
    const summary = join(dir, 'summary.md');
    writeFileSync(join(dir, 'target.md'), 'x');
    symlinkSync(join(dir, 'target.md'), summary);
    const reports = join(dir, 'reports');
    const ran = await runInProcess(['--embedded', '--load', 'none', '--num-runs', '2', '--report-dir', reports], {
      env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
    });
    expect(ran.stderr).toContain(
      `could not write GITHUB_STEP_SUMMARY (at ${summary}: a symbolic link, left as it is) (the suite writes only regular files, never through a link); written: report.json, junit.xml, report.html`,
    );
    expect(ran.stderr).not.toContain(`to ${reports}`);
    expect(readFileSync(join(dir, 'target.md'), 'utf8')).toBe('x');
  });

  it('never a bare pass: a rule with inconclusive cases says how many; a threshold that could not be computed is an error said "not measured"', () => {
    const run = withOpenCases(resultFixture(), 'PET-SCHEMA', 5);
    expect(renderStepSummary(run)).toContain(
      '| PET-SCHEMA | MUST | ✅ pass, 5 cases inconclusive | Every animal returned is a valid Pet |',
    );
    const load = smokeLoad();
    load.thresholds = [
      {
        ...load.thresholds[0]!,
        measured: 0,
        outcome: 'fail',
        reason: 'not measured: no request was answered (12 sent: 12 timeouts, 0 socket errors)',
      },
    ];
    const silent = { ...run, load: [load], summary: { ...run.summary, thresholds: 'fail' as const } };
    expect(renderAnnotations(silent)).toContain(
      `::error title=${load.thresholds[0]!.id} load threshold not measured::profile smoke: p99 < 1000ms, not measured: no request was answered (12 sent: 12 timeouts, 0 socket errors)`,
    );
    expect(renderStepSummary(silent)).toContain(
      '❌ `p99 < 1000ms` (not measured: no request was answered (12 sent: 12 timeouts, 0 socket errors))',
    );
  });

  it('summarises the load profiles in a table and annotates each breached threshold (error) and each unmeasured one (warning)', () => {
    const run = resultFixture();
    const result = { ...run, load: [smokeLoad()], summary: { ...run.summary, thresholds: 'fail' as const } };
    expect(exitCode(result.summary)).toBe(3);
    const markdown = renderStepSummary(result);
    expect(markdown).toMatch(/^## petstore-conformance: ⚠️ conformant, load threshold breached \(exit 3\)/);
    expect(markdown).toContain('### Load');
    expect(markdown).toContain('| Profile | Requests | Throughput | p50 | p99 | Error rate | Thresholds |');
    const row = markdown.split('\n').find((l) => l.startsWith('| smoke '))!;
    expect(row).toBe(
      '| smoke (closed, 4 connections, 3.0 s) | 120 | 40.0/s | 2.50 ms | 6.25 ms | 0.83% | ✅ `p99 < 1000ms` (measured 6.25 ms)<br>❌ `throughput > 50/s` (measured 40 req/s)<br>❔ `getPet.errorRate < 1%` (not measured: no getPet request was answered) |',
    );
    const annotations = renderAnnotations(result).split('\n').filter(Boolean);
    expect(annotations).toContain(
      '::error title=LOAD-SMOKE-ALL-THROUGHPUT load threshold breached::profile smoke: throughput > 50/s, measured 40 req/s',
    );
    // Workflow-command data escapes % as %25.
    expect(annotations).toContain(
      '::warning title=LOAD-SMOKE-GETPET-ERRORRATE load threshold not measured::profile smoke: getPet.errorRate < 1%25, not measured: no getPet request was answered',
    );
    expect(annotations.filter((a) => a.includes('LOAD-SMOKE-ALL-P99'))).toEqual([]);
    // Without load, no table; a load phase that did not start says why.
    expect(renderStepSummary(run)).not.toContain('### Load');
    const refused: ConformanceResult = {
      ...run,
      skippedPhases: [
        {
          phase: 'load',
          why: { code: 'load-refused', failed: ['AUTH-REQUIRED'] },
          reason: 'load not started: the target does not authenticate',
        },
      ],
    };
    expect(renderStepSummary(refused)).toMatch(/### Load\n\nload not started: the target does not authenticate/);
  });
});

describe('outside GitHub Actions', () => {
  // One run for both: it is the CLI's default output.
  it('writes no workflow command, and its progress is plain lines, one per phase, when not on a TTY', async () => {
    const ran = await withServer({}, (url) =>
      runInProcess(['--base-url', url, '--num-runs', '3', '--report-dir', tempDir()], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, GITHUB_ACTIONS: '' },
      }),
    );
    expect(ran.code).toBe(0);
    expect(ran.stdout).not.toMatch(/^::/m);
    expect(ran.stderr).toMatch(/^· setup \(1 check\)$/m);
    expect(ran.stderr).toMatch(/^· auth \(5 checks\)$/m);
    expect(ran.stderr).not.toContain('\r');
    expect(ran.stdout).not.toMatch(/\u001b\[/);
  });
});
