/**
 * How bin/ loads the CLI (cli/launch.ts, issue 23 start-up): a command from the bundle compiled with the code cache
 * the build made, which V8 takes under the flags bin/ sets; `--version` and `--help` alone from the ES modules; a
 * cache made for another bundle is not given to V8, and a bundle older than the ES modules is not run. What V8 did is
 * seen through `vm.Script`, watched by a module the child imports first (`--import`, which sets no V8 flag).
 */
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir } from '../../helpers.js';

const root = new URL('../../..', import.meta.url).pathname;

/** Prints `vm.Script: <cache>` for each script compiled, `<cache>` being accepted, rejected or none. */
const WATCH = `data:text/javascript,${encodeURIComponent(`
import vm from 'node:vm';
import { syncBuiltinESMExports } from 'node:module';
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options);
    process.stderr.write('vm.Script: ' + (options?.cachedData ? (this.cachedDataRejected ? 'rejected' : 'accepted') : 'none') + '\\n');
  }
};
syncBuiltinESMExports();
`)}`;

/** Runs `bin` with `args` and the watch; the environment without NODE_OPTIONS, whose V8 flags would refuse any cache. */
function run(
  bin: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { NODE_OPTIONS: _, ...inherited } = process.env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', WATCH, bin, ...args], {
      cwd: tempDir(),
      env: { ...inherited, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const compiled = (stderr: string): string[] => [...stderr.matchAll(/^vm\.Script: (\w+)$/gm)].map((m) => m[1]!);

describe('launch', () => {
  it('runs a command from the bundle with the build code cache V8 takes, and --version and --help from the ES modules', async () => {
    const rules = await run(BIN, ['rules']);
    expect(rules.code).toBe(0);
    expect(rules.stdout).toContain('PET-SCHEMA');
    expect(compiled(rules.stderr)).toEqual(['accepted']);
    // yargs in the bundle still finds its translations.
    const german = await run(BIN, ['rules', '--help'], { LC_ALL: '', LC_MESSAGES: '', LANG: 'de_DE.UTF-8', LANGUAGE: '' });
    expect(german.stdout).toContain('Optionen:');
    for (const args of [['--version'], ['--help']]) {
      const ran = await run(BIN, args);
      expect(ran.code).toBe(0);
      expect(compiled(ran.stderr), args[0]).toEqual([]);
    }
  });

  it('gives V8 no cache made for another bundle, and runs no bundle older than the ES modules', async () => {
    // A copy of the package (its packages linked), whose bundle and cache can be changed.
    const copy = tempDir();
    for (const part of ['bin', 'dist', 'spec', 'package.json'])
      cpSync(join(root, part), join(copy, part), { recursive: true, preserveTimestamps: true });
    symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
    const bin = join(copy, 'bin', 'petstore-conformance.js');
    const bundle = join(copy, 'dist', 'cli', 'main.bundle.cjs');
    expect(compiled((await run(bin, ['rules'])).stderr)).toEqual(['accepted']);

    // Another build's bundle, of the same length: V8 would check only the length; the build id says it is not this cache's.
    const source = readFileSync(bundle, 'utf8');
    const id = /\n\/\/# build ([0-9a-f]{32})\n$/.exec(source)![1]!;
    writeFileSync(bundle, source.replace(`//# build ${id}`, `//# build ${[...id].reverse().join('')}`));
    const other = await run(bin, ['rules']);
    expect(other.code).toBe(0);
    expect(other.stdout).toContain('PET-SCHEMA');
    expect(compiled(other.stderr)).toEqual(['none']);

    // dist/ rebuilt by tsc alone: the ES modules are newer than the bundle, which is then not run.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(copy, 'dist', 'cli', 'main.js'), later, later);
    const stale = await run(bin, ['rules']);
    expect(stale.code).toBe(0);
    expect(stale.stdout).toContain('PET-SCHEMA');
    expect(compiled(stale.stderr)).toEqual([]);
  });
});
