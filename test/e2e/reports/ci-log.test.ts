/**
 * A CI log (no TTY) tells as the run goes: each failing rule as it is decided, each phase's end with its rules by
 * outcome, before the summary (issue 24, CI logs that tell).
 */
import { describe, expect, it } from 'vitest';
import { DISTINCTIVE_KEY, overDefaultLimit, runInProcess, tempDir, withServer } from '../../helpers.js';

describe('the console in a CI log', () => {
  it('prints a failing rule as it is decided, and each phase its end with the rules by outcome', async () => {
    const ran = await withServer({ wrap: overDefaultLimit }, (url) =>
      runInProcess(['--base-url', url, '--num-runs', '3', '--report-dir', tempDir(), '--load', 'none'], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, GITHUB_ACTIONS: '' },
      }),
    );
    expect(ran.code).toBe(1);
    const lines = ran.stderr.split('\n');
    const failed = lines.findIndex((l) => /^ {2}✗ LIST-LIMIT-DEFAULT \(MUST\) failed, in check \S+$/.test(l));
    const ended = lines.findIndex((l) =>
      /^· listPets ended in \d+\.\d s: \d+ rules, \d+ passed, 1 failed.* \(LIST-LIMIT-DEFAULT\)$/.test(l),
    );
    expect(failed, ran.stderr).toBeGreaterThan(lines.indexOf(lines.find((l) => l.startsWith('· listPets ('))!));
    expect(ended, ran.stderr).toBeGreaterThan(failed);
    for (const phase of ['setup', 'listPets', 'createPet', 'getPet', 'storeOrders', 'auth'])
      expect(ran.stderr, phase).toMatch(new RegExp(`^· ${phase} ended in \\d+\\.\\d s: `, 'm'));
    expect(lines.filter((l) => l.includes('LIST-LIMIT-DEFAULT (MUST) failed'))).toHaveLength(1);
    expect(ran.stderr + ran.stdout).not.toContain(DISTINCTIVE_KEY);
  }, 60_000);

  it('prints the verdict line whatever reporters are chosen', async () => {
    const ran = await withServer({}, (url) =>
      runInProcess(['--base-url', url, '--num-runs', '3', '--report-dir', tempDir(), '--load', 'none', '--reporter', 'junit'], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      }),
    );
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^CONFORMANT: \d+ of \d+ MUST rules passed/m);
    expect(ran.stdout.trim().split('\n')).toHaveLength(1);
  }, 60_000);

  it('--color forces colour over NO_COLOR, --no-color turns it off over FORCE_COLOR', async () => {
    const [forced, off] = await withServer({}, (url) => {
      const args = ['--base-url', url, '--num-runs', '3', '--load', 'none', '-q'];
      return Promise.all([
        runInProcess([...args, '--color', '--report-dir', tempDir()], { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, NO_COLOR: '1' } }),
        runInProcess([...args, '--no-color', '--report-dir', tempDir()], {
          env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, NO_COLOR: '', FORCE_COLOR: '1' },
        }),
      ]);
    });
    expect(forced.stdout).toMatch(/^\u001b\[32mCONFORMANT\u001b\[39m: /);
    expect(off.stdout).toMatch(/^CONFORMANT: /);
    expect(off.stdout).not.toContain('\u001b');
  }, 60_000);
});
