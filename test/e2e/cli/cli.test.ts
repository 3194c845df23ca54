import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Handler } from '../../../reference/handler.js';
import { rules } from '../../../spec/rules.js';
import { BIN, DISTINCTIVE_KEY, reportErrors, runCli, runInProcess, tempDir, withServer } from '../../helpers.js';

/** One line on stderr, no stack trace. */
function expectOneLineError(stderr: string, pattern: RegExp): void {
  const lines = stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('petstore-conformance: error:'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

// Most commands run main() in this process, sparing a child process each; bin/ is spawned where the process is the
// subject: a verdict's exit code and output as the shell sees them, the --help and --version fast paths, serve.
describe('petstore-conformance CLI', () => {
  it('--embedded runs the whole suite against the reference, exit 0, report.json written and valid', async () => {
    const dir = tempDir();
    const ran = await runInProcess(['--embedded', '--seed', '3', '--num-runs', '10', '--report-dir', dir]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/CONFORMANT: 24 of 24 MUST rules passed/);
    expect(ran.stdout).toContain(join(dir, 'report.json'));
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { summary: { verdict: string } };
    expect(report.summary.verdict).toBe('conformant');
    expect(reportErrors(report)).toEqual([]);
  });

  it('exits 1 on a non-conformant target, naming the rule with its evidence, curl and re-run command', async () => {
    const off =
      (inner: Handler): Handler =>
      async (request) => {
        const answer = await inner(request);
        // Default limit 21 instead of 20.
        if (request.method === 'GET' && request.path === '/pets' && !request.query.has('limit'))
          return inner({ ...request, query: new URLSearchParams([...request.query, ['limit', '21']]) });
        return answer;
      };
    await withServer({ wrap: off }, async (url) => {
      const dir = tempDir();
      // Through bin/: the exit code and the output as a shell sees them, the key in neither.
      const ran = await runCli(['--base-url', url, '--seed', '8', '--num-runs', '10', '--report-dir', dir], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      });
      expect(ran.code).toBe(1);
      expect(ran.stdout).toMatch(/NON-CONFORMANT: .*LIST-LIMIT-DEFAULT/);
      expect(ran.stdout).toMatch(/✗ LIST-LIMIT-DEFAULT \(MUST\)/);
      expect(ran.stdout).toMatch(/Expected at most 20 animals when limit is absent \/ Received 21/);
      // The key from the environment, in a header curl reads from a file: no command printed puts it in a program's arguments.
      expect(ran.stdout).toMatch(
        /reproduce: curl -sS -i -X GET '.*\/v1\/pets' -H @<\(printf '%s\\n' "authorization: Bearer \$\{PETSTORE_API_KEY\}"\)/,
      );
      expect(ran.stdout).toMatch(/re-run: npx petstore-conformance --base-url .* --seed 8 .*--only LIST-LIMIT-DEFAULT/);
      expect(ran.stdout).toMatch(
        /replay: npx petstore-conformance replay \S+report\.json c-\w+ --base-url http:\/\/127\.0\.0\.1:\d+\/v1\n/,
      );
      expect(ran.stdout).not.toContain('--api-key');
      const written = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
      for (const text of [ran.stdout, ran.stderr, ...written]) expect(text).not.toContain(DISTINCTIVE_KEY);
    });
  });

  it('--json prints the report to stdout and the summary to stderr', async () => {
    await withServer({}, async (url) => {
      const ran = await runInProcess(['--base-url', url, '--seed', '4', '--num-runs', '5', '--json', '--reporter', 'console'], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      });
      expect(ran.code).toBe(0);
      const report = JSON.parse(ran.stdout) as { seed: number };
      expect(report.seed).toBe(4);
      expect(ran.stderr).toMatch(/CONFORMANT/);
    });
  });

  // Each refused before anything is sent (nothing listens on port 9), nothing shared: side by side.
  it.concurrent.each([
    [['--base-url', 'staging.example/v1', '--api-key', 'dummy-key'], /not an absolute URL; write it with its scheme/],
    [['--base-url', 'ftp://h/v1', '--api-key', 'dummy-key'], /must use http or https/],
    [['--base-url', 'http://127.0.0.1:9/v1'], /--api-key is required/],
    [['--api-key', 'k'], /--base-url is required/],
    [['--embedded', '--base-url', 'http://x/v1'], /exclude each other/],
    [['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'dummy-key', '--only', 'NOT-A-RULE'], /unknown rule id NOT-A-RULE/],
    [['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'dummy-key', '--num-runs', '0'], /--num-runs must be an integer from 1/],
    [['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'dummy-key', '--timeout', 'soon'], /--timeout must be a number \(see --help\)$/],
    [['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'dummy-key', '--load', 'hurricane'], /unknown profile "hurricane"/],
    [['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'dummy-key', '--reporter', 'pdf'], /unknown reporter pdf/],
    [['--no-such-flag'], /unknown argument: --no-such-flag/],
  ])('%j is a usage error: exit 2, one line', async (args, message) => {
    const ran = await runInProcess(args, { env: { PETSTORE_API_KEY: '', PETSTORE_BASE_URL: '' } });
    expect(ran.code).toBe(2);
    expectOneLineError(ran.stderr, message);
  });

  it('an unreachable target is exit 2 with one line', async () => {
    const ran = await runInProcess(['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'dummy-key']);
    expect(ran.code).toBe(2);
    expectOneLineError(ran.stderr, /connection refused by 127\.0\.0\.1:9/);
  });

  it('a rejected key is exit 2 with one line saying what to fix', async () => {
    await withServer({}, async (url) => {
      const ran = await runInProcess(['--base-url', url, '--api-key', 'wrong-key']);
      expect(ran.code).toBe(2);
      expectOneLineError(ran.stderr, /answered 401 .* check the API key and the base URL$/);
    });
  });

  it('rules prints every rule id; --help and --version exit 0', async () => {
    const listed = await runInProcess(['rules']);
    expect(listed.code).toBe(0);
    for (const rule of rules) expect(listed.stdout).toContain(rule.id);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--base-url/);
    const version = await runCli(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('serve starts the reference until stopped', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--api-key', 'serve-key'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('serve did not start')), 10_000);
        child.stdout.on('data', (d: Buffer) => {
          clearTimeout(timer);
          resolve(String(d));
        });
      });
      const url = /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(line)![1]!;
      const answer = await fetch(`${url}/pets`, { headers: { authorization: 'Bearer serve-key' } });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual([]);
    } finally {
      const closed = new Promise((resolve) => child.on('close', resolve));
      child.kill('SIGTERM');
      expect(await closed).toBe(0);
    }
  });

  it('the report directory is created where asked', async () => {
    const dir = join(tempDir(), 'nested', 'reports');
    const ran = await withServer({}, (url) =>
      runInProcess(['--base-url', url, '--num-runs', '3', '--report-dir', dir, '--reporter', 'json'], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      }),
    );
    expect(ran.code).toBe(0);
    expect(existsSync(join(dir, 'report.json'))).toBe(true);
  });
});
