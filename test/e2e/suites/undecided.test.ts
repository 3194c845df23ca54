/**
 * Issue 25, items 6 and 7: a MUST rule decided on no case is never green (verdict
 * inconclusive, exit 4, named with its cause in every report), and a rule whose
 * every failure shows one known pattern carries a certain diagnosis.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReference } from '../../../reference/server.js';
import { renderHtml } from '../../../reports/html.js';
import { renderJunit } from '../../../reports/junit.js';
import { renderStepSummary } from '../../../reports/github.js';
import { renderSummary } from '../../../reports/console.js';
import { renderMatrixHtml, renderMatrixMarkdown } from '../../../reports/matrix.js';
import { diagnose } from '../../../suites/diagnoses.js';
import type { Finding, RuleResult } from '../../../result/model.js';
import { runConformance } from '../../../suites/engine.js';
import type { ConformanceResult } from '../../../result/model.js';
import { certificationDecision, decideVerdict, EXIT, exitCode } from '../../../result/policy.js';
import { CONTRACT_API_KEY, mutants } from '../../fixtures/mutants/index.js';
import { reportErrors, runInProcess, tempDir, withServer } from '../../helpers.js';

const SEED = 20_241_205;
const create200 = mutants.find((m) => m.name === 'create-200')!;
const waiver = {
  rule: 'CREATE-RESPONSE',
  reason: 'createPet answers 200 until 2.4',
  issue: 'https://example.org/issues/25',
  expires: '2999-12-31',
} as const;

/** Runs a row of the zoo (test/fixtures/mutants/, block `issue 25: undecided`) with its waivers. */
async function run(mutantName: string): Promise<ConformanceResult> {
  const mutant = mutants.find((m) => m.name === mutantName)!;
  const server = await startReference({ ...mutant.options, apiKey: CONTRACT_API_KEY, wrap: mutant.wrap });
  try {
    return await runConformance({
      baseUrl: server.url,
      apiKey: CONTRACT_API_KEY,
      seed: SEED,
      numRuns: 10,
      load: 'none',
      ...(mutant.waivers ? { waivers: [...mutant.waivers] } : {}),
    });
  } finally {
    await server.close();
  }
}

describe('undecided is never green', () => {
  it('createPet answering 200 with CREATE-RESPONSE waived: inconclusive, exit 4, each undecided MUST rule pointing at CREATE-RESPONSE', async () => {
    const result = await run('create-200-waived');
    expect(result.summary.verdict, result.summary.reason).toBe('inconclusive');
    expect(exitCode(result.summary)).toBe(EXIT.inconclusive);
    expect(EXIT.inconclusive).toBe(4);
    const undecided = result.summary.undecided ?? [];
    const must = undecided.filter((u) => result.rules.find((r) => r.id === u.rule)?.severity === 'MUST').map((u) => u.rule);
    expect(must.sort()).toEqual(['CREATE-ECHO', 'CREATE-ID-UNIQUE', 'GET-RESPONSE', 'LIST-STATUS-COMPLETE']);
    for (const u of undecided)
      expect(u).toMatchObject({ see: 'CREATE-RESPONSE', cause: 'createPet never answered 201 (CREATE-RESPONSE waived)' });
    expect(result.summary.reason).toMatch(
      /4 MUST rule\(s\) decided on no case: LIST-STATUS-COMPLETE, CREATE-ECHO, CREATE-ID-UNIQUE, GET-RESPONSE \(not judged: createPet never answered 201 \(CREATE-RESPONSE waived\); see CREATE-RESPONSE\)/,
    );
    expect(reportErrors(result)).toEqual([]);
    // Every report names them with the phrase.
    const phrase = 'not judged: createPet never answered 201 (CREATE-RESPONSE waived); see CREATE-RESPONSE';
    expect(renderSummary(result, [], false)).toMatch(/^INCONCLUSIVE: /m);
    expect(renderSummary(result, [], false)).toContain(`? GET-RESPONSE ${phrase}`);
    expect(renderJunit(result)).toContain(phrase);
    expect(renderHtml(result)).toContain(phrase.replace(/\(/g, '(').replace(/'/g, '&#39;'));
    expect(renderHtml(result)).toContain('Inconclusive');
    expect(renderStepSummary(result)).toMatch(/❔ inconclusive: MUST rules decided on no case \(exit 4\)/);
    expect(renderStepSummary(result)).toContain(phrase);
    expect(renderMatrixMarkdown([{ result, label: 'x', evidence: 'r/report.json', evidenceKind: 'json' }])).toContain(phrase);
    // certify refuses it, naming the cause.
    const decision = certificationDecision(result);
    expect(decision.certified).toBe(false);
    expect(decision.reasons.join('\n')).toContain(
      `were inconclusive: LIST-STATUS-COMPLETE, CREATE-ECHO, CREATE-ID-UNIQUE, GET-RESPONSE (${phrase})`,
    );
  }, 120_000);

  it('without the waiver: non-conformant (fail beats inconclusive), the undecided rules each pointing at CREATE-RESPONSE', async () => {
    const result = await run('create-200-undecided');
    expect(result.summary.verdict).toBe('non-conformant');
    expect(exitCode(result.summary)).toBe(EXIT.nonConformant);
    const undecided = result.summary.undecided ?? [];
    expect(undecided.map((u) => u.rule).sort()).toEqual([
      'CREATE-ECHO',
      'CREATE-ID-UNIQUE',
      'GET-DEPRECATION-HEADER',
      'GET-RESPONSE',
      'GET-SUCCESSOR-LINK',
      'GET-SUNSET-HEADER',
      'LIST-PAGE-FULL',
      'LIST-STATUS-COMPLETE',
    ]);
    for (const u of undecided)
      expect(u).toMatchObject({
        see: 'CREATE-RESPONSE',
        cause: 'createPet never answered 201',
        why: { code: 'upstream', upstream: 'CREATE-RESPONSE', outcome: 'fail', never: true },
      });
    expect(result.summary.reason).toMatch(
      /^1 MUST rule\(s\) failed: CREATE-RESPONSE; 8 rule\(s\) decided on no case: .*\(not judged: createPet never answered 201; see CREATE-RESPONSE\)$/,
    );
  }, 120_000);

  it('a waiver naming the undecided rule itself keeps the run conformant; a pass with inconclusive cases stays a pass', () => {
    const rule = (id: 'GET-RESPONSE' | 'CREATE-RESPONSE', outcome: 'pass' | 'inconclusive', inconclusive: number) => ({
      id,
      title: id,
      severity: 'MUST' as const,
      group: 'getPet' as const,
      section: '',
      outcome,
      checks: [
        {
          id: 'c',
          kind: 'example' as const,
          title: 'c',
          outcome,
          passed: outcome === 'pass' ? 3 : 0,
          failed: 0,
          inconclusive,
          findings: [],
        },
      ],
    });
    const rules = [rule('CREATE-RESPONSE', 'pass', 2), rule('GET-RESPONSE', 'inconclusive', 0)];
    expect(decideVerdict({ rules, strict: false, loads: [] }).verdict).toBe('inconclusive');
    expect(decideVerdict({ rules, strict: false, loads: [], waived: ['GET-RESPONSE'] }).verdict).toBe('conformant');
    expect(decideVerdict({ rules: [rule('CREATE-RESPONSE', 'pass', 2)], strict: false, loads: [] }).verdict).toBe('conformant');
    // Nothing upstream failed: the cause is what its own checks were answered, and it points at the rule itself.
    expect(decideVerdict({ rules, strict: false, loads: [] }).undecided).toEqual([
      expect.objectContaining({ rule: 'GET-RESPONSE', see: 'GET-RESPONSE', cause: 'its checks sent no request that could show it' }),
    ]);
  });

  it('through the CLI: exit 4 and the headline names the cause', async () => {
    await withServer({ wrap: create200.wrap, apiKey: CONTRACT_API_KEY }, async (url) => {
      const dir = tempDir();
      writeFileSync(join(dir, 'waivers.json'), JSON.stringify({ waivers: [waiver] }));
      const ran = await runInProcess(
        ['--base-url', url, '--num-runs', '5', '--load', 'none', '--waivers', join(dir, 'waivers.json'), '--report-dir', join(dir, 'r')],
        { env: { PETSTORE_API_KEY: CONTRACT_API_KEY } },
      );
      expect(ran.code, ran.stdout + ran.stderr).toBe(4);
      expect(ran.stdout).toMatch(/INCONCLUSIVE: 4 MUST rule\(s\) decided on no case: .*see CREATE-RESPONSE/);
      const report = JSON.parse(readFileSync(join(dir, 'r', 'report.json'), 'utf8')) as ConformanceResult;
      expect(reportErrors(report)).toEqual([]);
      expect(report.summary.undecided?.length).toBeGreaterThanOrEqual(4);
    });
  }, 120_000);
});

/** A failing rule whose kept findings carry these differences (as suites/judge.ts words them). */
function failing(...findings: { code?: string; args: Record<string, unknown> }[]): Pick<RuleResult, 'outcome' | 'checks'> {
  const kept = findings.map((f) => ({ code: f.code ?? 'FETCHED_DIFFERS', args: f.args, outcome: 'fail' }) as unknown as Finding);
  return {
    outcome: 'fail',
    checks: [
      {
        id: 'getPet.round-trip',
        kind: 'example',
        title: '',
        outcome: 'fail',
        passed: 0,
        failed: kept.length,
        inconclusive: 0,
        findings: kept,
      },
    ],
  };
}

describe('diagnoses where the pattern is certain', () => {
  it('each pattern only when every failing finding shows it', () => {
    const codes = (rule: Pick<RuleResult, 'outcome' | 'checks'>) => diagnose(rule).map((d) => d.code);
    // categoryIds beyond 2^53 answered as their nearest double.
    expect(
      diagnose(
        failing(
          { args: { id: '3', differences: ['categoryId -9007199254740992 for -9007199254740993'] } },
          { code: 'ECHO_DIFFERS', args: { differences: ['categoryId 9007199254740996 for 9007199254740995'] } },
          // Far beyond 2^53, a double printed with the fewest digits that read back to it (JavaScript's, Python's).
          { code: 'ECHO_DIFFERS', args: { differences: ['categoryId -7149901668071186000 for -7149901668071186505'] } },
        ),
      ),
    ).toEqual([{ code: 'ids-as-doubles', text: 'categoryIds above 2^53 lose precision: the server handles them as IEEE doubles' }]);
    // Digits that read back to the same double, but neither its own nor the fewest: no server prints them so.
    expect(codes(failing({ args: { id: '3', differences: ['categoryId -7149901668071186001 for -7149901668071186505'] } }))).toEqual([]);
    // One finding outside the pattern: no diagnosis (never a guess).
    expect(
      codes(
        failing(
          { args: { id: '3', differences: ['categoryId -9007199254740992 for -9007199254740993'] } },
          { args: { id: '4', differences: ['status absent for "sold"'] } },
        ),
      ),
    ).toEqual([]);
    expect(codes(failing({ args: { id: '3', differences: ['categoryId 9007199254740990 for 9007199254740993'] } }))).toEqual([]);
    // Below 2^53 a different number is no rounding.
    expect(codes(failing({ args: { id: '3', differences: ['categoryId 12 for 13'] } }))).toEqual([]);
    // A wrong id: the other animal's fields follow from it; a 404 naming the rounded id shows the lookup.
    expect(
      diagnose(
        failing(
          { args: { id: '9007199254741113', differences: ['id 9007199254741112', 'name "a" for "b" (x)'] } },
          {
            code: 'FETCH_FAILED',
            args: { id: '9007199254740993', received: '404 (application/json): "No animal has id 9007199254740992."' },
          },
        ),
      ),
    ).toEqual([{ code: 'ids-as-doubles', text: 'ids above 2^53 lose precision: the server handles them as IEEE doubles' }]);
    expect(
      codes(failing({ code: 'FETCH_FAILED', args: { id: '9007199254740993', received: '404 (application/json): "not found"' } })),
    ).toEqual([]);
    // 32-bit clamps and wraps.
    expect(
      codes(
        failing(
          { args: { id: '3', differences: ['categoryId 2147483647 for 9223372036854775807'] } },
          { args: { id: '4', differences: ['categoryId -2147483648 for -4294967297'] } },
        ),
      ),
    ).toEqual(['int32-clamp']);
    expect(
      codes(
        failing(
          { args: { id: '3', differences: ['categoryId 1 for 4294967297'] } },
          { args: { id: '4', differences: ['categoryId -1 for 4294967295'] } },
        ),
      ),
    ).toEqual(['int32-wrap']);
    // Trimmed names.
    expect(
      diagnose(failing({ args: { id: '3', differences: ['name "pctest-1 padded" for "pctest-1 padded  " (from code point 16: …)'] } })),
    ).toEqual([{ code: 'names-trimmed', text: 'names lose their leading or trailing white space: the server trims them' }]);
    expect(
      codes(
        failing(
          { args: { id: '3', differences: ['name "pctest-1 padded" for "pctest-1 padded  " (x)'] } },
          { args: { id: '4', differences: ['name "pctest-1 pad" for "pctest-1 padded" (x)'] } },
        ),
      ),
    ).toEqual([]);
    // A passing rule has none.
    expect(diagnose({ outcome: 'pass', checks: [] })).toEqual([]);
  });

  it('a server that rounds categoryIds beyond 2^53 gets the diagnosis on CREATE-ECHO and GET-RESPONSE, shown in every report', async () => {
    const result = await run('categoryId-through-double');
    const text = 'categoryIds above 2^53 lose precision: the server handles them as IEEE doubles';
    for (const id of ['CREATE-ECHO', 'GET-RESPONSE'])
      expect(result.rules.find((r) => r.id === id)?.diagnoses, id).toEqual([{ code: 'ids-as-doubles', text }]);
    expect(reportErrors(result)).toEqual([]);
    expect(renderSummary(result, [], false)).toContain(`    diagnosis: ${text}`);
    expect(renderJunit(result)).toContain(`diagnosis: ${text}`);
    expect(renderHtml(result)).toContain(`diagnosis: ${text}`);
    expect(renderStepSummary(result)).toContain(`diagnosis: ${text}`);
    expect(renderMatrixHtml([{ result, label: 'x', evidence: 'r/report.json', evidenceKind: 'json' }])).toContain(`diagnosis: ${text}`);
  }, 120_000);

  it('a server that looks petIds up as doubles gets "ids above 2^53 lose precision" on GET-RESPONSE', async () => {
    const result = await run('petId-parsed-with-Number');
    expect(result.rules.find((r) => r.id === 'GET-RESPONSE')?.diagnoses).toEqual([
      { code: 'ids-as-doubles', text: 'ids above 2^53 lose precision: the server handles them as IEEE doubles' },
    ]);
    expect(result.rules.find((r) => r.id === 'GET-NOT-FOUND')?.diagnoses).toBeUndefined();
  }, 120_000);
});
