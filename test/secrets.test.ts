import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { swapCase } from '../core/redact.js';
import type { Handler } from '../reference/handler.js';
import { DISTINCTIVE_KEY, runCli, tempDir, withServer } from './helpers.js';

/** Echoes every request's headers and body back, in a header and in the body of errors, and breaks the Error shape so evidence is recorded. */
const echo = (inner: Handler): Handler => async (request) => {
  const answer = await inner(request);
  const echoed = JSON.stringify({ headers: request.headers, body: Buffer.from(request.body).toString('utf8') });
  const header = Buffer.from(echoed).toString('latin1').replace(/[^\x20-\x7e]/g, '?');
  return { ...answer, headers: { ...answer.headers, 'x-echo': header }, body: answer.status >= 400 ? { echoed } : answer.body };
};

const SECRETS = [DISTINCTIVE_KEY, DISTINCTIVE_KEY.slice(0, -1), swapCase(DISTINCTIVE_KEY), Buffer.from(`conformance:${DISTINCTIVE_KEY}`).toString('base64'), Buffer.from(DISTINCTIVE_KEY).toString('base64')];

describe('the API key', () => {
  it('appears in no report, no console line and no GitHub output, against a target that echoes it back', async () => {
    await withServer({ wrap: echo }, async (url) => {
      const dir = tempDir();
      const summary = join(dir, 'step-summary.md');
      const ran = await runCli(['--base-url', url, '--num-runs', '10', '--load', 'smoke', '--report-dir', join(dir, 'reports')], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
      });
      expect(ran.code).toBe(1);
      const files = readdirSync(join(dir, 'reports'));
      expect(files.sort()).toEqual(['junit.xml', 'report.html', 'report.json']);
      const written = [...files.map((f) => readFileSync(join(dir, 'reports', f), 'utf8')), readFileSync(summary, 'utf8'), ran.stdout, ran.stderr];
      // The echo did carry the key back: the redaction placeholder is there instead.
      expect(written.join('\n')).toContain('<API_KEY>');
      for (const text of written) for (const secret of SECRETS) expect(text.includes(secret), secret).toBe(false);
    });
  });
});
