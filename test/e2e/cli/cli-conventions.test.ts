/**
 * The habits users bring from other command-line tools: -h and -v, "did you
 * mean", shell completion, FORCE_COLOR/NO_COLOR, -q and --verbose,
 * --max-failures, --dry-run, PETSTORE_* variables for every option, and a
 * config file found upward, with ${ENV} interpolation and a published schema.
 */
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configPassedOver, findConfigFile, interpolate } from '../../../cli/config.js';
import { explainUnknown, suggest, useColor } from '../../../cli/conventions.js';
import { envVarOf } from '../../../cli/env.js';
import type { Handler } from '../../../reference/handler.js';
import { startReference } from '../../../reference/server.js';
import { newAjv } from '../../../spec/validate.js';
import type { ConformanceResult } from '../../../result/model.js';
import { DISTINCTIVE_KEY, reportErrors, runCli, runInProcess, tempDir, withServer } from '../../helpers.js';

/** A reference broken three MUST ways: default limit 21, Error.status as a string, and no 401 without a key. */
const broken: (inner: Handler) => Handler = (inner) => async (request) => {
  const query =
    request.method === 'GET' && request.path === '/pets' && !request.query.has('limit')
      ? new URLSearchParams([...request.query, ['limit', '21']])
      : request.query;
  const answer = await inner({ ...request, query });
  if (answer.status >= 400) return { ...answer, body: { ...(answer.body as object), status: String(answer.status) } };
  return answer;
};

describe('conventions', () => {
  it('-h and -v are --help and --version', async () => {
    const help = await runCli(['-h']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--base-url/);
    expect(help.stdout).toMatch(/-q, --quiet/);
    expect(help.stdout).toMatch(/env\s+PETSTORE_MAX_WAIT/);
    const version = await runCli(['-v']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  // Nothing shared: side by side.
  it.concurrent.each([
    [['--base-ur', 'http://x/v1'], /^petstore-conformance: error: unknown argument: --base-ur \(did you mean --base-url\?\)/],
    [
      ['--embedded', '--seeed', '3', '--strikt'],
      /unknown arguments: --seeed \(did you mean --seed\?\), --strikt \(did you mean --strict\?\)/,
    ],
    [['rulez'], /unknown argument: rulez \(did you mean the command "rules"\?\)/],
    [['--embedded', '--max-failure', '2'], /did you mean --max-failures\?/],
    // Each command's own flags, the connection's included.
    [['--embedded', '--prxy', 'http://x'], /unknown argument: --prxy \(did you mean --proxy\?\)/],
    [['export-load', '--formt', 'k6'], /unknown argument: --formt \(did you mean --format\?\)/],
    [['serve', '--prot', '1'], /unknown argument: --prot \(did you mean --port\?\)/],
    [['certify', '--prodct', 'x'], /unknown argument: --prodct \(did you mean --product\?\)/],
    [['replay', 'r.json', 'c-1', '--secret-hedaer', 'X'], /unknown argument: --secret-hedaer \(did you mean --secret-header\?\)/],
  ])('%j suggests what was meant: exit 2, one line', async (args, message) => {
    const ran = await runInProcess(args);
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toMatch(message);
  });

  it('suggests only what is close', () => {
    expect(suggest('base-ur', ['base-url', 'seed'])).toBe('base-url');
    expect(suggest('tiemout', ['timeout', 'seed'])).toBe('timeout');
    expect(suggest('frobnicate', ['timeout', 'seed'])).toBeUndefined();
    expect(explainUnknown('Unknown arguments: base-ur, baseUr', ['--base-ur'], ['base-url'], [])).toBe(
      'unknown argument: --base-ur (did you mean --base-url?)',
    );
    expect(explainUnknown('Not enough arguments', [], [], [])).toBe('Not enough arguments');
  });

  // Through bin/: yargs prints the script and the completions on the process's stdout, not on main()'s.
  it('completion prints a shell script; the script asks the CLI, which offers the run flags and the commands', async () => {
    const script = await runCli(['completion']);
    expect(script.code).toBe(0);
    expect(script.stdout).toMatch(/^###-begin-petstore-conformance-completions-###/);
    expect(script.stdout).toContain('--get-yargs-completions');
    const flags = await runCli(['--get-yargs-completions', 'petstore-conformance', '--max-']);
    expect(flags.stdout.trim().split('\n').sort()).toEqual(['--max-failures', '--max-time', '--max-wait']);
    const connection = await runCli(['--get-yargs-completions', 'petstore-conformance', '--']);
    expect(connection.stdout.trim().split('\n')).toEqual(
      expect.arrayContaining(['--cert', '--cert-key', '--proxy', '--header', '--secret-header']),
    );
    const commands = await runCli(['--get-yargs-completions', 'petstore-conformance', '']);
    expect(commands.stdout).toMatch(/^rules$/m);
    expect(commands.stdout).toMatch(/^export-load$/m);
    expect(commands.stdout).not.toContain('$0');
    const serve = await runCli(['--get-yargs-completions', 'petstore-conformance', 'serve', '--']);
    expect(serve.stdout).toMatch(/^--port$/m);
  });

  it('colour: NO_COLOR wins when non-empty; FORCE_COLOR=0 disables, 1-3 enable without a TTY; otherwise a TTY that is not dumb', () => {
    const tty = { isTTY: true };
    const pipe = { isTTY: false };
    expect(useColor(tty, {})).toBe(true);
    expect(useColor(pipe, {})).toBe(false);
    expect(useColor(tty, { TERM: 'dumb' })).toBe(false);
    expect(useColor(tty, { NO_COLOR: '1' })).toBe(false);
    expect(useColor(pipe, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    expect(useColor(tty, { NO_COLOR: '' })).toBe(true);
    for (const level of ['1', '2', '3', 'true', '']) expect(useColor(pipe, { FORCE_COLOR: level }), level).toBe(true);
    for (const level of ['0', 'false']) expect(useColor(tty, { FORCE_COLOR: level }), level).toBe(false);
  });

  // main() reads the colour variables from its environment and a TTY from its stream (io), as bin/ gives them.
  it('FORCE_COLOR colours the verdict in a pipe; NO_COLOR set as well wins', async () => {
    await withServer({}, async (url) => {
      const args = ['--base-url', url, '-q', '--num-runs', '3', '--reporter', 'console'];
      const forced = await runInProcess(args, { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, NO_COLOR: '', FORCE_COLOR: '1' } });
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain('\u001b[32mCONFORMANT\u001b[39m');
      const both = await runInProcess(args, { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, NO_COLOR: '1', FORCE_COLOR: '1' } });
      expect(both.stdout).not.toMatch(/\u001b\[/);
    });
  });

  it('-q prints the verdict line only; the reports are still written', async () => {
    const dir = tempDir();
    const ran = await withServer({}, (url) =>
      runInProcess(['--base-url', url, '-q', '--num-runs', '3', '--report-dir', dir], { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } }),
    );
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^CONFORMANT: 24 of 24 MUST rules passed\n$/);
    expect(ran.stderr).toBe('');
    expect(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))).toHaveProperty('summary.verdict', 'conformant');
  });

  it('--verbose prints each exchange on one line, the key redacted', async () => {
    await withServer({}, async (url) => {
      const ran = await runInProcess(['--base-url', url, '--verbose', '--num-runs', '3', '--reporter', 'console'], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      });
      expect(ran.code).toBe(0);
      const lines = ran.stderr.split('\n').filter((l) => /^ {2}#\d+ /.test(l));
      const requests = Number(/(\d+) requests in/.exec(ran.stdout)?.[1]);
      expect(lines.length).toBeGreaterThanOrEqual(requests);
      expect(ran.stderr).toMatch(
        /^ {2}#1 preflight GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=100 → 200 application\/json \d+ B in [\d.]+ ms$/m,
      );
      expect(ran.stderr).toMatch(/^ {2}#\d+ createPet\.[\w.-]+ POST .*\/v1\/pets \(\d+ B\) → 201 /m);
      expect(ran.stderr).toMatch(/\[auth [\w-]+\] → 401 /);
      expect(ran.stderr + ran.stdout).not.toContain(DISTINCTIVE_KEY);
    });
  });

  it('--quiet and --verbose exclude each other', async () => {
    const ran = await runInProcess(['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'dummy-key', '-q', '--verbose']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/--quiet and --verbose exclude each other/);
  });

  it('--max-failures stops sending once that many rules fail: the rest is not run, the verdict non-conformant', async () => {
    await withServer({ wrap: broken }, async (url) => {
      const full = tempDir();
      const all = await runInProcess(['--base-url', url, '--seed', '4', '--num-runs', '5', '--report-dir', full, '--reporter', 'json'], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      });
      expect(all.code).toBe(1);
      const everything = JSON.parse(readFileSync(join(full, 'report.json'), 'utf8')) as ConformanceResult;
      expect(everything.rules.filter((r) => r.outcome === 'fail').length).toBeGreaterThan(1);

      const dir = tempDir();
      const ran = await runInProcess(['--base-url', url, '--seed', '4', '--num-runs', '5', '--report-dir', dir, '--max-failures', '1'], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      });
      expect(ran.code).toBe(1);
      const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceResult;
      expect(reportErrors(report)).toEqual([]);
      expect(report.summary.verdict).toBe('non-conformant');
      expect(report.summary.reason).toMatch(/then stopped after 1 failing rule \(the run's limit: 1\), and the rest was not run/);
      // Answers to requests already in flight are still judged, so a few more rules may fail than the bound.
      const failed = report.rules.filter((r) => r.outcome === 'fail').length;
      expect(failed).toBeGreaterThanOrEqual(1);
      expect(failed).toBeLessThanOrEqual(everything.rules.filter((r) => r.outcome === 'fail').length);
      const notRun = report.rules.filter((r) => r.outcome === 'skip');
      expect(notRun.length).toBeGreaterThan(0);
      expect(notRun[0]!.checks.some((c) => /stopped after 1 failing rule \(the run's limit: 1\)/.test(c.reason ?? ''))).toBe(true);
      expect(report.summary.requests).toBeLessThan(everything.summary.requests);
      expect(report.skippedPhases.map((p) => p.phase)).toContain('getPet');
    });
  });

  it('--dry-run prints the plan and sends nothing to the target: exit 0', async () => {
    let received = 0;
    await withServer({ wrap: (inner) => (request) => ((received += 1), inner(request)) }, async (url) => {
      const ran = await runInProcess(
        [
          '--base-url',
          url,
          '--dry-run',
          '--seed',
          '9',
          '--num-runs',
          '5',
          '--load',
          'smoke',
          '--only',
          'LIST-LIMIT-DEFAULT,CREATE-RESPONSE',
        ],
        { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } },
      );
      expect(ran.code).toBe(0);
      expect(ran.stdout).toMatch(/^Dry run: nothing is sent to http:\/\/127\.0\.0\.1:\d+\/v1\./);
      expect(ran.stdout).toMatch(/rules {4}2 of 33 \(2 MUST, 0 SHOULD\)/);
      // Each check under its own phase, in plan order, whichever answer came first.
      expect(ran.stdout).toMatch(/^ {2}setup +1 check +~ +\d+ requests +~ *\d+ animals created\n {6}· store\.seed /m);
      expect(ran.stdout).toMatch(/^ {2}listPets +\d+ checks .*\n {6}· listPets\.default-limit /m);
      expect(ran.stdout).toMatch(/^ {6}· listPets\.default-limit +~1 requests$/m);
      expect(ran.stdout).toMatch(/^ {6}- auth\.missing-key +not run \(not among the rules selected to run\)$/m);
      expect(ran.stdout).toMatch(/^ {2}total +~ *\d+ requests +~ *\d+ animals created/m);
      expect(ran.stdout).toMatch(/Load profile "smoke": closed loop, 4 connections for 3 s/);
      expect(ran.stdout).toMatch(/thresholds: errorRate < 1%, p99 < 1000ms, answered >= 90%$/m);
    });
    expect(received).toBe(0);
  });

  it('--rate-limit takes requests per second as 5 or 5/s, from the flag or PETSTORE_RATE_LIMIT; anything else is refused in one line', async () => {
    const plan = (args: string[], env: Record<string, string> = {}) =>
      runInProcess(['--embedded', '--dry-run', '--load', 'none', ...args], { env });
    for (const [args, env, rate] of [
      [['--rate-limit', '5/s'], {}, '5'],
      [['--rate-limit', '5'], {}, '5'],
      [[], { PETSTORE_RATE_LIMIT: '2.5/s' }, '2.5'],
    ] as const) {
      const ran = await plan([...args], env);
      expect(ran.stderr).toBe('');
      expect(ran.code).toBe(0);
      expect(ran.stdout).toContain(`at most ${rate} requests/s`);
    }
    for (const [args, env] of [
      [['--rate-limit', '5/min'], {}],
      [[], { PETSTORE_RATE_LIMIT: 'fast' }],
    ] as const) {
      const ran = await plan([...args], env);
      expect(ran.code).toBe(2);
      expect(ran.stderr).toMatch(
        /^petstore-conformance: error: --rate-limit must be requests per second, as 5 or 5\/s, got "(5\/min|fast)"/,
      );
      expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('--dry-run validates what a run validates', async () => {
    const ran = await runInProcess(['--embedded', '--dry-run', '--load', 'hurricane']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/unknown profile "hurricane"/);
  });

  // What a run checks before its first request (cli/run-setup.ts): each refused by the run and the dry run alike.
  it.concurrent.each([
    [['-H', 'Authorization: x'], /--header Authorization: the suite sends Authorization itself/],
    [['--cert', '/nonexistent/client.pem', '--cert-key', '/nonexistent/client.key'], /--cert \/nonexistent\/client\.pem: no such file/],
    [['--waivers', '/nonexistent/waivers.json'], /the waivers file \/nonexistent\/waivers\.json: no such file/],
    [['--report-dir', '/proc/x'], /--report-dir \/proc\/x: it is below \/proc, a kernel pseudo-filesystem/],
    [['--concurrency', '0'], /--concurrency must be an integer from 1 to 256, got 0/],
    // A number flag given text: what it takes, never "got NaN" (yargs keeps no text of it).
    [['--max-wait', 'abc'], /^petstore-conformance: error: --max-wait must be a number \(see --help\)$/],
    // A value near a known one is named, as a flag near a known one is.
    [['--load', 'smok'], /--load: unknown profile "smok"; did you mean smoke\? \(known: none, smoke, /],
    [['--only', 'list-limit-defalt'], /--only: unknown rule id list-limit-defalt; did you mean LIST-LIMIT-DEFAULT\? /],
    [['--reporter', 'jnuit'], /--reporter: unknown reporter jnuit; did you mean junit\? /],
  ])('%j: exit 2, one line, in a run and in a dry run', async (args, message) => {
    for (const dry of [[], ['--dry-run']]) {
      const ran = await runInProcess(['--base-url', 'http://127.0.0.1:9/v1', '--num-runs', '2', ...args, ...dry], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      });
      expect(ran.code, `${dry.join('')} ${ran.stderr}`).toBe(2);
      expect(ran.stderr.trim().split('\n'), dry.join('')).toEqual([expect.stringMatching(message)]);
    }
  });

  it('completion --help says what completion does; completion with another argument is a usage error', async () => {
    const help = await runInProcess(['completion', '--help']);
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toMatch(/^petstore-conformance completion\n\nPrint a bash\/zsh completion script/);
    expect(help.stdout).not.toContain('###-begin');
    const extra = await runInProcess(['completion', 'bash']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^petstore-conformance: error: completion takes no arguments, got bash/);
  });

  it('--dry-run does not create the report directory a run would create', async () => {
    const reportDir = join(tempDir(), 'not', 'yet');
    const ran = await runInProcess([
      '--embedded',
      '--dry-run',
      '--num-runs',
      '2',
      '--only',
      'LIST-LIMIT-DEFAULT',
      '--report-dir',
      reportDir,
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain(`→ ${reportDir}`);
    expect(existsSync(join(reportDir, '..'))).toBe(false);
  });
});

describe('PETSTORE_* variables: flags > environment > config file > defaults', () => {
  /** The options `--help` lists, each with its description in one line. */
  function optionsOfHelp(help: string): Map<string, string> {
    const options = new Map<string, string>();
    let current: string | undefined;
    for (const line of help.split('\n')) {
      const start = /^ {2}(?:-\w, | {4})--([\w-]+)\s/.exec(line);
      if (start) options.set((current = start[1]!), line.trim());
      else if (current && /^ {6,}\S/.test(line)) options.set(current, `${options.get(current)} ${line.trim()}`);
      else current = undefined;
    }
    return options;
  }

  // Through bin/: yargs prints help on the process's stdout.
  it("every option of every command names its variable in that command's --help", async () => {
    const top = await runCli(['--help']);
    const commands = [...top.stdout.matchAll(/^ {2}petstore-conformance ([a-z][a-z-]*)/gm)].map((m) => m[1]!);
    expect(commands).toEqual(['rules', 'serve', 'matrix', 'replay', 'certify', 'verify', 'export-load', 'completion']);
    // completion takes no option.
    const helps = [top, ...(await Promise.all(commands.filter((c) => c !== 'completion').map((command) => runCli([command, '--help']))))];
    const variables = new Set<string>();
    for (const help of helps) {
      expect(help.code).toBe(0);
      for (const [flag, text] of optionsOfHelp(help.stdout)) {
        if (flag === 'help' || flag === 'version') continue;
        expect(text, flag).toContain(`(env ${envVarOf(flag)}`);
        variables.add(envVarOf(flag));
      }
    }
    expect([...variables]).toEqual(
      expect.arrayContaining([
        ...[
          'PETSTORE_BASE_URL',
          'PETSTORE_API_KEY',
          'PETSTORE_SEED',
          'PETSTORE_LOAD',
          'PETSTORE_REPORT_DIR',
          'PETSTORE_STRICT',
          'PETSTORE_MAX_FAILURES',
          'PETSTORE_DRY_RUN',
          'PETSTORE_QUIET',
        ],
        ...['PETSTORE_CERT', 'PETSTORE_CERT_KEY', 'PETSTORE_PROXY', 'PETSTORE_HEADER', 'PETSTORE_SECRET_HEADER'],
        ...[
          'PETSTORE_PROFILE',
          'PETSTORE_FORMAT',
          'PETSTORE_OUT',
          'PETSTORE_PORT',
          'PETSTORE_HOST',
          'PETSTORE_OUT_DIR',
          'PETSTORE_LABEL',
          'PETSTORE_TIMEOUT',
          'PETSTORE_PRODUCT',
          'PETSTORE_SIGN_KEY',
          'PETSTORE_PUBLIC_KEY',
        ],
      ]),
    );
    // The run's repeatable options say how to write several values in one variable.
    expect(optionsOfHelp(top.stdout).get('header')).toContain('(env PETSTORE_HEADER, one value per line)');
  });

  it('a subcommand reads its own variables: export-load finds the profile of PETSTORE_CONFIG; its flags win', async () => {
    const cwd = tempDir();
    const config = join(cwd, 'cfg.json');
    writeFileSync(
      config,
      JSON.stringify({
        profiles: {
          'release-gate': {
            kind: 'closed',
            connections: 16,
            durationSec: 30,
            maxRequests: 100000,
            mix: { listPets: 5, getPet: 4, createPet: 1 },
            thresholds: ['p99 < 250ms'],
          },
        },
      }),
    );
    const k6 = await runInProcess(['export-load', '--profile', 'release-gate', '--format', 'k6'], { env: { PETSTORE_CONFIG: config } });
    expect(k6.stderr).toBe('');
    expect(k6.code).toBe(0);
    expect(k6.stdout).toContain('Load profile "release-gate"');
    expect(k6.stdout).toContain('Thresholds: p99 < 250ms; answered >= 90%.');
    const byVariables = await runInProcess(['export-load', '--format', 'artillery', '--out', join(cwd, 'gate.yml')], {
      env: { PETSTORE_CONFIG: config, PETSTORE_PROFILE: 'release-gate', PETSTORE_FORMAT: 'k6' },
    });
    expect(byVariables.code, byVariables.stderr).toBe(0);
    expect(readFileSync(join(cwd, 'gate.yml'), 'utf8')).toMatch(/^config:/m);
    const wrong = await runInProcess(['export-load', '--profile', 'smoke'], { env: { PETSTORE_FORMAT: 'jmeter' } });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^petstore-conformance: error: PETSTORE_FORMAT must be one of k6, artillery/);
  });

  it("options hidden from --help have no variable: certify is not refused for the run's PETSTORE_SEED", async () => {
    const ran = await runInProcess(['certify'], { env: { PETSTORE_SEED: '3', PETSTORE_CONFIG: '/nonexistent.json' } });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/--base-url is required/);
  });

  it('seed, runs, strict, load, only, report dir and reporters come from the environment, over the file and under the flags', async () => {
    const cwd = tempDir();
    writeFileSync(
      join(cwd, 'petstore-conformance.config.json'),
      JSON.stringify({ seed: 1, numRuns: 7, reportDir: 'from-file', load: 'smoke' }),
    );
    const env = {
      PETSTORE_API_KEY: DISTINCTIVE_KEY,
      PETSTORE_SEED: '42',
      PETSTORE_NUM_RUNS: '3',
      PETSTORE_STRICT: 'true',
      PETSTORE_LOAD: 'none',
      PETSTORE_ONLY: 'LIST-LIMIT-DEFAULT,GET-SUNSET-HEADER',
      PETSTORE_REPORT_DIR: join(cwd, 'from-env'),
      PETSTORE_REPORTER: 'json',
      PETSTORE_QUIET: '1',
    };
    const ran = await withServer({}, (url) => runInProcess(['--base-url', url, '--num-runs', '2'], { env, cwd }));
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const report = JSON.parse(readFileSync(join(cwd, 'from-env', 'report.json'), 'utf8')) as ConformanceResult;
    expect(report.seed).toBe(42);
    expect(report.numRuns).toBe(2);
    expect(report.summary.strict).toBe(true);
    expect(report.options.load).toBe('none');
    expect(report.options.only).toEqual(['LIST-LIMIT-DEFAULT', 'GET-SUNSET-HEADER']);
  });

  it('an unparsable variable is a one-line usage error naming it', async () => {
    const ran = await runInProcess(['--embedded'], { env: { PETSTORE_STRICT: 'maybe' } });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(
      /^petstore-conformance: error: PETSTORE_STRICT must be one of 1, true, yes, on or 0, false, no, off, got "maybe"/,
    );
    const seed = await runInProcess(['--embedded'], { env: { PETSTORE_SEED: 'soon' } });
    expect(seed.stderr).toMatch(/PETSTORE_SEED must be a number, got "soon"/);
  });

  it('PETSTORE_DRY_RUN and PETSTORE_MAX_FAILURES are options like the others', async () => {
    const ran = await runInProcess(['--embedded', '--num-runs', '2', '--only', 'LIST-LIMIT-DEFAULT'], {
      env: { PETSTORE_DRY_RUN: '1', PETSTORE_MAX_FAILURES: '3' },
    });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^Dry run:/);
    expect(ran.stdout).toContain('stops after 3 failing rules');
  });
});

describe('an option that takes one value, given twice, is refused by name, whatever the command', () => {
  /** Where the runs and replays below would send: it counts what it receives. */
  let target: { url: string; received: number; close: () => Promise<void> };
  beforeAll(async () => {
    let received = 0;
    const server = await startReference({ apiKey: DISTINCTIVE_KEY, wrap: (inner) => (request) => (received++, inner(request)) });
    target = {
      url: server.url,
      get received() {
        return received;
      },
      close: () => server.close(),
    };
  });
  afterAll(() => target.close());

  // Each refused before anything is read or sent: side by side. TARGET stands for the counting target's URL.
  it.concurrent.each([
    [['--base-url', 'TARGET', '--base-url', 'http://127.0.0.1:9/v1'], 'base-url', 'it takes one value'],
    [['--base-url', 'TARGET', '--load', 'smoke', '--load', 'none'], 'load', 'it takes one value'],
    [['--base-url', 'TARGET', '--report-dir', 'a', '--report-dir', 'b'], 'report-dir', 'it takes one value'],
    [['--base-url', 'TARGET', '--seed', '1', '--seed=2'], 'seed', 'it takes one value'],
    [['--base-url', 'TARGET', '--strict', '--no-strict'], 'strict', 'give it once'],
    [['--base-url', 'TARGET', '-q', '--quiet'], 'quiet', 'give it once'],
    [['certify', '--base-url', 'TARGET', '--product', 'p.json', '--out', 'a.tar.gz', '--out', 'b.tar.gz'], 'out', 'it takes one value'],
    [['replay', 'r.json', 'c-00000001', '--base-url', 'TARGET', '--base-url', 'TARGET'], 'base-url', 'it takes one value'],
    [['verify', 'b.tar.gz', '--public-key', 'a.pem', '--public-key', 'b.pem'], 'public-key', 'it takes one value'],
    [['matrix', 'r.json', '--out-dir', 'a', '--out-dir', 'b'], 'out-dir', 'it takes one value'],
    [['export-load', '--format', 'k6', '--format', 'artillery', '--profile', 'smoke'], 'format', 'it takes one value'],
    [['serve', '--port', '0', '--port', '0'], 'port', 'it takes one value'],
    [['rules', '--json', '--json'], 'json', 'give it once'],
  ])('%j: one line naming --%s, exit 2', async (args, flag, advice) => {
    const ran = await runInProcess(
      args.map((a) => (a === 'TARGET' ? target.url : a)),
      { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } },
    );
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toBe(`petstore-conformance: error: --${flag} is given more than once; ${advice} (see --help)\n`);
  });

  it('nothing was sent by any of them', () => {
    expect(target.received).toBe(0);
  });

  it('repeatable options take repeats, and a flag with its variable is not a repeat: the flag wins', async () => {
    const ran = await runInProcess(
      [
        '--embedded',
        '--dry-run',
        '--only',
        'LIST-LIMIT-DEFAULT',
        '--only',
        'GET-SUNSET-HEADER',
        '-H',
        'X-A: 1',
        '-H',
        'X-B: 2',
        '--reporter',
        'json',
        '--reporter',
        'console',
        '--load',
        'none',
      ],
      { env: { PETSTORE_LOAD: 'smoke', PETSTORE_SEED: '5' } },
    );
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('only LIST-LIMIT-DEFAULT,GET-SUNSET-HEADER');
    expect(ran.stdout).toContain('Load: none.');
    expect(ran.stdout).toContain('Reports: json, console');
    const seeded = await runInProcess(['--embedded', '--dry-run', '--seed', '7', '--load', 'none'], { env: { PETSTORE_SEED: '5' } });
    expect(seeded.stdout).toMatch(/^seed {5}7 /m);
  });
});

describe('the config file', () => {
  /** A repository (a folder holding .git) with a config at its root and a nested working directory. */
  function repository(config: unknown): { root: string; nested: string } {
    const outer = tempDir();
    const root = join(outer, 'repo');
    const nested = join(root, 'packages', 'server');
    mkdirSync(join(root, '.git'), { recursive: true });
    mkdirSync(nested, { recursive: true });
    writeFileSync(join(root, 'petstore-conformance.config.json'), JSON.stringify(config));
    return { root, nested };
  }

  it('is found upward from the working directory to the repository root, and its paths are relative to it', async () => {
    const { root, nested } = repository({
      seed: 31,
      numRuns: 2,
      reportDir: 'reports/conformance',
      reporter: ['json'],
      only: ['LIST-LIMIT-DEFAULT'],
    });
    expect(findConfigFile(nested)).toBe(join(root, 'petstore-conformance.config.json'));
    const ran = await withServer({}, (url) =>
      runInProcess(['--base-url', url], { cwd: nested, env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } }),
    );
    expect(ran.code).toBe(0);
    const report = JSON.parse(readFileSync(join(root, 'reports', 'conformance', 'report.json'), 'utf8')) as ConformanceResult;
    expect(report.seed).toBe(31);
  });

  it('is not looked for above the repository root, nor above the working directory outside a repository', () => {
    const outer = tempDir();
    writeFileSync(join(outer, 'petstore-conformance.config.json'), '{}');
    mkdirSync(join(outer, 'repo', '.git'), { recursive: true });
    mkdirSync(join(outer, 'repo', 'sub'));
    expect(findConfigFile(join(outer, 'repo', 'sub'))).toBeUndefined();
    mkdirSync(join(outer, 'plain', 'sub'), { recursive: true });
    writeFileSync(join(outer, 'plain', 'petstore-conformance.config.json'), '{}');
    expect(findConfigFile(join(outer, 'plain', 'sub'))).toBeUndefined();
    // Not looked at for where it is, not for whose it is: nothing said of it.
    expect(configPassedOver(join(outer, 'plain', 'sub'))).toBeUndefined();
    expect(configPassedOver(join(outer, 'repo', 'sub'))).toBeUndefined();
    expect(findConfigFile(join(outer, 'plain'))).toBe(join(outer, 'plain', 'petstore-conformance.config.json'));
  });

  // Files of another user: needs a user id to give them to (root can; CI runs as root).
  it.skipIf(process.getuid?.() !== 0)('a .git, or a file above the working directory, that another user owns counts for nothing', () => {
    const NOBODY = 65534;
    const shared = tempDir();
    // Planted by another user: a .git making a repository of the shared folder, and a file in it.
    mkdirSync(join(shared, '.git'));
    writeFileSync(join(shared, 'petstore-conformance.config.json'), '{}');
    chownSync(join(shared, '.git'), NOBODY, NOBODY);
    chownSync(join(shared, 'petstore-conformance.config.json'), NOBODY, NOBODY);
    mkdirSync(join(shared, 'work', 'sub'), { recursive: true });
    expect(findConfigFile(join(shared, 'work', 'sub'))).toBeUndefined();
    // A repository the user owns, holding a file another user wrote above the working directory: not taken either.
    const mine = tempDir();
    mkdirSync(join(mine, '.git'));
    mkdirSync(join(mine, 'sub'));
    writeFileSync(join(mine, 'petstore-conformance.config.json'), '{}');
    chownSync(join(mine, 'petstore-conformance.config.json'), NOBODY, NOBODY);
    expect(findConfigFile(join(mine, 'sub'))).toBeUndefined();
    expect(configPassedOver(join(mine, 'sub'))).toBe(join(mine, 'petstore-conformance.config.json'));
    expect(configPassedOver(join(shared, 'work', 'sub'))).toBe(join(shared, 'petstore-conformance.config.json'));
    // Owned by the user: found, as before, and nothing passed over.
    chownSync(join(mine, 'petstore-conformance.config.json'), 0, 0);
    expect(findConfigFile(join(mine, 'sub'))).toBe(join(mine, 'petstore-conformance.config.json'));
    expect(configPassedOver(join(mine, 'sub'))).toBeUndefined();
  });

  it.skipIf(process.getuid?.() !== 0)('a config file passed over for its owner is said in one line, naming it and --config', async () => {
    const repo = tempDir();
    mkdirSync(join(repo, '.git'));
    mkdirSync(join(repo, 'sub'));
    writeFileSync(join(repo, 'petstore-conformance.config.json'), JSON.stringify({ numRuns: 2 }));
    chownSync(join(repo, '.git'), 65534, 65534);
    const ran = await runInProcess(['--embedded', '--load', 'none', '--num-runs', '2', '--report-dir', tempDir()], {
      cwd: join(repo, 'sub'),
      env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
    });
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain(
      `petstore-conformance: ${join(repo, 'petstore-conformance.config.json')} is not read: it, or the .git above it, belongs to another user; if it is yours to use, name it with --config\n`,
    );
  });

  it('interpolates ${NAME} in string values; $${ is a literal ${', async () => {
    const out = tempDir();
    const { nested } = repository({ numRuns: 2, reportDir: '${PC_REPORTS}/run', reporter: ['json'], only: ['${PC_RULE}'] });
    const ran = await withServer({}, (url) =>
      runInProcess(['--base-url', url], {
        cwd: nested,
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY, PC_REPORTS: out, PC_RULE: 'LIST-LIMIT-DEFAULT' },
      }),
    );
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'run', 'report.json'), 'utf8')) as ConformanceResult;
    expect(report.options.only).toEqual(['LIST-LIMIT-DEFAULT']);
    expect(interpolate({ load: 'a $${NOT_A_VARIABLE} b', nested: ['${PC_X}'] }, { PC_X: 'x' }, 'file')).toEqual({
      data: { load: 'a ${NOT_A_VARIABLE} b', nested: ['x'] },
      expanded: [{ at: ['nested', '0'], variable: 'PC_X', value: 'x' }],
    });
  });

  it('an unset variable is a one-line usage error naming it (the fix is in the file or the environment, not in --help)', async () => {
    const { nested, root } = repository({ baseUrl: 'https://${PC_UNSET_HOST}/v1' });
    const ran = await runInProcess(['--api-key', 'k'], { cwd: nested, env: { PC_UNSET_HOST: '' } });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toBe(
      `petstore-conformance: error: ${join(root, 'petstore-conformance.config.json')}: "baseUrl" uses \${PC_UNSET_HOST}, but the environment variable PC_UNSET_HOST is not set\n`,
    );
  });

  it('never takes the key, not even through a variable', async () => {
    const { nested } = repository({ apiKey: '${PETSTORE_API_KEY}' });
    const ran = await runInProcess(['--embedded'], { cwd: nested, env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/the API key is never read from a file/);
    expect(ran.stderr).not.toContain(DISTINCTIVE_KEY);
  });

  it('has a published JSON Schema (spec/config.schema.json) that editors can point "$schema" at', () => {
    const schema = JSON.parse(readFileSync(new URL('../../../spec/config.schema.json', import.meta.url), 'utf8')) as {
      properties: Record<string, { description?: string }>;
    };
    const validate = newAjv({ allErrors: true }).compile(schema);
    const example = {
      $schema: './node_modules/petstore-conformance/spec/config.schema.json',
      baseUrl: '${STAGING_URL}',
      load: 'release-gate',
      maxFailures: 5,
      profiles: {
        'release-gate': {
          kind: 'closed',
          connections: 16,
          durationSec: 30,
          maxRequests: 1000000,
          mix: { listPets: 5, getPet: 4, createPet: 1 },
          thresholds: ['p99 < 250ms'],
        },
      },
    };
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ apiKey: 'x' })).toBe(false);
    for (const [key, property] of Object.entries(schema.properties)) expect(property.description, key).toBeTruthy();
  });
});
