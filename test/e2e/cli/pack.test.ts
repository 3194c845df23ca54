import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, TINY_PROFILE } from '../../helpers.js';

const root = new URL('../../..', import.meta.url).pathname;
const quiet = {
  encoding: 'utf8' as const,
  stdio: ['ignore', 'pipe', 'pipe'] as ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, NO_COLOR: '1', npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false' },
};

describe('the packed package', () => {
  it('installs into an empty folder and gives a working npx petstore-conformance and import', () => {
    const packDir = tempDir();
    // dist/ is built before the tests run (npm test): packing it as it is spares a second build by the prepare script.
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', packDir], { ...quiet, cwd: root });
    const tarball = readdirSync(packDir).find((f) => f.endsWith('.tgz'))!;
    const files = execFileSync('tar', ['-tzf', join(packDir, tarball)], quiet).split('\n');
    expect(files).toContain('package/bin/petstore-conformance.js');
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files.some((f) => f.startsWith('package/test/'))).toBe(false);

    const app = tempDir();
    writeFileSync(join(app, 'package.json'), '{"name":"consumer","version":"1.0.0","type":"module","private":true}');
    execFileSync('npm', ['install', '--prefer-offline', join(packDir, tarball)], { ...quiet, cwd: app });

    // npx once, as users type it; every other command calls the installed bin link directly (each npx costs a second of CPU).
    const bin = join(app, 'node_modules', '.bin', 'petstore-conformance');
    expect(execFileSync(bin, ['--version'], { ...quiet, cwd: app }).trim()).toMatch(/^\d+\.\d+\.\d+$/);
    // With a load phase of one second (smoke, the default, lasts three), from the config file the installed CLI finds.
    writeFileSync(join(app, 'petstore-conformance.config.json'), JSON.stringify({ profiles: { tiny: TINY_PROFILE } }));
    const out = execFileSync('npx', ['petstore-conformance', '--embedded', '--num-runs', '3', '--load', 'tiny', '--report-dir', 'r'], {
      ...quiet,
      cwd: app,
    });
    expect(out).toMatch(/CONFORMANT/);
    expect(JSON.parse(readFileSync(join(app, 'r', 'report.json'), 'utf8')).load[0].profile).toBe('tiny');

    writeFileSync(
      join(app, 'use.mjs'),
      `
      import { runConformance, startReference, renderJunit, renderHtml, renderJson, renderSummary } from 'petstore-conformance';
      const server = await startReference({ apiKey: 'pack-key' });
      const result = await runConformance({ baseUrl: server.url, apiKey: 'pack-key', seed: 1, numRuns: 3 });
      await server.close();
      const reports = [renderJunit(result).startsWith('<?xml'), renderHtml(result).includes('</html>'), JSON.parse(renderJson(result)).seed === 1, renderSummary(result, [], false).includes('CONFORMANT')];
      console.log(result.summary.verdict, result.rules.length, reports.join(','));
    `,
    );
    expect(execFileSync('node', ['use.mjs'], { ...quiet, cwd: app }).trim()).toMatch(/^conformant \d+ true,true,true,true$/);

    // Certification from the installed package: certify against a served reference, verify offline, compare in a matrix.
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(join(app, 'signing.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(join(app, 'public.pem'), publicKey.export({ type: 'spki', format: 'pem' }));
    writeFileSync(
      join(app, 'product.json'),
      JSON.stringify({ name: 'Packed Pets', version: '1.0.0', contact: 'https://example.invalid/support' }),
    );
    // The reference runs in this script's process: the CLI must be spawned asynchronously, or the server could not answer.
    writeFileSync(
      join(app, 'certify.mjs'),
      `
      import { spawn } from 'node:child_process';
      import { startReference } from 'petstore-conformance';
      const server = await startReference({ apiKey: 'packed-key' });
      const child = spawn('node_modules/.bin/petstore-conformance', ['certify', '--base-url', server.url, '--product', 'product.json', '--out', 'bundle.tar.gz', '--sign-key', 'signing.pem'], { env: { ...process.env, PETSTORE_API_KEY: 'packed-key' }, stdio: 'ignore' });
      const code = await new Promise((resolve) => child.on('close', resolve));
      await server.close();
      console.log(code);
    `,
    );
    expect(execFileSync('node', ['certify.mjs'], { ...quiet, cwd: app }).trim()).toBe('0');
    expect(execFileSync(bin, ['verify', 'bundle.tar.gz', '--public-key', 'public.pem'], { ...quiet, cwd: app })).toMatch(/VERIFIED/);
    execFileSync(bin, ['matrix', 'r/report.json', '--out-dir', 'm'], { ...quiet, cwd: app });
    expect(readdirSync(join(app, 'm'))).toEqual(expect.arrayContaining(['matrix.html', 'matrix.md']));

    // A failure against a broken variant (default limit 21): replayed from the installed package, then waived.
    writeFileSync(
      join(app, 'waivers.json'),
      JSON.stringify([{ rule: 'LIST-LIMIT-DEFAULT', reason: 'known', issue: 'https://tracker.example/1', expires: '2999-12-31' }]),
    );
    writeFileSync(
      join(app, 'broken.mjs'),
      `
      import { spawn } from 'node:child_process';
      import { readFileSync } from 'node:fs';
      import { startReference } from 'petstore-conformance';
      const wrap = (inner) => (request) => inner(request.method === 'GET' && request.path === '/pets' && !request.query.has('limit') ? { ...request, query: new URLSearchParams([...request.query, ['limit', '21']]) } : request);
      const server = await startReference({ apiKey: 'packed-key', wrap });
      const run = (args) => new Promise((resolve) => spawn('node_modules/.bin/petstore-conformance', args, { env: { ...process.env, PETSTORE_API_KEY: 'packed-key' }, stdio: 'ignore' }).on('close', resolve));
      const failing = await run(['--base-url', server.url, '--load', 'none', '--num-runs', '3', '--report-dir', 'bad']);
      const report = JSON.parse(readFileSync('bad/report.json', 'utf8'));
      const id = report.rules.find((r) => r.id === 'LIST-LIMIT-DEFAULT').checks.flatMap((c) => c.findings)[0].case.id;
      const replayed = await run(['replay', 'bad/report.json', id, '--base-url', server.url]);
      const waived = await run(['--base-url', server.url, '--load', 'none', '--num-runs', '3', '--report-dir', 'waived', '--waivers', 'waivers.json']);
      await server.close();
      console.log([failing, replayed, waived].join(' '));
    `,
    );
    expect(execFileSync('node', ['broken.mjs'], { ...quiet, cwd: app }).trim()).toBe('1 1 0');
  }, 300_000);
});
