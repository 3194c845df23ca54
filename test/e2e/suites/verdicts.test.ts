/**
 * Gates that must never read green by accident, and the verdict policy's edges:
 * an empty selection, a base URL that misses the interface, re-run commands
 * that reproduce their failure (a SHOULD warning and a failure seen only under
 * load among them), the wait budget for 429s, the run's time bound.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Handler } from '../../../reference/handler.js';
import { startReference } from '../../../reference/server.js';
import { runConformance } from '../../../suites/engine.js';
import { PREFLIGHT_LIMIT } from '../../../suites/requests.js';
import { LOAD_SETUP_ANIMALS } from '../../../suites/load/phase.js';
import type { ConformanceResult, Finding } from '../../../result/model.js';
import { rerunCommand } from '../../../reports/commands.js';
import { CONTRACT_API_KEY, mutants } from '../../fixtures/mutants/index.js';
import { DISTINCTIVE_KEY, runInProcess, tempDir, TINY_PROFILE, withServer } from '../../helpers.js';

describe('no empty green', () => {
  it('a selection that leaves no MUST rule is a usage error, exit 2', async () => {
    // Refused before anything is sent: nothing listens on port 9.
    const target = ['--base-url', 'http://127.0.0.1:9/v1', '--api-key', 'dummy-key'];
    const ran = await runInProcess([...target, '--only', 'LIST-RESPONSE', '--skip', 'LIST-RESPONSE', '--report-dir', tempDir()]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/--only\/--skip leave no MUST rule to run/);
    expect(ran.stdout).not.toMatch(/CONFORMANT/);
    const shouldOnly = await runInProcess([...target, '--only', 'GET-SUNSET-HEADER', '--report-dir', tempDir()]);
    expect(shouldOnly.code).toBe(2);
    expect(shouldOnly.stderr).toMatch(/--only\/--skip leave no MUST rule to run/);
  });

  it('a base URL without /v1 stops with exit 2 and a hint, instead of failing the whole interface', async () => {
    await withServer({}, async (url) => {
      const bare = url.replace(/\/v1$/, '');
      const ran = await runInProcess(['--base-url', `${bare}/`, '--report-dir', tempDir()], { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } });
      expect(ran.code).toBe(2);
      expect(ran.stderr).toContain(`did you mean ${bare}/v1?`);
      expect(ran.stderr).not.toMatch(/\/\/pets/);
      expect(ran.stdout).not.toMatch(/NON-CONFORMANT/);
    });
  });

  it('a run whose every request is still rate-limited after the wait budget is not conformant', async () => {
    const always429: Handler = () => ({
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '30' },
      body: { code: 'rate_limited', message: 'later', status: 429 },
    });
    await withServer(
      {
        wrap: (inner) => (request) =>
          request.path === '/pets' && request.method === 'GET' && request.query.get('limit') === `${PREFLIGHT_LIMIT}`
            ? inner(request)
            : always429(request),
      },
      async (url) => {
        // The reason says the 0 s budget was spent: no Retry-After (30 s) was waited for.
        const result = await runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 5, numRuns: 5, maxWaitMs: 0 });
        expect(result.summary.verdict).toBe('error');
        expect(result.summary.reason).toMatch(/still rate-limiting after the 0 s wait budget: \d+ check\(s\) were cut short/);
        const findings = result.rules.flatMap((r) => r.checks.flatMap((c) => c.findings));
        expect(
          findings.some(
            (f) => f.outcome === 'inconclusive' && /still answered 429 \(a temporary answer\)/.test(f.message) && f.evidence.length > 0,
          ),
        ).toBe(true);
        expect(result.rules.filter((r) => r.outcome === 'fail').map((r) => r.id)).toEqual([]);
      },
    );
  });
});

describe('429 answers within the wait budget', () => {
  it('Retry-After beyond 5 s is honoured (every request paused) and the run passes', async () => {
    let n = 0;
    /** When each request after the 429 arrived. */
    const arrivals: number[] = [];
    const limiter =
      (inner: Handler): Handler =>
      (request) => {
        if (++n === 40)
          return {
            status: 429,
            headers: { 'content-type': 'application/json', 'retry-after': '6' },
            body: { code: 'rate_limited', message: 'slow down', status: 429 },
          };
        if (n > 40) arrivals.push(Date.now());
        return inner(request);
      };
    const result = await withServer({ wrap: limiter }, (url) =>
      runConformance({ baseUrl: url, apiKey: DISTINCTIVE_KEY, seed: 11, numRuns: 5 }),
    );
    expect(result.summary.verdict, result.summary.reason).toBe('conformant');
    // Every sender paused: after the requests already on their way when the suite read the 429, nothing arrived for more
    // than 5 s (a gap, not a window from the 429: on a busy machine those stragglers arrive late). A cap at 5 s would show.
    const silence = Math.max(...arrivals.slice(1).map((at, i) => at - arrivals[i]!));
    expect(silence, 'the longest time without a request after the 429, ms').toBeGreaterThan(5_000);
    expect(result.observations.find((o) => o.gap === 'GAP-RATE-LIMITS')?.summary).toMatch(/every request paused 6 s/);
  }, 60_000);
});

describe("the run's time bound", () => {
  it('past --max-time the rest is not run, the verdict is error, the reports are written', async () => {
    const slow =
      (inner: Handler): Handler =>
      async (request) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return inner(request);
      };
    await withServer({ wrap: slow }, async (url) => {
      const dir = tempDir();
      const ran = await runInProcess(['--base-url', url, '--max-time', '2', '--report-dir', dir, '--seed', '3'], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      });
      expect(ran.code).toBe(2);
      expect(ran.stdout).toMatch(/ERROR: the run reached its time bound \(2 s\)/);
      expect(readdirSync(dir)).toContain('report.json');
    });
  });
});

/** The re-run command of a finding, as argv for the CLI. */
function rerunArgs(run: ConformanceResult, finding: Finding): string[] {
  const words = rerunCommand(run, finding.rerun).split(' ');
  expect(words.slice(0, 2)).toEqual(['npx', 'petstore-conformance']);
  // The CLI reads the key from PETSTORE_API_KEY: no command it prints puts it (or a variable holding it) on a command line.
  expect(words).not.toContain('--api-key');
  return words.slice(2);
}

describe('every printed re-run command reproduces its failure', () => {
  // One mutant per kind of judgement: a response check, a list, a create echo, a fetch, a status, auth, a property.
  const cases: [string, string][] = [
    ['error-without-code', 'ERROR-SCHEMA'],
    ['default-limit-21', 'LIST-LIMIT-DEFAULT'],
    ['name-trimmed', 'CREATE-ECHO'],
    ['getPet-drops-status', 'GET-RESPONSE'],
    ['adopted-accepted', 'CREATE-REJECT-INVALID'],
    ['any-bearer-token', 'AUTH-INVALID-KEY'],
    ['limit-validated-before-auth', 'AUTH-BEFORE-VALIDATION'],
    ['orders-not-routed', 'ORDERS-EXISTS'],
    ['limit-over-100-crashes', 'RESPONSE-NO-5XX'],
    ['getPet-empty-body', 'GET-RESPONSE'],
  ];
  for (const [name, rule] of cases) {
    it(`${name}: ${rule}`, async () => {
      const mutant = mutants.find((m) => m.name === name)!;
      const server = await startReference({ ...mutant.options, apiKey: CONTRACT_API_KEY, wrap: mutant.wrap });
      try {
        const result = await runConformance({ baseUrl: server.url, apiKey: CONTRACT_API_KEY, seed: 424_242, numRuns: 10 });
        const findings = result.rules
          .find((r) => r.id === rule)!
          .checks.flatMap((c) => c.findings)
          .filter((f) => f.outcome === 'fail');
        expect(findings.length, `${name} should fail ${rule}`).toBeGreaterThan(0);
        // Through main() in this process: what is tested is the printed argv, not how bin/ starts.
        const ran = await runInProcess([...rerunArgs(result, findings[0]!), '--report-dir', tempDir()], {
          env: { PETSTORE_API_KEY: CONTRACT_API_KEY },
        });
        expect(ran.code, ran.stdout + ran.stderr).toBe(1);
        expect(ran.stdout).toMatch(new RegExp(`✗ ${rule} \\(MUST\\)`));
      } finally {
        await server.close();
      }
    });
  }

  it('a SHOULD finding (no-www-authenticate: AUTH-CHALLENGE): the re-run exits 0 with the same warning', async () => {
    const mutant = mutants.find((m) => m.name === 'no-www-authenticate')!;
    const server = await startReference({ ...mutant.options, apiKey: CONTRACT_API_KEY, wrap: mutant.wrap });
    try {
      const result = await runConformance({ baseUrl: server.url, apiKey: CONTRACT_API_KEY, seed: 424_242, numRuns: 10 });
      const findings = result.rules
        .find((r) => r.id === 'AUTH-CHALLENGE')!
        .checks.flatMap((c) => c.findings)
        .filter((f) => f.outcome === 'fail');
      expect(findings.length).toBeGreaterThan(0);
      const ran = await runInProcess([...rerunArgs(result, findings[0]!), '--report-dir', tempDir()], {
        env: { PETSTORE_API_KEY: CONTRACT_API_KEY },
      });
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.stdout).toMatch(/^! AUTH-CHALLENGE \(SHOULD, warning\) /m);
      expect(ran.stdout).toContain(findings[0]!.message);
    } finally {
      await server.close();
    }
  });

  it('a failure seen only under load (the status filter breaks once the load set-up is done): the re-run loads the same profile and fails the same way', async () => {
    // A config file's profile of about a second, as a user's would be: the printed re-run names it, and runs where that file is found.
    const dir = tempDir();
    writeFileSync(join(dir, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { tiny: TINY_PROFILE } }));
    const underLoad = (result: ConformanceResult) =>
      result.rules
        .find((r) => r.id === 'LIST-STATUS-FILTER')!
        .checks.flatMap((c) => c.findings)
        .filter((f) => f.outcome === 'fail');
    let server = await startReference({ apiKey: CONTRACT_API_KEY, wrap: filterBreaksAfterLoadSetup });
    try {
      const result = await runConformance({
        baseUrl: server.url,
        apiKey: CONTRACT_API_KEY,
        seed: 424_242,
        numRuns: 10,
        load: 'tiny',
        loadProfiles: { tiny: { name: 'tiny', ...TINY_PROFILE } },
      });
      const findings = underLoad(result);
      expect(findings.length).toBeGreaterThan(0);
      expect(findings.every((f) => f.underLoad === 'tiny')).toBe(true);
      const args = rerunArgs(result, findings[0]!);
      expect(args.join(' ')).toContain('--load tiny');
      // The same target, fresh (on the same address): its filter holds again until the re-run's own load set-up.
      const { port } = server;
      await server.close();
      server = await startReference({ apiKey: CONTRACT_API_KEY, wrap: filterBreaksAfterLoadSetup, port });
      const reports = join(dir, 'rerun');
      const ran = await runInProcess([...args, '--report-dir', reports], { cwd: dir, env: { PETSTORE_API_KEY: CONTRACT_API_KEY } });
      expect(ran.code, ran.stdout + ran.stderr).toBe(1);
      expect(ran.stdout).toMatch(/^✗ LIST-STATUS-FILTER \(MUST\) /m);
      const again = underLoad(JSON.parse(readFileSync(join(reports, 'report.json'), 'utf8')) as ConformanceResult);
      expect(again.length).toBeGreaterThan(0);
      expect(again.every((f) => f.underLoad === 'tiny')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('a store that already holds 100 or more animals of every status', () => {
  // 450 prefilled: 112 or 113 of each status, so every status's page of 100 is full before the suite creates anything
  // (a staging server after a few runs). The reference lists oldest first: the suite's own animals are on no page.
  const PREFILL = 450;
  const completeness = async (wrap?: (inner: Handler) => Handler) => {
    const server = await startReference({ apiKey: CONTRACT_API_KEY, prefill: PREFILL, ...(wrap ? { wrap } : {}) });
    try {
      return await runConformance({ baseUrl: server.url, apiKey: CONTRACT_API_KEY, seed: 20_241_205, numRuns: 10 });
    } finally {
      await server.close();
    }
  };

  it('a correct target is conformant: a full page answers the filter, and the animals it leaves out are observed', async () => {
    const result = await completeness();
    expect(result.summary.verdict, result.summary.reason).toBe('conformant');
    expect(result.rules.find((r) => r.id === 'LIST-STATUS-COMPLETE')!.outcome).toBe('pass');
    const fullPages = result.observations.filter((o) => o.gap === 'GAP-PAGINATION' && / a full page of 100; /.test(o.summary));
    expect(fullPages.map((o) => o.summary.replace(/; .*/, '')).sort()).toEqual([
      'status=available: a full page of 100',
      'status=pending: a full page of 100',
      'status=sold: a full page of 100',
    ]);
  });

  it('a page of 100 that repeats an animal is not full: a created animal it leaves out fails', async () => {
    const join = mutants.find((m) => m.name === 'list-join-duplicates')!;
    const result = await completeness(join.wrap);
    expect(result.summary.verdict).toBe('non-conformant');
    const complete = result.rules.find((r) => r.id === 'LIST-STATUS-COMPLETE')!;
    expect(complete.outcome).toBe('fail');
    const codes = new Set(complete.checks.flatMap((c) => c.findings).map((f) => f.code));
    expect([...codes]).toEqual(['LISTED_MISSING']);
  });
});

/** The status filter holds until the load profile's set-up has created its animals; from then on it is ignored (every status is listed). */
const filterBreaksAfterLoadSetup = (inner: Handler): Handler => {
  let created = 0;
  return async (request) => {
    if (created >= LOAD_SETUP_ANIMALS && request.method === 'GET' && request.path === '/pets' && request.query.has('status')) {
      const query = new URLSearchParams(request.query);
      query.delete('status');
      return inner({ ...request, query });
    }
    const answer = await inner(request);
    if (request.method === 'POST' && / load \d+"/.test(Buffer.from(request.body).toString('utf8'))) created++;
    return answer;
  };
};
