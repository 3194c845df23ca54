import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startReference } from '../../../reference/server.js';
import type { ConformanceResult } from '../../../result/model.js';
import { DISTINCTIVE_KEY, reportErrors, runInProcess, tempDir, withServer } from '../../helpers.js';

function withConfig(content: unknown): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'petstore-conformance.config.json'), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

describe('petstore-conformance.config.json', () => {
  it('is read from the working directory; flags win over it', async () => {
    const cwd = withConfig({ numRuns: 3, seed: 77, reportDir: 'from-file', only: ['LIST-LIMIT-DEFAULT'] });
    const ran = await withServer({}, (url) =>
      runInProcess(['--base-url', url, '--seed', '78'], { cwd, env: { PETSTORE_API_KEY: DISTINCTIVE_KEY } }),
    );
    expect(ran.code).toBe(0);
    const report = JSON.parse(readFileSync(join(cwd, 'from-file', 'report.json'), 'utf8')) as {
      seed: number;
      numRuns: number;
      options: { only: string[] };
    };
    expect(report.seed).toBe(78);
    expect(report.numRuns).toBe(3);
    expect(report.options.only).toEqual(['LIST-LIMIT-DEFAULT']);
  });

  it('is read from --config when given, and must then exist', async () => {
    const dir = withConfig({ numRuns: 2, reportDir: 'x', reporter: ['json'] });
    const ran = await withServer({}, (url) =>
      runInProcess(['--base-url', url, '--config', join(dir, 'petstore-conformance.config.json')], {
        cwd: tempDir(),
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      }),
    );
    expect(ran.code).toBe(0);
    const missing = await runInProcess(['--embedded', '--config', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read the config file .*nope\.json: no such file\n$/);
  });

  // Nothing shared: side by side.
  it.concurrent.each([
    [{ bogus: 1 }, /\.json: \/bogus is not a known key\n$/],
    [{ numRuns: '3' }, /\.json: \/numRuns must be integer\n$/],
    [{ only: ['NOT-A-RULE'] }, /\.json: \/only\/0 must be one of "PET-SCHEMA", .*, …\n$/],
    [{ apiKey: 'secret' }, /the API key is never read from a file/],
    ['{ not json', /\.json is not valid JSON: at line 1, column 3 \(the file's text is not shown\)\n$/],
  ])('%j is refused with a line naming the offending key', async (content, message) => {
    const ran = await runInProcess(['--embedded'], { cwd: withConfig(content) });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(message);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    // A config file's problem is fixed in the file (or --config), not with --help.
    expect(ran.stderr).not.toContain('--help');
  });

  it('a file nested thousands of levels deep is refused in one line naming it, before it is walked', async () => {
    // The walk went past the stack: "internal error: Maximum call stack size exceeded", no file named.
    const ran = await runInProcess(['--embedded'], { cwd: withConfig(`{"profiles":${'['.repeat(5000)}${']'.repeat(5000)}}`) });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/\.json: nested deeper than 32 levels, more than any setting holds \(the file's text is not shown\)\n$/);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
  });

  // JSON.parse's message quotes the text around the fault (`Unexpected token 'T', …"Tk9-…" is not valid JSON`): a value
  // pasted unquoted, a secret among them, would be printed.
  it.concurrent.each([
    ['{\n  "baseUrl": "http://127.0.0.1:9/v1",\n  "headers": { "X-Token": Tk9-pasted-unquoted-0451 }\n}\n', 'at line 3, column 27'],
    ['{\n  "headers": { "X-Token": "Tk9-pasted-unquoted-0451" x }\n}\n', 'at line 2, column 54'],
    ['{\n  "headers": { "X-Token": "Tk9-pasted-unquoted-0451"', 'it ends at line 2, column 53 before its value is complete'],
    ['{"headers": {}}\nTk9-pasted-unquoted-0451', 'at line 2, column 1'],
  ])('a file that is not JSON (%j) is refused by where it stops being JSON, never quoting its text', async (content, where) => {
    const ran = await runInProcess(['--embedded'], { cwd: withConfig(content) });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(
      new RegExp(
        `^petstore-conformance: error: .*petstore-conformance\\.config\\.json is not valid JSON: ${where} \\(the file's text is not shown\\)\n$`,
      ),
    );
    expect(ran.stderr).not.toMatch(/Tk9|pasted|unquoted/);
  });
});

/** A loopback CONNECT proxy (the suite tunnels http targets too) that counts the tunnels it opened. */
async function countingProxy(): Promise<{ url: string; tunnels: () => number; close: () => Promise<void> }> {
  let tunnels = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels++;
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => (client.destroy(), upstream.destroy()));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels: () => tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('a config file found, not named, may not weaken or redirect the connection; a named one may, and the run says so', () => {
  const env = { PETSTORE_API_KEY: DISTINCTIVE_KEY };
  /** The target: every request it receives is counted, keyed or not. */
  let target: RunningServer;
  let received = 0;
  beforeAll(async () => {
    target = await startReference({ apiKey: DISTINCTIVE_KEY, wrap: (inner) => (request) => (received++, inner(request)) });
  });
  afterAll(() => target.close());

  /** A cloned repository with the file at its root, and a working folder two levels down. */
  function checkout(config: unknown): { file: string; cwd: string } {
    const root = tempDir();
    const cwd = join(root, 'packages', 'client');
    mkdirSync(join(root, '.git'), { recursive: true });
    mkdirSync(cwd, { recursive: true });
    const file = join(root, 'petstore-conformance.config.json');
    writeFileSync(file, JSON.stringify(config));
    return { file, cwd };
  }

  // Nothing shared but the target's count, read after all of them: side by side.
  it.concurrent.each([
    [{ insecure: true }, '"insecure"', true],
    [{ proxy: 'http://127.0.0.1:9' }, '"proxy"', true],
    [{ ca: 'ca.pem' }, '"ca"', true],
    [{ cert: 'client.pem', certKey: 'client.key' }, '"cert", "certKey"', true],
    [{ baseUrl: 'http://127.0.0.1:9/v1', insecure: true, proxy: '${PC_PLANTED_PROXY}' }, '"insecure", "proxy"', true],
    // Where the key goes: a base URL off loopback the run would use, and headers that would carry the environment's values.
    [{ baseUrl: 'http://192.0.2.7/v1' }, '"baseUrl" (not on loopback)', false],
    // A name under .localhost is loopback only where the resolver keeps it so; one that sends it on to DNS does not.
    [{ baseUrl: 'http://attacker.localhost:9/v1' }, '"baseUrl" (not on loopback)', false],
    [
      { baseUrl: 'http://petstore.invalid/v1', headers: { 'X-Leak': '${PC_PLANTED_TOKEN}' } },
      '"baseUrl" (not on loopback), "headers" taking ${PC_PLANTED_TOKEN} from the environment',
      false,
    ],
    [{ headers: { 'X-Leak': 'id-${PC_PLANTED_TOKEN}' } }, '"headers" taking ${PC_PLANTED_TOKEN} from the environment', true],
  ])(
    'found upward with %j: refused in one line naming the file and what it sets (not sending the reader to --help), exit 2, nothing sent',
    async (config, keys, baseUrlFlag) => {
      const { file, cwd } = checkout(config);
      const ran = await runInProcess(
        [...(baseUrlFlag ? ['--base-url', target.url] : []), '--only', 'LIST-LIMIT-DEFAULT', '--num-runs', '2', '--report-dir', tempDir()],
        { cwd, env: { ...env, PC_PLANTED_PROXY: 'http://127.0.0.1:9', PC_PLANTED_TOKEN: 'Tk9-planted-0451' } },
      );
      expect(ran.code).toBe(2);
      expect(ran.stdout).toBe('');
      expect(ran.stderr.trim().split('\n')).toEqual([
        `petstore-conformance: error: ${file}: ${keys}: this file was found in the working folder or above it, not named, and such a file may not decide where the key goes or how (insecure, proxy, ca, cert, certKey, a baseUrl off loopback, headers from the environment): name it with --config ${file} (or PETSTORE_CONFIG) to use it, or pass --base-url; nothing was sent`,
      ]);
    },
  );

  it('nothing reached the target from any refused run', () => {
    expect(received).toBe(0);
  });

  it('found upward with a base URL off loopback that the run does not use (--base-url given): taken', async () => {
    const { cwd } = checkout({ baseUrl: 'http://192.0.2.7/v1', numRuns: 2, only: ['LIST-LIMIT-DEFAULT'], reporter: ['console'] });
    const ran = await runInProcess(['--base-url', target.url], { cwd, env });
    expect(ran.code, ran.stderr).toBe(0);
  });

  it('named with --config or PETSTORE_CONFIG: taken, printed in the header (and under -q), recorded in report.json; found with only a base URL: taken, the header says so', async () => {
    const proxy = await countingProxy();
    try {
      const { file, cwd } = checkout({
        insecure: true,
        proxy: proxy.url,
        numRuns: 2,
        only: ['LIST-LIMIT-DEFAULT'],
        reporter: ['json', 'console'],
      });
      const shown = relative(cwd, file);
      const connection = `  connection: TLS NOT VERIFIED, any certificate accepted (the config file) · proxy ${proxy.url} (the config file) · no client certificate`;
      for (const [args, variables] of [
        [['--config', file], {}],
        [[], { PETSTORE_CONFIG: file }],
      ] as const) {
        const dir = tempDir();
        const before = proxy.tunnels();
        const ran = await runInProcess(['--base-url', target.url, ...args, '--report-dir', dir], { cwd, env: { ...env, ...variables } });
        expect(ran.code, ran.stderr).toBe(0);
        expect(proxy.tunnels()).toBeGreaterThan(before);
        expect(ran.stderr.split('\n').slice(0, 3)).toEqual([
          expect.stringMatching(/^testing http:\/\/127\.0\.0\.1:\d+\/v1 \(seed -?\d+\)$/),
          connection,
          `  config file: ${shown} (named with --config or PETSTORE_CONFIG)`,
        ]);
        const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceResult;
        expect(reportErrors(report)).toEqual([]);
        expect(report.options).toMatchObject({
          insecure: true,
          customCa: false,
          connection: { proxy: proxy.url, clientCertificate: false },
        });
        expect(report.options.sources).toEqual({
          flags: ['target'],
          environment: [],
          configFile: { path: shown, named: true, settings: ['insecure', 'proxy'] },
        });
      }
      // --dry-run says the same, and sends nothing.
      const before = proxy.tunnels();
      const dry = await runInProcess(['--base-url', target.url, '--config', file, '--dry-run'], { cwd, env });
      expect(dry.code).toBe(0);
      expect(dry.stdout).toContain(`\n${connection.trim()}\nconfig file: ${shown} (named with --config or PETSTORE_CONFIG)\n`);
      expect(proxy.tunnels()).toBe(before);
      // --quiet: the verdict line only on stdout, and on stderr the connection line, for it weakens and redirects.
      const quiet = await runInProcess(['--base-url', target.url, '--config', file, '-q', '--report-dir', tempDir()], { cwd, env });
      expect(quiet.code).toBe(0);
      expect(quiet.stdout).toMatch(/^CONFORMANT: .*\n$/);
      expect(quiet.stderr).toBe(`${connection}\n`);
    } finally {
      await proxy.close();
    }

    // The common legitimate use of a found file, the base URL, is taken; the header says where it came from.
    const { cwd } = checkout({ baseUrl: target.url, numRuns: 2, only: ['LIST-LIMIT-DEFAULT'], reporter: ['json', 'console'] });
    const dir = tempDir();
    const found = await runInProcess(['--report-dir', dir], { cwd, env });
    expect(found.code, found.stderr).toBe(0);
    expect(found.stderr.split('\n').slice(1, 3)).toEqual([
      '  connection: plain http, no TLS · no proxy · no client certificate',
      `  config file: ${join('..', '..', 'petstore-conformance.config.json')} (found in the working folder or above it, not named, so it may not decide where the key goes or how); the base URL comes from it`,
    ]);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceResult;
    expect(report.options.sources).toEqual({
      flags: [],
      environment: [],
      configFile: { path: join('..', '..', 'petstore-conformance.config.json'), named: false, settings: ['target'] },
    });
  });
});
