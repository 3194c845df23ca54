/**
 * The suite, through its CLI and with a short load profile, against real
 * deployments in front of the reference: nginx (a limit_req rate limiter
 * answering 503 + Retry-After + Error, idle keep-alive connections closed after
 * 1 s) and a load shedder (an Error 503 + Retry-After, or a broken HTML 503
 * page). They are the rows of test/fixtures/frameworks/variants.json with
 * `deployment`, written from the interface document alone; `check.mjs` probes
 * them without the suite. A correct deployment must pass (exit 0, `--strict`
 * when it follows every SHOULD); a broken one must fail exactly the MUST rules
 * its row lists (exit 1).
 *
 * nginx is Debian's /usr/sbin/nginx (or $NGINX_PATH; `.ci/run` installs it).
 * Without it the nginx rows are skipped with a warning on a developer's
 * machine, and fail under CI. All traffic stays on 127.0.0.1; each run is
 * bounded by --max-time and the profile's own time and request bounds.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ruleById, type RuleId } from '../../../spec/rules.js';
import { type Deployment, FIXTURES_ROOT, readVariants } from '../../fixtures/frameworks/variants.js';
import { findProgram, runCli, startListening, tempDir } from '../../helpers.js';

// A row starts nginx or the shedding proxy before the reference and runs the suite with --strict: up to 7 s on a quiet
// two-core machine, ×8 for a runner that shares its cores.
vi.setConfig({ testTimeout: 60_000 });

interface Report {
  summary: { verdict: string; reason: string };
  rules: { id: string; severity: 'MUST' | 'SHOULD'; outcome: string; checks: { findings: { message: string }[]; reason?: string }[] }[];
}

const ROWS = readVariants().filter((v): v is Deployment => v.deployment !== undefined);
const API_KEY = 'dep-Key_4f2a.81c9~deploy';
const PROFILE = 'fixture-load';
/** The CLI run's own bound: functional phases (with Retry-After waits) plus a 3 s profile fit well inside. */
const MAX_TIME_SEC = 240;

const NGINX = findProgram(['nginx'], { envVar: 'NGINX_PATH', debianPath: '/usr/sbin/nginx' });
if (!NGINX && process.env.CI !== 'true')
  console.warn(
    '\n!!! test/deployments.test.ts: no nginx (NGINX_PATH, PATH, /usr/sbin/nginx); the nginx rows are SKIPPED (apt-get install nginx)\n',
  );

const LAUNCHERS: Record<Deployment['framework'], string> = { nginx: 'nginx/start.mjs', shedder: 'shedder/proxy.mjs' };

/** Starts a deployment (the reference behind it included) and resolves with its base URL once it prints its LISTENING line. */
function start(v: Deployment, log: string): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  // The access log (nginx) or the log of shed answers (shedder): what the deployment did, counted by the test.
  const logs = v.framework === 'nginx' ? { ACCESS_LOG: log, ...(NGINX ? { NGINX_PATH: NGINX } : {}) } : { SHED_LOG: log };
  const env = { ...process.env, ...v.env, API_KEY, PORT: '0', VARIANT: v.variant, ...logs };
  // Two processes start (the reference, then nginx or the proxy): 30 s is ten times what a busy machine needs.
  return startListening(
    `${v.framework}/${v.variant}`,
    process.execPath,
    [new URL(LAUNCHERS[v.framework], FIXTURES_ROOT).pathname],
    env,
    30_000,
  );
}

/** SIGTERM, and the exit code it gave (SIGKILL after 10 s: it stops nginx and the reference first). */
async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** Runs the CLI against `v` with its short load profile, from a temporary folder holding the profile's config file. */
async function judge(
  v: Deployment,
): Promise<{ code: number | null; report: Report; stderr: string; stopped: number | null; deploymentStderr: string; log: string[] }> {
  const cwd = tempDir();
  const log = join(cwd, 'deployment.log');
  writeFileSync(log, '');
  const { url, child, stderr } = await start(v, log);
  try {
    const config = join(cwd, 'petstore-conformance.config.json');
    writeFileSync(config, JSON.stringify({ profiles: { [PROFILE]: v.deployment.load } }));
    const args = [
      '--base-url',
      url,
      '--config',
      config,
      '--load',
      PROFILE,
      '--seed',
      '20261122',
      '--num-runs',
      '20',
      '--max-time',
      String(MAX_TIME_SEC),
      '--json',
      '--reporter',
      'json',
      '--report-dir',
      join(cwd, 'report'),
      ...v.deployment.cliArgs,
    ];
    if (v.correct && v.followsEveryShould) args.push('--strict');
    const ran = await runCli(args, { cwd, env: { PETSTORE_API_KEY: API_KEY }, timeoutMs: (MAX_TIME_SEC + 30) * 1000 });
    let report: Report;
    try {
      report = JSON.parse(ran.stdout) as Report;
    } catch {
      throw new Error(`${v.framework}/${v.variant}: exit ${ran.code}, no report.json on stdout; stderr: ${ran.stderr.slice(-2000)}`);
    }
    const stopped = await stop(child);
    return {
      code: ran.code,
      report,
      stderr: ran.stderr,
      stopped,
      deploymentStderr: stderr(),
      log: readFileSync(log, 'utf8').split('\n').filter(Boolean),
    };
  } finally {
    await stop(child);
  }
}

const failing = (r: Report, severity?: 'MUST' | 'SHOULD') =>
  r.rules
    .filter((rule) => rule.outcome === 'fail' && (severity === undefined || rule.severity === severity))
    .map((rule) => rule.id)
    .sort();
const evidence = (r: Report, stderr: string) =>
  [
    `${r.summary.verdict}: ${r.summary.reason}`,
    ...r.rules
      .filter((rule) => rule.outcome === 'fail' || rule.outcome === 'error')
      .map((rule) =>
        `${rule.id}: ${rule.checks.flatMap((c) => c.findings)[0]?.message ?? rule.checks.find((c) => c.reason)?.reason ?? ''}`.slice(
          0,
          300,
        ),
      ),
    stderr
      .split('\n')
      .filter((l) => /error|LOAD-|verdict|CONFORMANT/i.test(l))
      .slice(0, 12)
      .join('\n'),
  ].join('\n');

describe('deployments in front of the reference, judged with load through the CLI', () => {
  for (const v of ROWS) {
    const name = `${v.framework}/${v.variant}: ${v.correct ? (v.followsEveryShould ? 'passes with --strict' : 'passes') : `fails ${v.expectFail.join(', ')}`}`;
    const skip = v.framework === 'nginx' && !NGINX && process.env.CI !== 'true';
    // Runs one at a time (load on two shared cores): the run's --max-time, plus starting and stopping.
    it.skipIf(skip)(name, { timeout: (MAX_TIME_SEC + 60) * 1000 }, async () => {
      const { code, report, stderr, stopped, deploymentStderr, log } = await judge(v);
      const refused = v.framework === 'nginx' ? log.filter((l) => / (503|429) \d+ /.test(l)).length : log.length;
      const why = `${v.choices}\n${v.framework === 'nginx' ? `nginx answered ${log.length} requests, ${refused} of them 503 or 429` : `${refused} requests shed`}\n${evidence(report, stderr)}`;
      // The deployment did what the row is about in this run, so a pass is not vacuous.
      if (v.framework === 'shedder' || v.variant.startsWith('rate-limit')) expect(refused, why).toBeGreaterThan(0);
      expect(
        report.rules.filter((r) => r.outcome === 'error').map((r) => r.id),
        why,
      ).toEqual([]);
      if (v.correct) {
        expect(failing(report, v.followsEveryShould ? undefined : 'MUST'), why).toEqual([]);
        expect(report.summary.verdict, why).toBe('conformant');
        expect(code, why).toBe(0);
      } else {
        expect(failing(report), why).toEqual(expect.arrayContaining([...v.expectFail].sort()));
        const mustFail = failing(report, 'MUST').filter((id) => !v.mayAlsoFail?.includes(id));
        expect(mustFail, why).toEqual(v.expectFail.filter((id) => ruleById(id as RuleId).severity === 'MUST').sort());
        expect(code, why).toBe(1);
      }
      // The deployment kept its launch contract through the run: quiet, and exit 0 on SIGTERM.
      expect(deploymentStderr, why).toBe('');
      expect(stopped, why).toBe(0);
    });
  }
});
