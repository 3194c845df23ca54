import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeData } from '../../reports/github.js';
import type { Handler } from '../../reference/handler.js';
import { DISTINCTIVE_KEY, runCli, tempDir, withServer } from '../helpers.js';

/** A variant without the Sunset header (a SHOULD warning) and with Error.status written as a string (a MUST failure). */
const broken = (inner: Handler): Handler => async (request) => {
  const answer = await inner(request);
  const { sunset: _dropped, ...headers } = answer.headers;
  const body = answer.status >= 400 && typeof answer.body === 'object' ? { ...(answer.body as object), status: String(answer.status) } : answer.body;
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
      const ran = await runCli(['--base-url', url, '--num-runs', '5', '--report-dir', dir], { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
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

  it('writes nothing of the kind outside GitHub Actions', async () => {
    const ran = await runCli(['--embedded', '--num-runs', '3', '--report-dir', tempDir()], { env: { GITHUB_ACTIONS: '' } });
    expect(ran.stdout).not.toMatch(/^::/m);
  });
});

describe('console progress', () => {
  it('is plain lines, one per phase, when not on a TTY', async () => {
    const ran = await runCli(['--embedded', '--num-runs', '3', '--report-dir', tempDir()]);
    expect(ran.stderr).toMatch(/^· setup \(1 checks\)$/m);
    expect(ran.stderr).toMatch(/^· auth \(5 checks\)$/m);
    expect(ran.stderr).not.toContain('\r');
    expect(ran.stdout).not.toMatch(/\u001b\[/);
  });
});
