import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { ServeOptions } from '../reference/server.js';
import { startReference } from '../reference/server.js';
import { newAjv } from '../spec/validate.js';

export const BIN = new URL('../bin/petstore-conformance.js', import.meta.url).pathname;

/** A key distinctive enough to grep for in everything the suite writes. */
export const DISTINCTIVE_KEY = 'Zq9-DISTINCTIVE-key-7781xyzW';

/** Starts the reference (or a variant of it) on loopback and closes it after `fn`. */
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

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Spawns the CLI with NO_COLOR and waits, at most `timeoutMs`. Adds `--load none`
 * unless the arguments choose a profile or a command other than the run.
 */
export function runCli(args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<Ran> {
  // Subcommands (rules, serve, matrix, replay, certify, verify…) come first and take no --load; the run takes flags only.
  const command = (args[0] !== undefined && !args[0].startsWith('-')) || args.includes('--help') || args.includes('--version');
  const withLoad = command || args.some((a) => a === '--load' || a.startsWith('--load=')) ? args : [...args, '--load', 'none'];
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [BIN, ...withLoad], { cwd: options.cwd, env: { ...process.env, NO_COLOR: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`CLI did not finish within ${options.timeoutMs ?? 60_000} ms: ${args.join(' ')}`));
    }, options.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
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
