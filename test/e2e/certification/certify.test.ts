/**
 * Certification: `certify` against the reference (certified, signed) and
 * against a mutant (not certified), `verify` of both, and tampering of every
 * kind verify must catch, each said in words. Every command runs main() in
 * this process, sparing a child process each: how bin/ hands an exit code to
 * the shell is tested once for every command (test/cli.test.ts).
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { BUNDLE_MARKER } from '../../../certification/bundle.js';
import type { Handler } from '../../../reference/handler.js';
import { WITHHELD_DIGEST } from '../../../core/boundary.js';
import { KEY_PLACEHOLDER, redactorFor } from '../../../core/redact.js';
import {
  headerOf,
  renderTranscript,
  toTranscriptEntry,
  TranscriptReplayer,
  type Transcript,
  type TranscriptEntry,
} from '../../../core/transcript.js';
import { startReference } from '../../../reference/server.js';
import { defineCheck } from '../../../suites/check.js';
import { naturalNamesFor, runConformance } from '../../../suites/engine.js';
import { certificationDecision } from '../../../result/policy.js';
import { builtinChecks } from '../../../suites/registry.js';
import { LOAD_SETUP_ANIMALS } from '../../../suites/load/phase.js';
import { createPet } from '../../../suites/requests.js';
import type { ConformanceResult } from '../../../result/model.js';
import { type Certification, certify } from '../../../certification/certify.js';
import { CONTRACT_API_KEY, mutants } from '../../fixtures/mutants/index.js';
import { swapCase } from '../../../core/redact.js';
import {
  DISTINCTIVE_KEY,
  pool,
  type Ran,
  reportErrors,
  repackBundleFiles,
  runInProcess,
  tempDir,
  unpackBundleFiles,
} from '../../helpers.js';
import { starvedStep } from '../../starvation.js';

// A test certifies or verifies once or twice (the set-up's certifications have their own bound): up to 12 s on a quiet
// two-core machine, ×6 for a runner that shares its cores.
vi.setConfig({ testTimeout: 80_000 });

const dir = tempDir();
const path = (name: string) => join(dir, name);
const PRODUCT = { name: 'Acme Petstore', version: '2.4.1', contact: 'certification@acme.example' };
const GOOD = path('good.tar.gz');
const BAD = path('bad.tar.gz');
const ECHO = path('echo.tar.gz');
const LOAD_ONLY = path('load-only.tar.gz');
const LAUNDERED = path('laundered.tar.gz');
const SILENT = path('silent.tar.gz');
const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
/** Certifications run at once in the set-up: one a core. */
const CERTIFICATIONS_AT_ONCE = 2;
/**
 * What one certification may take: the functional phases (40 cases a property) and the smoke profile (3 s), 10 to 20 s
 * on a quiet two-core machine beside another certification; ×4 for a runner that shares its cores with other work.
 */
const CERTIFICATION_MS = 80_000;
/** A timer of this process later than this missed what a deadline of seconds allows: the process was starved. */
const TIMER_BUDGET_MS = 1_000;

let good: Ran;
let bad: Ran;
let echoed: Ran;
let loadOnly: Certification;
let laundered: Ran;
let referenceUrl: string;

/**
 * The seed of the certifications whose targets must know the load profile's set-up animals: a certification's names are
 * natural, so only the seed tells them (`certify` takes one from a library caller; the command line never does). Natural
 * names may repeat within a run; with this seed no animal of the functional phases shares a set-up animal's name.
 */
const SETUP_SEED = 10;
/** What the load profile's set-up names its animals in a certification of {@link SETUP_SEED}. */
const LOAD_SETUP_NAMES = new Set(
  Array.from({ length: LOAD_SETUP_ANIMALS }, (_, i) => naturalNamesFor(SETUP_SEED, DISTINCTIVE_KEY).name(`load ${i}`)),
);
/** The name a create request carries, if any. */
const nameOf = (body: Uint8Array): unknown => {
  try {
    return (JSON.parse(Buffer.from(body).toString('utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
};
/** Certifies as `certify` does from the command line, with the seed of {@link SETUP_SEED}, and writes the bundle to `out`. */
async function certifyWithSetupSeed(baseUrl: string, out: string, options: { timeoutMs?: number } = {}): Promise<Certification> {
  const certification = await certify({ baseUrl, apiKey: DISTINCTIVE_KEY, product: PRODUCT, seed: SETUP_SEED, ...options });
  writeFileSync(out, certification.bundle);
  return certification;
}

/** A target that answers 500 to the animals the load profile creates before it starts, and only to those. */
const failOnLoadSetup =
  (inner: Handler): Handler =>
  async (request) => {
    const name = request.method === 'POST' ? nameOf(request.body) : undefined;
    if (typeof name === 'string' && LOAD_SETUP_NAMES.has(name))
      return { status: 500, headers: { 'content-type': 'application/json' }, body: { code: 'internal', message: 'no', status: 500 } };
    return inner(request);
  };

/** A target that stops answering once the load profile's set-up has created its animals: the profile gets no answer at all. */
const silentUnderLoad = (inner: Handler): Handler => {
  let created = 0;
  return async (request) => {
    if (created >= LOAD_SETUP_ANIMALS) return new Promise(() => {});
    const answer = await inner(request);
    const name = request.method === 'POST' ? nameOf(request.body) : undefined;
    if (typeof name === 'string' && LOAD_SETUP_NAMES.has(name)) created++;
    return answer;
  };
};

/** A JSON text as its value, members in one order (a text that is no JSON as it is): two writings of one body compare equal. */
function sameValue(text: string): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([x], [y]) => (x < y ? -1 : 1))
              .map(([k, w]) => [k, sorted(w)]),
          )
        : v;
  try {
    return JSON.stringify(sorted(JSON.parse(text)));
  } catch {
    return text;
  }
}

/**
 * A target whose 130th created animal is echoed with a wrong name (the store keeps it right): a failure that does not
 * repeat. A body created before is not counted (the differential probe sends some creates again as other clients, each
 * written its own way): the wrong echo goes to one of the checks' own creates, which CREATE-ECHO judges.
 */
const wrongOnce = (inner: Handler): Handler => {
  let creates = 0;
  const bodies = new Set<string>();
  return async (request) => {
    const answer = await inner(request);
    // By what it says, not how it is written: the probe's client writes the same body its own way.
    const sent = sameValue(Buffer.from(request.body).toString('utf8'));
    const again = bodies.has(sent);
    bodies.add(sent);
    if (request.method !== 'POST' || answer.status !== 201 || again || ++creates !== 130) return answer;
    const body = answer.body as { name: string };
    return { ...answer, body: { ...body, name: `${body.name}x` } };
  };
};

/** A target that echoes every request's headers and body back (in a header, and in error bodies): the key comes back in its answers. */
const echo =
  (inner: Handler): Handler =>
  async (request) => {
    const answer = await inner(request);
    const echoed = JSON.stringify({ headers: request.headers, body: Buffer.from(request.body).toString('utf8') });
    const header = Buffer.from(echoed)
      .toString('latin1')
      .replace(/[^\x20-\x7e]/g, '?');
    return { ...answer, headers: { ...answer.headers, 'x-echo': header }, body: answer.status >= 400 ? { echoed } : answer.body };
  };

beforeAll(
  async () => {
    writeFileSync(path('product.json'), JSON.stringify(PRODUCT));
    for (const name of ['vendor', 'other']) {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      writeFileSync(path(`${name}.pem`), privateKey.export({ type: 'pkcs8', format: 'pem' }));
      writeFileSync(path(`${name}.pub.pem`), publicKey.export({ type: 'spki', format: 'pem' }));
    }
    const mutant = mutants.find((m) => m.name === 'default-limit-21')!;
    const reference = await startReference({ apiKey: DISTINCTIVE_KEY });
    const broken = await startReference({ ...mutant.options, apiKey: CONTRACT_API_KEY, wrap: mutant.wrap });
    const echoing = await startReference({ apiKey: DISTINCTIVE_KEY, wrap: echo });
    const failsUnderLoad = await startReference({ apiKey: DISTINCTIVE_KEY, wrap: failOnLoadSetup });
    const intermittent = await startReference({ apiKey: DISTINCTIVE_KEY, wrap: wrongOnce });
    referenceUrl = reference.url;
    const cli = { timeoutMs: CERTIFICATION_MS };
    try {
      // Two at a time: five at once on two cores starved each other past their bounds (a run cut short by its own
      // deadlines judges less than it should). A failure while this process was starved says "starved: …" first.
      await starvedStep(TIMER_BUDGET_MS, () =>
        Promise.all(
          pool(
            [
              () =>
                runInProcess(
                  [
                    'certify',
                    '--base-url',
                    reference.url,
                    '--product',
                    path('product.json'),
                    '--out',
                    GOOD,
                    '--sign-key',
                    path('vendor.pem'),
                  ],
                  { ...cli, env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } },
                ).then((ran) => void (good = ran)),
              () =>
                runInProcess(
                  ['certify', '--base-url', broken.url, '--api-key', CONTRACT_API_KEY, '--product', path('product.json'), '--out', BAD],
                  cli,
                ).then((ran) => void (bad = ran)),
              () =>
                runInProcess(['certify', '--base-url', echoing.url, '--product', path('product.json'), '--out', ECHO], {
                  ...cli,
                  env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
                }).then((ran) => void (echoed = ran)),
              () => certifyWithSetupSeed(failsUnderLoad.url, LOAD_ONLY).then((certification) => void (loadOnly = certification)),
              // A deadline no answer misses beside another certification: the one wrong answer must be judged, not lost to a timeout
              // (seen once on a loaded runner: that create ended inconclusive and the run was certified with 4 inconclusive cases).
              () =>
                runInProcess(
                  ['certify', '--base-url', intermittent.url, '--product', path('product.json'), '--out', LAUNDERED, '--timeout', '30000'],
                  { ...cli, env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } },
                ).then((ran) => void (laundered = ran)),
            ],
            CERTIFICATIONS_AT_ONCE,
          ),
        ),
      );
    } finally {
      await Promise.all([reference.close(), broken.close(), echoing.close(), failsUnderLoad.close(), intermittent.close()]);
    }
  },
  Math.ceil(5 / CERTIFICATIONS_AT_ONCE) * CERTIFICATION_MS,
);

const unpack = unpackBundleFiles;
const repack = (files: Map<string, Buffer>) => repackBundleFiles(files, 'tampered.tar.gz');

/** `files` with `name` replaced and its hash in manifest.json updated, as a forger would. */
function replaceWithHash(files: Map<string, Buffer>, name: string, content: string): Map<string, Buffer> {
  const manifest = JSON.parse(files.get('manifest.json')!.toString()) as { files: Record<string, string> };
  manifest.files[name] = sha256(content);
  return new Map([...files, [name, Buffer.from(content)], ['manifest.json', Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)]]);
}

const json = <T>(files: Map<string, Buffer>, name: string) => JSON.parse(files.get(name)!.toString()) as T;
/** The entries of a bundle's transcript (an HTTP Archive). */
const transcriptOf = (files: Map<string, Buffer>) => json<Transcript>(files, 'transcript.har').log.entries;
const verify = (bundle: string, publicKey?: string) => runInProcess(['verify', bundle, ...(publicKey ? ['--public-key', publicKey] : [])]);
/** The ✗ lines of verify's output. */
const problems = (ran: Pick<Ran, 'stdout'>) => ran.stdout.split('\n').filter((l) => l.startsWith('✗ '));

describe('certify', () => {
  it('a passing run against the reference is certified; the bundle holds every file, hashed, and verifies with and without the public key', async () => {
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/CERTIFIED: Acme Petstore 2\.4\.1 conforms/);
    const files = await unpack(GOOD);
    expect([...files.keys()].sort()).toEqual([
      'junit.xml',
      'manifest.json',
      'manifest.sig',
      'product.json',
      'report.html',
      'report.json',
      'transcript.har',
    ]);
    const manifest = json<Record<string, unknown> & { files: Record<string, string>; environment: Record<string, string> }>(
      files,
      'manifest.json',
    );
    expect(manifest).toMatchObject({
      certified: true,
      reasons: [],
      numRuns: 40,
      load: 'smoke',
      target: referenceUrl,
      tool: { name: 'petstore-conformance' },
    });
    expect(Number.isInteger(manifest.seed)).toBe(true);
    // Natural names have no prefix: none is claimed.
    expect(manifest).not.toHaveProperty('namePrefix');
    expect(manifest.suiteHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(manifest.environment.node).toBe(process.version);
    expect(Object.keys(manifest.files).sort()).toEqual(['junit.xml', 'product.json', 'report.html', 'report.json', 'transcript.har']);
    for (const [name, hash] of Object.entries(manifest.files)) expect(sha256(files.get(name)!), name).toBe(hash);
    expect(json(files, 'product.json')).toEqual(PRODUCT);

    const report = json<ConformanceResult>(files, 'report.json');
    expect(reportErrors(report)).toEqual([]);
    expect(report).toMatchObject({
      seed: manifest.seed,
      numRuns: 40,
      options: { only: [], skip: [], load: 'smoke', strict: false, names: 'natural' },
    });
    expect(report).not.toHaveProperty('namePrefix');
    expect(report.summary.thresholds).toBe('pass');
    // Certification speaks as every client fingerprint: the differential probe decides CLIENT-INDEPENDENT.
    expect(report.rules.find((r) => r.id === 'CLIENT-INDEPENDENT')?.outcome).toBe('pass');
    // Every exchange sent through the HTTP client is an entry of the archive: the functional phases and the load profile's set-up.
    const transcript = json<Transcript>(files, 'transcript.har');
    expect(transcript.log).toMatchObject({ version: '1.2', creator: { name: 'petstore-conformance' } });
    const entries = transcript.log.entries;
    expect(entries).toHaveLength(report.summary.requests);
    expect(entries.map((e) => e._seq)).toEqual(entries.map((_, i) => i + 1));
    // The differential probe's prelude comes before anything else, the preflight right after it.
    expect(entries.find((e) => e._meta.check !== 'clients.differential')!._meta.check).toBe('preflight');
    expect(headerOf(entries[0]!.request.headers, 'authorization')).toBe('Bearer <API_KEY>');
    expect(entries.filter((e) => e._meta.check.startsWith('load.'))).toHaveLength(20);

    const signed = await verify(GOOD, path('vendor.pub.pem'));
    expect(signed.code, signed.stdout).toBe(0);
    expect(signed.stdout).toMatch(/✓ signature: manifest\.json is signed by the given Ed25519 key/);
    expect(signed.stdout).toMatch(/✓ verdicts: all 33 rules and their checks, recomputed from \d+ recorded exchanges/);
    expect(signed.stdout).toMatch(/- load: not recomputed .*; the thresholds are judged again from those figures$/m);
    expect(signed.stdout).toMatch(/^VERIFIED: .*; the bundle's decision: CERTIFIED$/m);
    const unchecked = await verify(GOOD);
    expect(unchecked.code).toBe(0);
    expect(unchecked.stdout).toMatch(/- signature: not checked \(no public key given\); the bundle has one/);
  });

  it('each certification draws its own seed, records it in manifest.json and report.json alike, and verify replays it', async () => {
    const bundles = [GOOD, BAD, ECHO, LAUNDERED];
    const seeds: number[] = [];
    for (const bundle of bundles) {
      const files = await unpack(bundle);
      const manifest = json<{ seed: number }>(files, 'manifest.json');
      expect(json<ConformanceResult>(files, 'report.json').seed).toBe(manifest.seed);
      seeds.push(manifest.seed);
    }
    // Four draws of 2^32 seeds: equal ones would mean a seed that is not drawn.
    expect(new Set(seeds).size, `seeds ${seeds.join(', ')}`).toBe(bundles.length);
    // The recorded seed is the one replayed: the recomputation sends exactly the recorded requests (GOOD in the first test).
    for (const bundle of [BAD, LAUNDERED]) {
      const ran = await verify(bundle);
      expect(ran.code, ran.stdout).toBe(0);
      expect(ran.stdout).toMatch(/✓ verdicts: all 33 rules and their checks, recomputed from \d+ recorded exchanges/);
    }
  });

  it('the certificate decision accepts any recorded seed (a fixed one of earlier bundles included) but still refuses other runs, load, strictness or waivers', async () => {
    const report = json<ConformanceResult>(await unpack(GOOD), 'report.json');
    expect(certificationDecision(report)).toEqual({ certified: true, reasons: [] });
    for (const seed of [report.seed ^ 0x5a5a5a5a, 20_301_205, -1, 0])
      expect(certificationDecision({ ...report, seed }), `seed ${seed}`).toEqual({ certified: true, reasons: [] });
    const refused = [
      { ...report, numRuns: 39 },
      { ...report, options: { ...report.options, load: 'none' } },
      { ...report, options: { ...report.options, strict: true } },
      { ...report, options: { ...report.options, only: ['AUTH-REQUIRED' as const] } },
      {
        ...report,
        waivers: [
          { rule: 'CREATE-RESPONSE', reason: 'r', issue: 'https://example.org/1', expires: '2999-12-31', status: 'unused' },
        ] as unknown as ConformanceResult['waivers'],
      },
    ];
    for (const changed of refused)
      expect(certificationDecision(changed).reasons).toContain(
        'not run with the certification settings (40 runs, load smoke, every rule, not strict, no waivers)',
      );
  });

  it('a failing run against a mutant is not certified (exit 1, the bundle says why) and the bundle still verifies', async () => {
    expect(bad.code, bad.stderr).toBe(1);
    expect(bad.stdout).toMatch(/NOT CERTIFIED: Acme Petstore 2\.4\.1\n {2}- 1 MUST rule\(s\) failed: LIST-LIMIT-DEFAULT/);
    const files = await unpack(BAD);
    expect(files.has('manifest.sig')).toBe(false);
    const manifest = json<{ certified: boolean; reasons: string[] }>(files, 'manifest.json');
    expect(manifest.certified).toBe(false);
    // The broken rule first; on a starved machine the smoke profile's latency may also miss its threshold, which is a
    // reason of its own (the load phase measured it), never one in place of the rule.
    expect(manifest.reasons[0]).toBe('1 MUST rule(s) failed: LIST-LIMIT-DEFAULT');
    for (const reason of manifest.reasons.slice(1)) expect(reason).toMatch(/^load threshold\(s\) breached or not measured: /);
    const ran = await verify(BAD);
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.stdout).toMatch(/manifest: NOT CERTIFIED \(1 MUST rule\(s\) failed: LIST-LIMIT-DEFAULT[;)]/);
    expect(ran.stdout).toMatch(/the bundle is unsigned/);
    const withKey = await verify(BAD, path('vendor.pub.pem'));
    expect(withKey.code).toBe(1);
    expect(problems(withKey)).toEqual(['✗ signature: manifest.sig is missing, but a public key was given: the bundle is unsigned']);
  });

  it("a failure seen only in the load profile's set-up, which verify cannot replay, is accepted as recorded", async () => {
    expect(loadOnly.manifest.certified).toBe(false);
    const report = json<ConformanceResult>(await unpack(LOAD_ONLY), 'report.json');
    const noServerErrors = report.rules.find((r) => r.id === 'RESPONSE-NO-5XX')!.checks.find((c) => c.id === 'responses.no-5xx')!;
    expect(noServerErrors.outcome).toBe('fail');
    const ran = await verify(LOAD_ONLY);
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.stdout).toMatch(/the bundle's decision: NOT CERTIFIED$/m);
  });

  it('the key is in no file of any bundle, nor in any output, also from a target that echoes it back; that bundle verifies too', async () => {
    for (const [bundle, key, ran] of [
      [GOOD, DISTINCTIVE_KEY, good],
      [BAD, CONTRACT_API_KEY, bad],
      [ECHO, DISTINCTIVE_KEY, echoed],
    ] as const) {
      const forms = [
        key,
        key.slice(0, -1),
        swapCase(key),
        Buffer.from(key).toString('base64'),
        Buffer.from(`conformance:${key}`).toString('base64'),
        encodeURIComponent(key),
      ];
      for (const [name, content] of await unpack(bundle))
        for (const form of forms) expect(content.toString('latin1').includes(form), `${name} holds ${form}`).toBe(false);
      for (const form of forms) expect(ran.stdout + ran.stderr).not.toContain(form);
    }
    // The echo did carry the key back: the transcript holds its placeholder in answers, headers and bodies.
    const entries = transcriptOf(await unpack(ECHO));
    expect(entries.some((e) => headerOf(e.response.headers, 'x-echo').includes('Bearer <API_KEY>'))).toBe(true);
    expect(entries.some((e) => Buffer.from(e.response.content.text, 'base64').toString().includes('Bearer <API_KEY>'))).toBe(true);
    expect(echoed.code).toBe(1);
    const ran = await verify(ECHO);
    expect(ran.code, ran.stdout).toBe(0);
  });

  it('a short key that ordinary words hold ("test", as "pctest-" does) is in no request the suite generates: nothing it sent was rewritten, and the untouched bundle verifies', async () => {
    const key = 'test';
    const reference = await startReference({ apiKey: key });
    const bundle = path('short-key.tar.gz');
    try {
      const ran = await runInProcess(['certify', '--base-url', reference.url, '--product', path('product.json'), '--out', bundle], {
        env: { PETSTORE_API_KEY: key },
      });
      expect(ran.code, ran.stderr).toBe(0);
    } finally {
      await reference.close();
    }
    const files = await unpack(bundle);
    const entries = transcriptOf(files);
    for (const { request } of entries) {
      const sent = `${request.url}\n${request.postData?._encoding === 'base64' ? Buffer.from(request.postData.text, 'base64').toString('utf8') : (request.postData?.text ?? '')}`;
      // What the suite generated holds neither the key nor a placeholder of it: redaction had nothing to rewrite.
      expect(sent).not.toContain(key);
      expect(sent).not.toContain('API_KEY');
      expect(request.headers.map((h) => h.name).join()).not.toContain('API_KEY');
    }
    // The auth checks' near misses are labelled as they are for any key, so verify's recomputation sends the same requests.
    const authorizations = new Set(entries.map((e) => headerOf(e.request.headers, 'authorization')));
    expect(authorizations).toContain('Bearer <<API_KEY> without its last character>');
    expect(authorizations).toContain('Bearer <<API_KEY> with its letter case swapped>');
    const ran = await verify(bundle);
    expect(ran.code, ran.stdout).toBe(0);
    expect(ran.stdout).toMatch(/✓ verdicts: all 33 rules and their checks, recomputed/);
  });

  it('a generated request that would carry the key is not sent: the check says so (naming the request by its digest only), and recomputing from the transcript stops at the same place', async () => {
    const key = 'Kq4-Vb7Pm2wQ-Zx81w-Tn3';
    // A check whose generated name happens to hold the key: the redaction boundary withholds the request.
    const unlucky = defineCheck({
      kind: 'example',
      id: 'test.unlucky-name',
      title: 'sends a name holding the key',
      phase: 'createPet',
      operation: 'createPet',
      rules: ['CREATE-RESPONSE'],
      async run(ctx) {
        const x = await ctx.send(createPet({ name: `pctest ${key.slice(2, 12)}`, categoryId: 1 }));
        if (x.response?.status === 201) ctx.pass('CREATE-RESPONSE');
      },
    });
    const reference = await startReference({ apiKey: key });
    const transcript: TranscriptEntry[] = [];
    const checks = [...builtinChecks, unlucky];
    let recorded: ConformanceResult;
    try {
      recorded = await runConformance({
        baseUrl: reference.url,
        apiKey: key,
        seed: 3,
        numRuns: 3,
        checks,
        onExchange: (x) => transcript.push(toTranscriptEntry(x, redactorFor(key))),
      });
    } finally {
      await reference.close();
    }
    const crashed = recorded.rules.flatMap((r) => r.checks).find((c) => c.id === 'test.unlucky-name')!;
    expect(crashed.outcome).toBe('error');
    expect(crashed.reason).toMatch(
      /a request the suite generated was not sent: it would have carried the API key \(request sha256:[0-9a-f]{64}\)/,
    );
    expect(JSON.stringify(recorded)).not.toContain(key.slice(2, 12));
    expect(renderTranscript(transcript)).not.toContain(key.slice(2, 12));
    // What verify does: the recorded exchanges answer, the withheld request throws again.
    const withheld = new Set([...JSON.stringify(recorded.rules).matchAll(WITHHELD_DIGEST)].map((m) => m[1]!));
    expect(withheld.size).toBe(1);
    const replayer = new TranscriptReplayer(transcript, { baseUrl: recorded.target, redactor: redactorFor(KEY_PLACEHOLDER), withheld });
    const again = await runConformance({
      baseUrl: recorded.target,
      apiKey: KEY_PLACEHOLDER,
      seed: 3,
      numRuns: 3,
      namePrefix: recorded.namePrefix,
      checks,
      transport: replayer,
    });
    expect(replayer.unmatched).toEqual([]);
    expect(again.rules.map((r) => [r.id, r.outcome, r.checks.map((c) => c.outcome)])).toEqual(
      recorded.rules.map((r) => [r.id, r.outcome, r.checks.map((c) => c.outcome)]),
    );
  });

  it.each(['sold', 'categoryId', 'xx-application/json-yy'])(
    'a key that is, or holds, a word the suite sends (%j) is refused before anything is sent (exit 2, one line, the key not in it)',
    async (key) => {
      const ran = await runInProcess([
        'certify',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--api-key',
        key,
        '--product',
        path('product.json'),
        '--out',
        path('never.tar.gz'),
      ]);
      expect(ran.code).toBe(2);
      expect(ran.stderr.trim().split('\n')).toHaveLength(1);
      expect(ran.stderr).toMatch(/the API key is, or holds, a word the suite sends, reads or writes in every run/);
      expect(ran.stderr).not.toContain(key);
    },
  );

  it('--out naming a file certify did not write is refused before anything is sent (exit 2, one line, the file as it was); a bundle it wrote is known as its own, so certify again replaces it', async () => {
    const mine = path('backup.tar.gz');
    writeFileSync(mine, gzipSync('my backup'));
    const ran = await runInProcess([
      'certify',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--api-key',
      'dummy-key',
      '--product',
      path('product.json'),
      '--out',
      mine,
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split('\n')).toEqual([
      `petstore-conformance: error: --out ${mine} (not written by petstore-conformance, left as it is); the suite replaces or removes only files it wrote: move it or give another --out (see certify --help)`,
    ]);
    expect(gunzipSync(readFileSync(mine)).toString()).toBe('my backup');
    for (const bundle of [GOOD, BAD]) expect(BUNDLE_MARKER.test(readFileSync(bundle).subarray(0, BUNDLE_MARKER.bytes))).toBe(true);
  });

  it('certify again to the same --out replaces its own bundle and says so in its bundle line', async () => {
    const out = path('again.tar.gz');
    const args = [
      'certify',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--api-key',
      'dummy-key-0123',
      '--product',
      path('product.json'),
      '--out',
      out,
    ];
    const first = await runInProcess(args);
    expect(first.stdout).toMatch(/^bundle: \S+again\.tar\.gz \(unsigned\); check it with/m);
    const second = await runInProcess(args);
    expect(second.code).toBe(first.code);
    expect(second.stdout).toMatch(/^bundle: \S+again\.tar\.gz \(unsigned; it replaced the bundle written there before\); check it with/m);
  });

  it.each([
    [
      { name: 'x', version: '1' },
      /--product .*product-[0-9a-f]{8}\.json: \/contact is missing: it must be an email address or an http\(s\) URL/,
    ],
    [{ ...PRODUCT, contact: 'call us' }, /\/contact .*: it must be an email address or an http\(s\) URL/],
    [{ ...PRODUCT, version: 'one two' }, /\/version .*: it must be a non-empty string without spaces/],
    [{ ...PRODUCT, colour: 'red' }, /\/colour is not a known key \(known keys: name, version, contact, description\)/],
  ])('an invalid product.json (%j) is refused before anything runs: exit 2, one line naming the key', async (product, message) => {
    const file = path(`product-${sha256(JSON.stringify(product)).slice(0, 8)}.json`);
    writeFileSync(file, JSON.stringify(product));
    const ran = await runInProcess([
      'certify',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--api-key',
      'dummy-key',
      '--product',
      file,
      '--out',
      path('never.tar.gz'),
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toMatch(message);
  });

  // The watch looks for every secret of the run (the key, secret headers' values…): the refusal says so without telling which.
  it.each([
    ['the API key', DISTINCTIVE_KEY, []],
    ["a secret header's value", 'Tk9-vendor-tenant-0451x', ['--secret-header', 'X-Tenant-Token: Tk9-vendor-tenant-0451x']],
  ])(
    'a product.json holding %s is refused before anything runs: exit 2, one line that neither quotes it nor says which secret it is',
    async (_what, secret, flags) => {
      const file = path(`product-${sha256(secret).slice(0, 8)}.json`);
      writeFileSync(file, JSON.stringify({ ...PRODUCT, description: `support line ${secret}` }));
      const ran = await runInProcess(
        ['certify', '--base-url', 'http://127.0.0.1:9/v1', '--product', file, '--out', path('never.tar.gz'), ...flags],
        { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } },
      );
      expect(ran.code).toBe(2);
      expect(ran.stderr).toBe(
        `petstore-conformance: error: --product ${file}: it holds one of the secrets the run sends (the API key, a secret header's value, a value taken from the environment); a product description must hold none (see certify --help)\n`,
      );
    },
  );

  it.each([
    [['--only', 'LIST-LIMIT-DEFAULT'], '--only'],
    [['--skip', 'AUTH-REQUIRED'], '--skip'],
    [['--seed', '1'], '--seed'],
    [['--num-runs', '5'], '--num-runs'],
    [['--load', 'none'], '--load'],
    [['--strict'], '--strict'],
    [['--waivers', 'waivers.json'], '--waivers'],
  ])('%j is refused: certification settings are fixed (exit 2, one line)', async (flags, flag) => {
    const ran = await runInProcess([
      'certify',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--api-key',
      'dummy-key',
      '--product',
      path('product.json'),
      '--out',
      path('never.tar.gz'),
      ...flags,
    ]);
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toContain(
      `certify runs with fixed settings (every rule, a seed drawn at random for each certification, 40 runs per property, load profile smoke`,
    );
    expect(ran.stderr).toContain(`${flag} is not accepted`);
  });
});

describe.concurrent('verify catches tampering', () => {
  it.each(['manifest.json', 'manifest.sig', 'product.json', 'report.json', 'junit.xml', 'report.html', 'transcript.har'])(
    'one byte changed in %s',
    async (name) => {
      const files = await unpack(GOOD);
      const bytes = Buffer.from(files.get(name)!);
      const at = Math.floor(bytes.length / 2);
      bytes[at] = bytes[at] === 0x30 ? 0x31 : 0x30;
      files.set(name, bytes);
      const ran = await verify(await repack(files), path('vendor.pub.pem'));
      expect(ran.code).toBe(1);
      const expected =
        name === 'manifest.sig' || name === 'manifest.json'
          ? /^✗ signature: manifest\.sig is not a valid signature of manifest\.json by the given key/
          : new RegExp(`^✗ ${name.replace('.', '\\.')}: changed since the manifest was made`);
      expect(
        problems(ran).some((l) => expected.test(l)),
        ran.stdout,
      ).toBe(true);
      expect(ran.stdout).toMatch(/^NOT VERIFIED: \d+ problem\(s\) above$/m);
    },
  );

  it('a failure that did not repeat (one wrong echo in 140 creates) is not laundered into a certificate, and verify recomputes it', async () => {
    expect(laundered.code, laundered.stdout).toBe(1);
    expect(laundered.stdout).toMatch(/NOT CERTIFIED: Acme Petstore 2\.4\.1\n {2}- 1 MUST rule\(s\) failed: CREATE-ECHO/);
    const files = await unpack(LAUNDERED);
    const report = json<ConformanceResult>(files, 'report.json');
    const finding = report.rules.find((r) => r.id === 'CREATE-ECHO')!.checks.flatMap((c) => c.findings)[0]!;
    expect(finding.outcome).toBe('fail');
    expect(finding.message).toMatch(/^Intermittent: /);
    expect((await verify(LAUNDERED)).code).toBe(0);
    // The failing rule edited to a pass, hashes updated: the recomputation from the transcript finds the failure again.
    const rule = report.rules.find((r) => r.id === 'CREATE-ECHO')!;
    rule.outcome = 'pass';
    report.summary.verdict = 'conformant';
    const ran = await verify(await repack(replaceWithHash(files, 'report.json', JSON.stringify(report, null, 2))));
    expect(ran.code).toBe(1);
    expect(problems(ran)).toContain('✗ CREATE-ECHO (MUST): report.json says pass; recomputed from the transcript: fail');
  });

  it("a forged certificate of a target that answered no load request (thresholds edited to pass, unsigned): they are judged again from the report's own figures", async () => {
    // Certified on its own, after the others: one more run beside them would slow them all.
    const target = await startReference({ apiKey: DISTINCTIVE_KEY, wrap: silentUnderLoad });
    let silent: Certification;
    try {
      silent = await certifyWithSetupSeed(target.url, SILENT, { timeoutMs: 1000 });
    } finally {
      await target.close();
    }
    expect(silent.manifest.certified).toBe(false);
    const files = await unpack(SILENT);
    const report = json<ConformanceResult>(files, 'report.json');
    const [load] = report.load;
    expect(load!.answered).toMatchObject({ answered: 0 });
    const due = load!.answered!.due;
    expect(due).toBeGreaterThan(0);
    // What a forger edits: every threshold, the summary, and the manifest's decision.
    for (const threshold of load!.thresholds) threshold.outcome = 'pass';
    report.summary.thresholds = 'pass';
    const forged = replaceWithHash(files, 'report.json', JSON.stringify(report, null, 2));
    const manifest = json<{ certified: boolean; reasons: string[] }>(forged, 'manifest.json');
    forged.set('manifest.json', Buffer.from(`${JSON.stringify({ ...manifest, certified: true, reasons: [] }, null, 2)}\n`));
    const ran = await verify(await repack(forged));
    expect(ran.code, ran.stdout).toBe(1);
    const lines = problems(ran);
    expect(lines).toContain(
      `✗ load: LOAD-SMOKE-ALL-ANSWERED (profile smoke) is pass in report.json, but fail when judged again from its own figures (measured 0% (only 0 of ${due} requests answered))`,
    );
    expect(lines).toContain(
      `✗ load: LOAD-SMOKE-ALL-ERRORRATE (profile smoke) is pass in report.json, but fail when judged again from its own figures (not measured: no request was answered (${due} sent: ${load!.overall.errors.timeouts} timeouts, ${load!.overall.errors.socketErrors} socket errors))`,
    );
    expect(lines).toContain('✗ load: report.json says thresholds pass, but its load results say fail');
    // Other reasons may come first (a rule left undecided on a starved machine); the load's must be among them.
    expect(
      lines.some(
        (l) =>
          l.startsWith('✗ certificate: manifest.json says certified, but report.json does not support one (') &&
          l.includes('load threshold(s) breached or not measured: ') &&
          l.includes(`only 0 of ${due} requests answered`),
      ),
    ).toBe(true);
    expect(ran.stdout).toMatch(/^NOT VERIFIED: /m);
    // The bundle as certify wrote it verifies: its decision follows from its figures.
    const untouched = await verify(SILENT);
    expect(untouched.code, untouched.stdout).toBe(0);
    expect(untouched.stdout).toMatch(/the bundle's decision: NOT CERTIFIED$/m);
  }, 120_000);

  it('a verdict edited in report.json, its hash updated (unsigned): the recomputation disagrees', async () => {
    const files = await unpack(BAD);
    const report = json<ConformanceResult>(files, 'report.json');
    const rule = report.rules.find((r) => r.id === 'LIST-LIMIT-DEFAULT')!;
    rule.outcome = 'pass';
    report.summary.verdict = 'conformant';
    const ran = await verify(await repack(replaceWithHash(files, 'report.json', JSON.stringify(report, null, 2))));
    expect(ran.code).toBe(1);
    expect(problems(ran)).toContain('✗ LIST-LIMIT-DEFAULT (MUST): report.json says pass; recomputed from the transcript: fail');
    expect(problems(ran)).toContain('✗ verdict: report.json says conformant; recomputed from the transcript: non-conformant');
    expect(ran.stdout).not.toMatch(/changed since the manifest/);
  });

  it('a verdict edited in report.json, its hash updated (signed): the signature catches it too', async () => {
    const files = await unpack(GOOD);
    const report = json<ConformanceResult>(files, 'report.json');
    const rule = report.rules.find((r) => r.id === 'GET-RESPONSE')!;
    rule.outcome = 'fail';
    for (const check of rule.checks) if (!check.id.startsWith('load.')) check.outcome = 'fail';
    const ran = await verify(await repack(replaceWithHash(files, 'report.json', JSON.stringify(report, null, 2))), path('vendor.pub.pem'));
    expect(ran.code).toBe(1);
    const lines = problems(ran);
    expect(lines).toContain(
      '✗ signature: manifest.sig is not a valid signature of manifest.json by the given key (signed by another key, or the manifest changed after signing)',
    );
    expect(lines).toContain('✗ GET-RESPONSE (MUST): report.json says fail; recomputed from the transcript: pass');
    expect(
      lines.some((l) => /^✗ GET-RESPONSE: check \S+ is fail in report\.json, but pass when recomputed from the transcript/.test(l)),
    ).toBe(true);
  });

  it('a response edited in the transcript (a status changed), its hash updated: the recomputation disagrees', async () => {
    const files = await unpack(GOOD);
    const entries = transcriptOf(files);
    const entry = entries.find((e) => e._meta.check === 'listPets.default-limit')!;
    expect(entry.response.status).toBe(200);
    entry.response.status = 503;
    const ran = await verify(await repack(replaceWithHash(files, 'transcript.har', renderTranscript(entries))));
    expect(ran.code).toBe(1);
    expect(
      problems(ran).some((l) =>
        / is pass in report\.json, but fail when recomputed from the transcript: Expected .*\/ Received 503/.test(l),
      ),
      ran.stdout,
    ).toBe(true);
    expect(ran.stdout).not.toMatch(/changed since the manifest/);
  });

  it('a file removed, and a file added', async () => {
    const files = await unpack(GOOD);
    files.delete('junit.xml');
    files.set('notes.txt', Buffer.from('trust me\n'));
    const ran = await verify(await repack(files), path('vendor.pub.pem'));
    expect(ran.code).toBe(1);
    expect(problems(ran)).toEqual([
      '✗ junit.xml: missing from the bundle (the manifest lists it)',
      '✗ notes.txt: extra file, not in the manifest',
    ]);
  });

  it('a signature by another key fails; the same bundle verifies against that key', async () => {
    const files = await unpack(GOOD);
    const other = readFileSync(path('other.pem'), 'utf8');
    files.set('manifest.sig', Buffer.from(`${sign(null, files.get('manifest.json')!, other).toString('base64')}\n`));
    const bundle = await repack(files);
    const ran = await verify(bundle, path('vendor.pub.pem'));
    expect(ran.code).toBe(1);
    expect(problems(ran)).toEqual([
      '✗ signature: manifest.sig is not a valid signature of manifest.json by the given key (signed by another key, or the manifest changed after signing)',
    ]);
    expect((await verify(bundle, path('other.pub.pem'))).code).toBe(0);
  });

  it.each([
    ['missing.tar.gz', /missing\.tar\.gz: no such file/],
    ['product.json', /product\.json: not a \.tar\.gz \(it is not gzip-compressed\)/],
    ['garbage.gz', /garbage\.gz: not a tar archive inside the gzip/],
  ])('%s is a usage error: exit 2, one line', async (name, message) => {
    writeFileSync(path('garbage.gz'), gzipSync(Buffer.from('not a tar archive at all '.repeat(50))));
    const ran = await verify(path(name));
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toMatch(message);
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  });
});
