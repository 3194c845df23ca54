#!/usr/bin/env node
/**
 * Is the behaviour the same as at another commit? Builds that commit in a temporary git worktree (sharing this
 * checkout's node_modules), runs both builds against their embedded reference with one seed, and compares the two
 * report.json files after setting aside what is measured, not decided: times, durations, Date headers and the
 * reference's port. `--concurrency 1` so the reference assigns ids in one order, `--load none` since load figures are
 * measurements. Prints "same" and exits 0, or the first differing lines and exits 1.
 *
 *   npm run build && node scripts/same-report.js --base <commit> [--seed 42]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { base: { type: 'string', default: 'main' }, seed: { type: 'string', default: '42' } } });

/** Keys whose values are measured (times, durations), not decided. */
const MEASURED = new Set(['durationMs', 'startedAt', 'finishedAt', 'date', 'startedMs']);

function normalise(value) {
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, MEASURED.has(k) ? '<measured>' : normalise(v)]));
  if (typeof value === 'string')
    return value.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>').replace(/\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT/g, '<date>');
  return value;
}

function report(checkout) {
  const out = mkdtempSync(join(tmpdir(), 'pc-same-'));
  try {
    const args = [
      'bin/petstore-conformance.js',
      '--embedded',
      '--seed',
      values.seed,
      '--load',
      'none',
      '--concurrency',
      '1',
      '--report-dir',
      out,
      '--reporter',
      'json',
      '-q',
    ];
    try {
      execFileSync(process.execPath, args, { cwd: checkout, stdio: 'ignore' });
    } catch (error) {
      // A run with failing rules exits 1; the report is what is compared.
      if (error.status !== 1) throw error;
    }
    return JSON.stringify(normalise(JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'))), null, 1).split('\n');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const base = mkdtempSync(join(tmpdir(), 'pc-base-'));
try {
  execFileSync('git', ['-C', root, 'worktree', 'add', '--detach', base, values.base], { stdio: 'ignore' });
  symlinkSync(join(root, 'node_modules'), join(base, 'node_modules'));
  execFileSync('npm', ['run', 'build'], { cwd: base, stdio: 'ignore' });
  const [before, after] = [report(base), report(root)];
  const first = before.findIndex((line, i) => line !== after[i]);
  if (first === -1 && before.length === after.length) {
    console.log(
      `same: report.json of seed ${values.seed} at ${values.base} and in this checkout (${after.length} lines, times and port set aside)`,
    );
  } else {
    const at = first === -1 ? Math.min(before.length, after.length) : first;
    console.log(`differs from ${values.base} at line ${at + 1} of ${after.length}:`);
    for (let i = Math.max(0, at - 3); i < at + 8; i++)
      console.log(`  ${before[i] === after[i] ? ' ' : '-'} ${before[i] ?? ''}${before[i] === after[i] ? '' : `\n  + ${after[i] ?? ''}`}`);
    process.exitCode = 1;
  }
} finally {
  execFileSync('git', ['-C', root, 'worktree', 'remove', '--force', base], { stdio: 'ignore' });
  rmSync(base, { recursive: true, force: true });
}
