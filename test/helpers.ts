import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { connect as netConnect, type Socket } from 'node:net';
import { accessSync, constants, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Page } from 'playwright-core';
import * as tar from 'tar';
import type { StopSignal } from '../cli/io.js';
import { type Io, main } from '../cli/main.js';
import type { Handler } from '../reference/handler.js';
import type { ServeOptions } from '../reference/server.js';
import { startReference } from '../reference/server.js';
import { newAjv } from '../spec/validate.js';

export const BIN = new URL('../bin/petstore-conformance.js', import.meta.url).pathname;

/** A key distinctive enough to grep for in everything the suite writes. */
export const DISTINCTIVE_KEY = 'Zq9-DxStNcTvQe-key-7781xyzW';

/** A load profile of one second at two connections, for tests that need a load phase but not its length. */
export const TINY_PROFILE = {
  kind: 'closed' as const,
  description: 'tiny',
  connections: 2,
  durationSec: 1,
  maxRequests: 5000,
  mix: { listPets: 2, getPet: 2, createPet: 1 },
  thresholds: ['errorRate < 1%'],
};

/** Starts the reference (or a variant of it) on loopback and closes it after `fn`. */
/** A variant that answers a listing without a limit with up to 21 animals, where the document says at most 20: LIST-LIMIT-DEFAULT fails. */
export const overDefaultLimit =
  (inner: Handler): Handler =>
  (request) =>
    inner(
      request.method === 'GET' && request.path === '/pets' && !request.query.has('limit')
        ? { ...request, query: new URLSearchParams([...request.query, ['limit', '21']]) }
        : request,
    );

export async function withServer<T>(options: Partial<ServeOptions>, fn: (url: string) => Promise<T>): Promise<T> {
  const server = await startReference({ apiKey: DISTINCTIVE_KEY, ...options });
  try {
    return await fn(server.url);
  } finally {
    await server.close();
  }
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'pc-test-'));
}

/**
 * A self-signed certificate for 127.0.0.1 (openssl, RSA 2048, two days), written into a new temporary folder as
 * key.pem and cert.pem: `dir` holds them, `tls` is what a server on loopback takes (`cert` is also the CA to trust).
 */
export function selfSignedCert(): { dir: string; tls: { key: string; cert: string } } {
  const dir = tempDir();
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')];
  execFileSync('openssl', [...args, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { dir, tls: { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') } };
}

/**
 * Where tests keep what a person may want to look at afterwards (screenshots,
 * rendered pages): `$PETSTORE_TEST_ARTIFACTS`, or a folder under the OS temp
 * dir. Never inside the repository: tests write only to temporary folders.
 */
export function artifactsDir(): string {
  const dir = process.env.PETSTORE_TEST_ARTIFACTS || join(tmpdir(), 'petstore-conformance-test-artifacts');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** True when `path` is an executable file. */
function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * An external program the tests use, as docs/developing.md's prerequisites list it:
 * the path in `$<envVar>` when set, else the first of `names` on PATH, else the
 * Debian path. Undefined when none is there.
 */
export function findProgram(names: readonly string[], options: { envVar?: string; debianPath?: string } = {}): string | undefined {
  const fromEnv = options.envVar ? process.env[options.envVar] : undefined;
  if (fromEnv) {
    if (!executable(fromEnv)) throw new Error(`$${options.envVar} is ${fromEnv}, which is not an executable file`);
    return fromEnv;
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of names) if (executable(join(dir, name))) return join(dir, name);
  }
  return options.debianPath && executable(options.debianPath) ? options.debianPath : undefined;
}

/**
 * Chromium, for the tests that open reports in a browser: `$CHROMIUM_PATH`,
 * then `chromium`, `chromium-browser`, `google-chrome` on PATH, then
 * /usr/bin/chromium (Debian's package). When there is none, the browser tests
 * are skipped with a loud message, except under CI=true, where they fail:
 * docs/developing.md lets only a developer's machine go without a browser.
 */
export function findChromium(file: string): string | undefined {
  const path = findProgram(['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'], {
    envVar: 'CHROMIUM_PATH',
    debianPath: '/usr/bin/chromium',
  });
  return (
    path ??
    skippedUnlessCi(
      file,
      'Chromium',
      'CHROMIUM_PATH, PATH, /usr/bin/chromium',
      'the browser tests',
      'apt-get install chromium, or set CHROMIUM_PATH',
    )
  );
}

/**
 * Artillery, for the test that runs an exported script: `$ARTILLERY_PATH`,
 * then `artillery` on PATH. It is not a dependency of the project; .ci/run
 * installs the pinned release of .ci/artillery outside the clone. As with
 * Chromium, none is a loud skip, except under CI=true, where it fails.
 */
export function findArtillery(file: string): string | undefined {
  return (
    findProgram(['artillery'], { envVar: 'ARTILLERY_PATH' }) ??
    skippedUnlessCi(
      file,
      'Artillery',
      'ARTILLERY_PATH, PATH',
      'the Artillery runs',
      'export ARTILLERY_PATH="$(.ci/install-artillery)" (it installs the release pinned in .ci/artillery outside the clone)',
    )
  );
}

/** A program missing where docs/developing.md lets a developer's machine skip: a loud warning, or an error under CI=true. */
function skippedUnlessCi(file: string, program: string, searched: string, tests: string, install: string): undefined {
  if (process.env.CI === 'true')
    throw new Error(`${file}: no ${program} found (${searched}); under CI=true ${tests} may not be skipped. Install it: ${install}`);
  console.warn(`\n!!! ${file}: no ${program} found (${searched}); ${tests} are SKIPPED. Install it: ${install}.\n`);
  return undefined;
}

/** A program docs/developing.md lists as required: its path, or an error saying which package gives it. */
export function requireProgram(name: string, debianPackage: string): string {
  const path = findProgram([name], { debianPath: `/usr/bin/${name}` });
  if (!path)
    throw new Error(`${name} is missing: install it (Debian: apt-get install ${debianPackage}); see docs/developing.md, Prerequisites`);
  return path;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** How a test runs the CLI: its environment (on top of NO_COLOR), working directory, and how long it may take. */
export interface RunOptions {
  env?: Record<string, string>;
  /** Default: a fresh temporary folder, so that a run writing to the default ./petstore-conformance-report (a preflight failure, a forgotten --report-dir) never writes into the repository or the caller's folder. */
  cwd?: string;
  /** Default: 60 s. */
  timeoutMs?: number;
  /** node's own arguments, before bin/ ({@link runCli} only). */
  nodeArgs?: string[];
}

const DEFAULT_TIMEOUT_MS = 60_000;

/** `args` with `--load none` added, unless they choose a profile or a command other than the run. */
function withDefaultLoad(args: string[]): string[] {
  // Subcommands (rules, serve, matrix, replay, certify, verify…) come first and take no --load; the run takes flags only.
  const command =
    (args[0] !== undefined && !args[0].startsWith('-')) ||
    ['--help', '--version', '-h', '-v', '--get-yargs-completions'].some((a) => args.includes(a));
  return command || args.some((a) => a === '--load' || a.startsWith('--load=')) ? args : [...args, '--load', 'none'];
}

/**
 * Spawns the CLI (bin/) with NO_COLOR and this process's environment, and waits, at most `timeoutMs`. Adds `--load
 * none` unless the arguments choose a profile or a command other than the run. For tests about the process itself:
 * start-up, the fast paths, signals, what reaches the real stdout and stderr; {@link runInProcess} for the rest.
 */
export function runCli(args: string[], options: RunOptions = {}): Promise<Ran> {
  const cwd = options.cwd ?? tempDir();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...withDefaultLoad(args)], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not finish within ${timeoutMs} ms: ${args.join(' ')}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/**
 * Runs main() in this process, as {@link runCli} runs bin/ (same defaults), with NO_COLOR and `env` only (nothing of
 * this process's environment); collects stdout and stderr. For tests about what a command does rather than about the
 * process: it spares a child process's start-up, and the engine's code is already compiled. At the deadline the run is
 * interrupted, as a first Ctrl-C would, so that it does not go on beside the tests that follow.
 */
export async function runInProcess(args: string[], options: RunOptions = {}): Promise<Ran> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let stdout = '';
  let stderr = '';
  let interrupt: ((signal: StopSignal) => void) | undefined;
  const io: Io = {
    stdout: { write: (chunk: string) => ((stdout += chunk), true) } as unknown as Io['stdout'],
    stderr: { write: (chunk: string) => ((stderr += chunk), true) } as unknown as Io['stderr'],
    env: { NO_COLOR: '1', ...options.env },
    cwd: options.cwd ?? tempDir(),
    signals: (handler) => {
      interrupt = handler;
      return () => (interrupt = undefined);
    },
  };
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      interrupt?.('SIGINT');
      reject(new Error(`main() did not finish within ${timeoutMs} ms: ${args.join(' ')}`));
    }, timeoutMs);
  });
  try {
    const code = await Promise.race([main(withDefaultLoad(args), io), deadline]);
    return { code, stdout, stderr, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

const reportSchema = JSON.parse(readFileSync(new URL('../spec/report.schema.json', import.meta.url), 'utf8')) as object;
const validateReport = newAjv({ allErrors: true }).compile(reportSchema);

/** Errors of a report against spec/report.schema.json; empty when valid. */
export function reportErrors(report: unknown): string[] {
  return validateReport(report) ? [] : (validateReport.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** Records what a page does that it should not: requests, dialogs, errors (CSP violations are console errors). */
export function watch(page: Page): { requests: string[]; dialogs: string[]; errors: string[] } {
  const seen = { requests: [] as string[], dialogs: [] as string[], errors: [] as string[] };
  page.on('request', (request) => seen.requests.push(request.url()));
  page.on('dialog', (dialog) => {
    seen.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => seen.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') seen.errors.push(message.text());
  });
  return seen;
}

/** Runs `jobs` with at most `limit` in flight; each promise settles on its own. */
export function pool<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T>[] {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    running--;
    queue.shift()?.();
  };
  return jobs.map(async (job) => {
    if (running >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    running++;
    try {
      return await job();
    } finally {
      release();
    }
  });
}

/**
 * Spawns a fixture server (the framework fixtures' launch contract: one
 * `LISTENING http://127.0.0.1:<port>/v1` line on stdout) and resolves with its
 * base URL, or rejects when it exits first or prints no such line within
 * `timeoutMs` (then it is killed). `stderr()` is what it wrote there so far.
 */
export function startListening(
  label: string,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label}: no LISTENING line within ${timeoutMs / 1000} s; stderr: ${err}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited (${code}); stderr: ${err}`));
    });
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /^LISTENING (http:\/\/127\.0\.0\.1:\d+\/v1)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ url: m[1]!, child, stderr: () => err });
      }
    });
  });
}

/** The files of a certification bundle, extracted with tar. */
export async function unpackBundleFiles(bundle: string): Promise<Map<string, Buffer>> {
  const to = tempDir();
  await tar.x({ file: bundle, cwd: to });
  return new Map(readdirSync(to).map((name) => [name, readFileSync(join(to, name))]));
}

/** A bundle of `files`, packed with tar (a bundle edited by hand), named `name`. */
export async function repackBundleFiles(files: Map<string, Buffer>, name = 'edited.tar.gz'): Promise<string> {
  const from = tempDir();
  for (const [file, content] of files) writeFileSync(join(from, file), content);
  const out = join(tempDir(), name);
  await tar.c({ gzip: true, file: out, cwd: from }, [...files.keys()]);
  return out;
}

/**
 * What a CONNECT proxy does once it chose where a tunnel goes: connects to
 * `host:port`, answers 200 to the client, then pipes both ways (the client's
 * early bytes first); an error on either side drops both.
 */
export function openTunnel(client: Socket, head: Buffer, host: string | undefined, port: number): void {
  const upstream = netConnect(port, host, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  const drop = () => {
    upstream.destroy();
    client.destroy();
  };
  upstream.on('error', drop);
  client.on('error', drop);
}
