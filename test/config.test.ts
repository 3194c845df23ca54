import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISTINCTIVE_KEY, runInProcess, tempDir, withServer } from './helpers.js';

function withConfig(content: unknown): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'petstore-conformance.config.json'), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

describe('petstore-conformance.config.json', () => {
  it('is read from the working directory; flags win over it', async () => {
    const cwd = withConfig({ numRuns: 3, seed: 77, reportDir: 'from-file', only: ['LIST-LIMIT-DEFAULT'] });
    const ran = await withServer({}, (url) => runInProcess(['--base-url', url, '--seed', '78'], { cwd, env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } }));
    expect(ran.code).toBe(0);
    const report = JSON.parse(readFileSync(join(cwd, 'from-file', 'report.json'), 'utf8')) as { seed: number; numRuns: number; options: { only: string[] } };
    expect(report.seed).toBe(78);
    expect(report.numRuns).toBe(3);
    expect(report.options.only).toEqual(['LIST-LIMIT-DEFAULT']);
  });

  it('is read from --config when given, and must then exist', async () => {
    const dir = withConfig({ numRuns: 2, reportDir: 'x', reporter: ['json'] });
    const ran = await withServer({}, (url) => runInProcess(['--base-url', url, '--config', join(dir, 'petstore-conformance.config.json')], { cwd: tempDir(), env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } }));
    expect(ran.code).toBe(0);
    const missing = await runInProcess(['--embedded', '--config', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the config file .*nope\.json: no such file/);
  });

  // Nothing shared: side by side.
  it.concurrent.each([
    [{ bogus: 1 }, /\.json: \/bogus is not a known key /],
    [{ numRuns: '3' }, /\.json: \/numRuns must be integer /],
    [{ only: ['NOT-A-RULE'] }, /\.json: \/only\/0 must be one of "PET-SCHEMA", .*, … /],
    [{ apiKey: 'secret' }, /the API key is never read from a file/],
    ['{ not json', /is not valid JSON/],
  ])('%j is refused with a line naming the offending key', async (content, message) => {
    const ran = await runInProcess(['--embedded'], { cwd: withConfig(content) });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(message);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
  });
});
