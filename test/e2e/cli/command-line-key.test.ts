/**
 * The key never on a command line: a process's arguments are readable by
 * every user of the machine (ps, /proc/<pid>/cmdline). The curl commands in
 * evidence take it from PETSTORE_API_KEY in a header file bash's printf
 * builtin writes (`-H @<(printf …)`), every form the auth checks send
 * included; printed re-run and replay commands rely on the CLI reading the
 * variable itself; the README and docs/ show no example that puts it in argv.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { certifyOptions } from '../../../cli/certify.js';
import { replayOptions, runOptions, serveOptions } from '../../../cli/options.js';
import { redactExchange } from '../../../core/boundary.js';
import type { Exchange } from '../../../core/http.js';
import { authorizationForms, basicCredentials, redactorFor, swapCase } from '../../../core/redact.js';
import { replayCommand, rerunCommand } from '../../../reports/commands.js';
import { runRedactor, runSecrets } from '../../../suites/credentials.js';
import { EvidenceFactory } from '../../../suites/evidence.js';
import { DISTINCTIVE_KEY, findProgram } from '../../helpers.js';

const KEY = DISTINCTIVE_KEY;

/** Every text made from the key that a command line could carry: the key, its near misses, its base64 forms. */
const KEY_TEXTS = [KEY, KEY.slice(0, -1), swapCase(KEY), basicCredentials(KEY), Buffer.from(KEY).toString('base64')];

/** The curl command of a GET whose Authorization header is `authorization`, as evidence words it. */
function curlOf(authorization: string): string {
  const exchange: Exchange = {
    seq: 1,
    request: { method: 'GET', url: 'http://127.0.0.1:9/v1/pets?limit=1', headers: { authorization, 'x-extra': 'plain $value "quoted"' } },
    durationMs: 1,
  };
  const redactor = redactorFor(KEY);
  return new EvidenceFactory(redactor).curl(redactExchange(exchange, redactor));
}

/** The `-H` arguments of a curl line (the line's own quoting keeps " -H " out of every other word). */
const headerArguments = (line: string): string[] =>
  line
    .split(' -H ')
    .slice(1)
    .map((part) => part.replace(/ --data-binary .*$/, ''));

describe('curl commands in evidence: the key from PETSTORE_API_KEY, in a header file, never in an argument', () => {
  const forms = authorizationForms(KEY).filter(([redacted]) => redacted.includes('<'));

  it("every Authorization form the suite sends is written as a header file printf makes; no word of curl's own arguments expands the variable", () => {
    expect(forms.length).toBeGreaterThanOrEqual(8);
    for (const [, value] of forms) {
      const line = curlOf(value);
      for (const text of KEY_TEXTS) expect(line, value).not.toContain(text);
      expect(line).not.toContain('--api-key');
      const [authorization, ...others] = headerArguments(line).filter(
        (h) => h.includes('PETSTORE_API_KEY') || h.toLowerCase().includes('authorization'),
      );
      expect(others, line).toEqual([]);
      // `@<(printf '%s\n' "authorization: …")`: bash expands the variable into the builtin's arguments, never a program's.
      expect(authorization, line).toMatch(/^@<\(printf '%s\\n' "authorization: .*\$\{PETSTORE_API_KEY[%~?]*\}.*"\)$/);
      // Outside the process substitution, nothing names the variable: the curl words and the plain header.
      expect(line.replace(authorization!, '')).not.toContain('PETSTORE_API_KEY');
    }
  });

  // Run for real: the machine's curl and bash, a loopback server that, while it holds each request, reads every
  // process's command line. Skipped only where there is no curl, no bash or no /proc.
  const curl = findProgram(['curl']);
  const bash = findProgram(['bash']);
  it.runIf(curl !== undefined && bash !== undefined && existsSync('/proc/self/cmdline'))(
    "run in bash against a local server: each sends exactly the form it stands for, and no process's command line holds the key or a form of it meanwhile",
    async () => {
      const seen: { authorization: string | undefined; extra: string | undefined; leaks: string[] }[] = [];
      const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        // curl, bash and the process substitution are all alive while the request is held: read every command line now.
        const leaks: string[] = [];
        for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
          let cmdline: string;
          try {
            cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
          } catch {
            continue;
          }
          for (const text of KEY_TEXTS) if (cmdline.includes(text)) leaks.push(`${pid}: ${cmdline.replace(/\0/g, ' ').slice(0, 200)}`);
        }
        seen.push({ authorization: req.headers.authorization, extra: req.headers['x-extra'] as string | undefined, leaks });
        res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      try {
        for (const [, value] of forms) {
          const line = curlOf(value).replace('http://127.0.0.1:9/', `http://127.0.0.1:${port}/`);
          const ran = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
            // --norc: node's child pipes are sockets, which bash takes for rshd's and reads ~/.bashrc for.
            const child = execFile(
              bash!,
              ['--norc', '--noprofile', '-c', line],
              { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PETSTORE_API_KEY: KEY }, timeout: 30_000 },
              (error, _stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
            );
            child.stdin?.end();
          });
          expect(ran, line).toEqual({ code: 0, stderr: '' });
          const request = seen.at(-1)!;
          expect(request.authorization, line).toBe(value);
          expect(request.extra).toBe('plain $value "quoted"');
          expect(request.leaks, line).toEqual([]);
        }
        expect(seen).toHaveLength(forms.length);
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  );
});

describe("curl commands in evidence: a secret header's value from PETSTORE_SECRET_HEADER_<NAME>, never in an argument", () => {
  const secret = 'xk_Hd83JsQpLm7Za91';
  const line = (() => {
    const exchange: Exchange = {
      seq: 1,
      request: { method: 'GET', url: 'http://127.0.0.1:9/v1/pets?limit=1', headers: { 'x-api-key': secret, 'x-tenant': 'acme' } },
      durationMs: 1,
    };
    const redactor = runRedactor(runSecrets(KEY, { headers: { 'x-api-key': secret }, secretHeaders: ['x-api-key'] }));
    return new EvidenceFactory(redactor).curl(redactExchange(exchange, redactor));
  })();

  it('is written as a header file printf makes from the variable --secret-header X-Api-Key reads', () => {
    expect(line).not.toContain(secret);
    expect(headerArguments(line)).toEqual([`@<(printf '%s\\n' "x-api-key: \${PETSTORE_SECRET_HEADER_X_API_KEY}")`, "'x-tenant: acme'"]);
  });

  const curl = findProgram(['curl']);
  const bash = findProgram(['bash']);
  it.runIf(curl !== undefined && bash !== undefined && existsSync('/proc/self/cmdline'))(
    'run in bash against a local server: it sends the value, and no command line holds it meanwhile',
    async () => {
      let seen: { value: string | undefined; leaks: string[] } | undefined;
      const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        const leaks = readdirSync('/proc')
          .filter((name) => /^\d+$/.test(name))
          .flatMap((pid) => {
            try {
              return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(secret) ? [pid] : [];
            } catch {
              return [];
            }
          });
        seen = { value: req.headers['x-api-key'] as string | undefined, leaks };
        res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const command = line.replace('http://127.0.0.1:9/', `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        const code = await new Promise<number>((resolve) => {
          const child = execFile(
            bash!,
            ['--norc', '--noprofile', '-c', command],
            { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PETSTORE_SECRET_HEADER_X_API_KEY: secret }, timeout: 30_000 },
            (error) => resolve(error ? ((error as { code?: number }).code ?? 1) : 0),
          );
          child.stdin?.end();
        });
        expect(code).toBe(0);
        expect(seen).toEqual({ value: secret, leaks: [] });
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  );
});

describe('printed re-run and replay commands, the README and docs/ never put the key on a command line', () => {
  it("re-run and replay commands carry no --api-key: the CLI reads PETSTORE_API_KEY itself; replay names the run's target", () => {
    const run = {
      target: 'https://staging.example/v1',
      seed: 7,
      numRuns: 40,
      options: { strict: false, timeoutMs: 1, only: [], skip: [], load: 'none', insecure: false, customCa: false },
    };
    const rerun = rerunCommand(run, { only: ['CREATE-ECHO'] });
    expect(rerun).toBe(
      'npx petstore-conformance --base-url https://staging.example/v1 --seed 7 --num-runs 40 --load none --only CREATE-ECHO',
    );
    expect(replayCommand('out/report.json', 'c-12ab', run.target)).toBe(
      'npx petstore-conformance replay out/report.json c-12ab --base-url https://staging.example/v1',
    );
  });

  it('every --api-key says in --help that a command line is readable by other users, and points to PETSTORE_API_KEY', () => {
    for (const [command, options] of Object.entries({
      run: runOptions,
      replay: replayOptions,
      serve: serveOptions,
      certify: certifyOptions,
    })) {
      expect(options['api-key']!.describe, command).toMatch(
        /Prefer setting PETSTORE_API_KEY .*: a command line is readable by every user of the machine/,
      );
    }
  });

  it('no example of the README or of docs/ passes the key with --api-key and a value or variable', () => {
    const docs = new URL('../../../docs/', import.meta.url);
    const pages = [
      new URL('../../../README.md', import.meta.url),
      ...readdirSync(docs)
        .filter((f) => f.endsWith('.md'))
        .map((f) => new URL(f, docs)),
    ];
    expect(pages.length).toBeGreaterThan(1);
    const examples = pages.flatMap((page) =>
      readFileSync(page, 'utf8')
        .split('\n')
        .filter((line) => /petstore-conformance\b.*--api-key[ =]\S/.test(line) && !line.startsWith('|'))
        .map((line) => `${page.pathname.split('/').slice(-2).join('/')}: ${line}`),
    );
    expect(examples).toEqual([]);
  });
});
