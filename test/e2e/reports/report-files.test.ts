/**
 * Reports on disk and the output streams: a planted symlink is refused, never
 * followed; a file of a report's name the suite did not write (a user's own
 * junit.xml) is neither replaced nor removed, refused before the first request
 * and again when it appears mid-run; a second run into a folder in use is
 * refused in one line; a run removes the report files an earlier run left that
 * it does not write; a full disk leaves a complete earlier file or none, never
 * a truncated one, and no lock; a reader that goes away (`| head -1`) costs
 * nothing but the lines it did not read; `export-load` into a missing folder
 * is one line, and over a file it did not write is refused.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matrixCommand } from '../../../cli/matrix.js';
import type { Handler } from '../../../reference/handler.js';
import type { ConformanceResult } from '../../../result/model.js';
import { CONTRACT_API_KEY, mutants } from '../../fixtures/mutants/index.js';
import { BIN, DISTINCTIVE_KEY, type Ran, reportErrors, runCli, runInProcess, tempDir, withServer } from '../../helpers.js';

const RUN = ['--num-runs', '2', '--load', 'none'];
const REPORTS = ['report.json', 'junit.xml', 'report.html'];
const errorLines = (ran: Pick<Ran, 'stderr'>) => ran.stderr.split('\n').filter((l) => l.startsWith('petstore-conformance: error:'));
const readReport = (dir: string) => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ConformanceResult;

describe('a planted symlink is refused, never followed', () => {
  it('at report.json, junit.xml and report.html (one dangling): refused before the first request in one line naming each; the files they point to are untouched', async () => {
    const root = tempDir();
    const precious = join(root, 'precious.txt');
    writeFileSync(precious, 'precious\n');
    const dir = join(root, 'reports');
    mkdirSync(dir);
    symlinkSync('../precious.txt', join(dir, 'report.json'));
    symlinkSync('../precious.txt', join(dir, 'report.html'));
    // A dangling link would make a new file outside the folder.
    symlinkSync('../made-outside.xml', join(dir, 'junit.xml'));
    const ran = await runInProcess(['--embedded', ...RUN, '--report-dir', dir]);
    expect(readFileSync(precious, 'utf8')).toBe('precious\n');
    expect(existsSync(join(root, 'made-outside.xml'))).toBe(false);
    for (const name of REPORTS) expect(lstatSync(join(dir, name)).isSymbolicLink()).toBe(true);
    expect(ran.code).toBe(2);
    expect(errorLines(ran)).toEqual([
      expect.stringMatching(
        /--report-dir .*: report\.json \(a symbolic link, left as it is\), junit\.xml \(a symbolic link.*report\.html \(a symbolic link.*never through a link: move them or choose another --report-dir/,
      ),
    ]);
    expect(ran.stderr).not.toMatch(/testing http/);
  });

  it('at the script export-load writes and at matrix.html: refused, the target untouched', async () => {
    const root = tempDir();
    const precious = join(root, 'precious.txt');
    writeFileSync(precious, 'precious\n');
    symlinkSync(precious, join(root, 'smoke.k6.js'));
    const exported = await runInProcess(['export-load', '--profile', 'smoke', '--format', 'k6', '--out', join(root, 'smoke.k6.js')]);
    expect(exported.code).toBe(2);
    expect(errorLines(exported)).toEqual([
      expect.stringMatching(/--out .*smoke\.k6\.js \(a symbolic link, left as it is\).*: move it or give another --out/),
    ]);

    const reportDir = join(root, 'run');
    expect((await runInProcess(['--embedded', ...RUN, '--reporter', 'json', '--report-dir', reportDir])).code).toBe(0);
    const out = join(root, 'matrix');
    mkdirSync(out);
    symlinkSync(precious, join(out, 'matrix.html'));
    let stderr = '';
    const io = {
      stdout: { write: () => true },
      stderr: { write: (s: string) => ((stderr += s), true) },
      cwd: root,
    } as unknown as Parameters<typeof matrixCommand>[2];
    expect(await matrixCommand([reportDir], { outDir: out }, io)).toBe(2);
    expect(stderr).toMatch(/--out-dir .*: matrix\.html \(a symbolic link, left as it is\)/);
    expect(readFileSync(precious, 'utf8')).toBe('precious\n');
  });

  it('the report folder itself a symbolic link is refused before the first request; a folder reached through a linked parent is used', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync(join(root, 'elsewhere'), join(root, 'linked'));
    const refused = await runInProcess(['--embedded', ...RUN, '--report-dir', join(root, 'linked')]);
    expect(refused.code).toBe(2);
    expect(errorLines(refused)).toEqual([expect.stringMatching(/--report-dir .*linked: a symbolic link .*elsewhere/)]);
    expect(refused.stderr).not.toMatch(/testing http/);
    expect(readdirSync(join(root, 'elsewhere'))).toEqual([]);

    const through = await runInProcess(['--embedded', ...RUN, '--reporter', 'json', '--report-dir', join(root, 'linked', 'reports')]);
    expect(through.code).toBe(0);
    expect(reportErrors(readReport(join(root, 'elsewhere', 'reports')))).toEqual([]);
  });
});

/** Answers held until `release()` (each at most 20 s), and `started` resolved at the first request. */
function gate(): { wrap: (inner: Handler) => Handler; started: Promise<void>; release: () => void } {
  let release!: () => void;
  let start!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (start = resolve));
  return {
    wrap: (inner) => async (request) => {
      start();
      await Promise.race([released, new Promise((resolve) => setTimeout(resolve, 20_000))]);
      return inner(request);
    },
    started,
    release,
  };
}

describe('an empty folder name', () => {
  it('--report-dir "" is a usage error in one line, nothing written in the working folder', async () => {
    const cwd = tempDir();
    const ran = await runInProcess(['--embedded', '--load', 'none', '--report-dir', ''], {
      cwd,
      env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split('\n')).toEqual([
      'petstore-conformance: error: --report-dir is empty: give a folder (. for the working folder) (see --help)',
    ]);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('one run per report folder', () => {
  it("a second run into a folder in use: one line, exit 2, nothing sent; the first run's report is its own (a stale lock did not stop it)", async () => {
    const held = gate();
    const mutant = mutants.find((m) => m.name === 'default-limit-21')!;
    let brokenRequests = 0;
    await withServer({ wrap: held.wrap }, (conformant) =>
      withServer(
        { ...mutant.options, apiKey: CONTRACT_API_KEY, wrap: (inner) => (request) => (brokenRequests++, mutant.wrap(inner)(request)) },
        async (broken) => {
          const dir = tempDir();
          // A lock left by a run of this host that is gone (killed outright) is taken over at once.
          const { pid: gone } = spawnSync(process.execPath, ['-e', '']);
          writeFileSync(
            join(dir, '.petstore-conformance.lock'),
            JSON.stringify({ pid: gone, host: hostname(), since: '2020-01-01T00:00:00.000Z', nonce: '0123456789abcdef' }),
          );
          // The first in a process of its own, as two runs are.
          const first = runCli(['--base-url', conformant, ...RUN, '--timeout', '30000', '--report-dir', dir], {
            env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
          });
          await held.started;
          const second = await runInProcess(['--base-url', broken, ...RUN, '--report-dir', dir], {
            env: { PETSTORE_API_KEY: CONTRACT_API_KEY },
          }).finally(held.release);
          const firstRan = await first;
          expect(second.code).toBe(2);
          expect(errorLines(second)).toEqual([
            expect.stringMatching(/--report-dir .*: another run is writing its reports there \(pid \d+/),
          ]);
          expect(second.stderr.trim().split('\n')).toHaveLength(1);
          expect(brokenRequests).toBe(0);
          expect(firstRan.code).toBe(0);
          const report = readReport(dir);
          expect(report.target).toBe(conformant);
          expect(report.summary.verdict).toBe('conformant');
          // The lock goes with the run.
          expect(readdirSync(dir).sort()).toEqual(['junit.xml', 'report.html', 'report.json']);
        },
      ),
    );
  });
});

describe('the folder describes one run', () => {
  it("a second run with fewer reporters removes the first one's junit.xml and report.html (nothing else), and matrix links its report.json (and drops an earlier matrix's extra badge)", async () => {
    const dir = tempDir();
    expect((await runInProcess(['--embedded', ...RUN, '--seed', '1', '--report-dir', dir])).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['junit.xml', 'report.html', 'report.json']);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    writeFileSync(join(dir, 'report.html.orig'), 'mine\n');
    expect((await runInProcess(['--embedded', ...RUN, '--seed', '2', '--reporter', 'json,console', '--report-dir', dir])).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'report.html.orig', 'report.json']);
    expect(readReport(dir).seed).toBe(2);
    const out = tempDir();
    // An earlier matrix of two reports left its second badge; files of the user's that only look alike stay, one of them by its name, one by its content.
    writeFileSync(
      join(out, 'badge-2-acme.json'),
      JSON.stringify({ schemaVersion: 1, label: 'petstore-conformance 1.0.0', message: 'conformant', color: 'brightgreen' }),
    );
    writeFileSync(
      join(out, 'badge-3-coverage.json'),
      JSON.stringify({ schemaVersion: 1, label: 'coverage', message: '93%', color: 'green' }),
    );
    writeFileSync(join(out, 'badge-notes.json'), '{}');
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, cwd: out } as unknown as Parameters<typeof matrixCommand>[2];
    expect(await matrixCommand([dir], { outDir: out }, io)).toBe(0);
    expect(readdirSync(out).sort()).toEqual([
      expect.stringMatching(/^badge-1-.+\.json$/),
      'badge-3-coverage.json',
      'badge-notes.json',
      'matrix.html',
      'matrix.md',
    ]);
    const matrix = readFileSync(join(out, 'matrix.html'), 'utf8');
    expect(matrix).toMatch(/href="[^"]*report\.json/);
    expect(matrix).not.toMatch(/href="[^"]*report\.html/);
  });
});

describe("a file of a report's name that the suite did not write", () => {
  const JEST = '<testsuites name="jest"/>\n';

  it("is neither removed nor replaced: a run writing report.json alone leaves the user's junit.xml and report.html as they were", async () => {
    const proj = tempDir();
    writeFileSync(join(proj, 'junit.xml'), JEST);
    writeFileSync(join(proj, 'report.html'), 'x\n');
    const ran = await runInProcess(['--embedded', ...RUN, '--report-dir', '.', '--reporter', 'json,console'], { cwd: proj });
    expect(ran.code).toBe(0);
    expect(readdirSync(proj).sort()).toEqual(['junit.xml', 'report.html', 'report.json']);
    expect(readFileSync(join(proj, 'junit.xml'), 'utf8')).toBe(JEST);
    expect(readFileSync(join(proj, 'report.html'), 'utf8')).toBe('x\n');
  });

  it('that a run would write is refused before the first request: one line naming it, exit 2, nothing sent, the file as it was', async () => {
    let requests = 0;
    await withServer({ apiKey: CONTRACT_API_KEY, wrap: (inner) => (request) => (requests++, inner(request)) }, async (url) => {
      const proj = tempDir();
      writeFileSync(join(proj, 'junit.xml'), JEST);
      const ran = await runInProcess(['--base-url', url, ...RUN, '--report-dir', '.'], {
        cwd: proj,
        env: { PETSTORE_API_KEY: CONTRACT_API_KEY },
      });
      expect(ran.code).toBe(2);
      expect(errorLines(ran)).toEqual([
        'petstore-conformance: error: --report-dir .: junit.xml (not written by petstore-conformance, left as it is); the suite replaces or removes only files it wrote: move it or choose another --report-dir (see --help)',
      ]);
      expect(ran.stderr.trim().split('\n')).toHaveLength(1);
      expect(requests).toBe(0);
      expect(readdirSync(proj)).toEqual(['junit.xml']);
      expect(readFileSync(join(proj, 'junit.xml'), 'utf8')).toBe(JEST);
    });
  });

  it('that appears while the run works is refused when the reports are written: the others are written, one line names it, exit 2', async () => {
    const held = gate();
    await withServer({ wrap: held.wrap }, async (url) => {
      const dir = tempDir();
      const running = runInProcess(['--base-url', url, ...RUN, '--timeout', '30000', '--report-dir', dir], {
        env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      });
      await held.started;
      writeFileSync(join(dir, 'junit.xml'), JEST);
      held.release();
      const ran = await running;
      expect(ran.code).toBe(2);
      expect(errorLines(ran)).toEqual([
        expect.stringMatching(
          /could not write junit\.xml \(not written by petstore-conformance, left as it is\) to .* \(the suite replaces or removes only files it wrote\); written: report\.json, report\.html; the verdict was conformant/,
        ),
      ]);
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toBe(JEST);
      expect(readReport(dir).summary.verdict).toBe('conformant');
      expect(ran.stdout).toMatch(/CONFORMANT/);
    });
  });

  it("matrix: a user's matrix.md is refused before anything is written", async () => {
    const reportDir = tempDir();
    expect((await runInProcess(['--embedded', ...RUN, '--reporter', 'json', '--report-dir', reportDir])).code).toBe(0);
    const out = tempDir();
    writeFileSync(join(out, 'matrix.md'), '# Compatibility matrix\n\nOur own notes.\n');
    let stderr = '';
    const io = {
      stdout: { write: () => true },
      stderr: { write: (s: string) => ((stderr += s), true) },
      cwd: out,
    } as unknown as Parameters<typeof matrixCommand>[2];
    expect(await matrixCommand([reportDir], { outDir: out }, io)).toBe(2);
    expect(stderr).toMatch(
      /^petstore-conformance: error: --out-dir .*: matrix\.md \(not written by petstore-conformance, left as it is\); the suite replaces or removes only files it wrote: move it or choose another --out-dir\n$/,
    );
    expect(readdirSync(out)).toEqual(['matrix.md']);
    expect(readFileSync(join(out, 'matrix.md'), 'utf8')).toBe('# Compatibility matrix\n\nOur own notes.\n');
  });
});

/** Runs `command` in bash; its exit code is the CLI's (`PIPESTATUS[0]`). */
function bash(command: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `${command}; exit "\${PIPESTATUS[0]}"`], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', PC: BIN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('a reader that goes away', () => {
  it.concurrent.each([
    ['2>&1 | head -1', '2>&1 | head -1', (out: string) => expect(out).toMatch(/^testing http:\/\/127\.0\.0\.1:\d+\/v1 \(seed -?\d+\)\n$/)],
    ['| head -1', '| head -1', (out: string) => expect(out).toMatch(/^petstore-conformance \S+ · Animal Store Service/)],
    ['--json | head -c 10', '--json | head -c 10', (out: string) => expect(out).toBe('{\n  "tool"')],
  ])("%s: the exit code is the verdict's, report.json is complete, no stack trace", async (_name, tail, seen) => {
    const cwd = tempDir();
    const ran = await bash(`node "$PC" --embedded ${RUN.join(' ')} --report-dir reports ${tail}`, cwd);
    seen(ran.stdout);
    expect(ran.stderr).not.toMatch(/EPIPE|Error:|\n\s+at /);
    expect(ran.code).toBe(0);
    const report = readReport(join(cwd, 'reports'));
    expect(reportErrors(report)).toEqual([]);
    expect(report.summary.verdict).toBe('conformant');
    for (const name of REPORTS) expect(existsSync(join(cwd, 'reports', name))).toBe(true);
  });
});

describe('standard output that cannot be written (a full disk under a redirect)', () => {
  // /dev/full: every write fails with ENOSPC. What the command printed there is its product: the exit says it is lost.
  it.skipIf(!existsSync('/dev/full')).concurrent.each([
    ['rules --json', 'rules --json'],
    ['export-load', 'export-load --profile smoke --format k6'],
    ['--version', '--version'],
  ])('%s > /dev/full: exit 2, one line saying standard output is incomplete', async (_name, args) => {
    const ran = await bash(`node "$PC" ${args} > /dev/full`, tempDir());
    expect(ran.code).toBe(2);
    expect(ran.stderr.trim().split('\n')).toEqual([
      'petstore-conformance: error: standard output could not be written (ENOSPC): what was printed there is incomplete',
    ]);
  });
});

/** A 64 KiB tmpfs at a new folder, or undefined when this process may not mount one (not root, or in a container without the right). */
function smallTmpfs(): string | undefined {
  const at = tempDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', at], { stdio: 'ignore' });
    return at;
  } catch {
    return undefined;
  }
}

describe('a full disk', () => {
  it('leaves the earlier complete report.json or none, never a truncated file; the reports that fit are written; one line says which were not', async () => {
    const mounted = smallTmpfs();
    const root = mounted ?? tempDir();
    const dir = join(root, 'reports');
    mkdirSync(dir);
    // An earlier run's report.json (so one the suite may replace), shorter than a real one so that it fits the small disk.
    const earlier = '{\n  "tool": {\n    "name": "petstore-conformance",\n    "version": "1.0.0"\n  },\n  "an earlier run": true\n}\n';
    writeFileSync(join(dir, 'report.json'), earlier);
    try {
      // Without a tmpfs, a file size limit makes the kernel refuse the same writes (EFBIG): the same code path, another errno.
      const ran = mounted
        ? await runCli(['--embedded', ...RUN, '--report-dir', dir], { cwd: root })
        : await bash(`trap '' XFSZ; ulimit -f 48; node "$PC" --embedded ${RUN.join(' ')} --report-dir ${dir}`, root);
      const files = readdirSync(dir).sort();
      // Nothing half-written stays, under any name.
      expect(files.filter((name) => !REPORTS.includes(name))).toEqual([]);
      // The new report.json did not fit, and the earlier run's is removed: the folder describes one run (its junit.xml).
      expect(files).not.toContain('report.json');
      expect(files).not.toContain('report.html');
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<\/testsuites>\s*$/);
      expect(ran.code).toBe(2);
      expect(errorLines(ran)).toEqual([
        expect.stringMatching(
          mounted
            ? /report\.json \(ENOSPC: no space left on device\).*report\.html \(ENOSPC.*written: junit\.xml.*the verdict was conformant/
            : /report\.json \(EFBIG.*written: junit\.xml/,
        ),
      ]);
      expect(ran.stdout).toMatch(/CONFORMANT/);
    } finally {
      if (mounted) execFileSync('umount', [mounted]);
    }
  });
});

describe('a full disk when the run locks its folder', () => {
  it('leaves no lock behind: one line, exit 2, and the next run into the folder is not refused', async () => {
    const mounted = smallTmpfs();
    const root = mounted ?? tempDir();
    const dir = join(root, 'reports');
    mkdirSync(dir);
    try {
      let ran;
      if (mounted) {
        // Filled as `dd if=/dev/zero of=filler` fills it: until the disk says ENOSPC.
        const filler = join(root, 'filler');
        expect(() => writeFileSync(filler, Buffer.alloc(1024 * 1024))).toThrow(/ENOSPC/);
        ran = await runCli(['--embedded', ...RUN, '--report-dir', dir], { cwd: root });
        rmSync(filler);
      } else {
        // Without a tmpfs, a file size limit of 0: creating the lock works, writing into it fails (EFBIG), as on a full disk.
        ran = await bash(`trap '' XFSZ; ulimit -f 0; node "$PC" --embedded ${RUN.join(' ')} --report-dir ${dir}`, root);
      }
      expect(ran.code).toBe(2);
      expect(errorLines(ran)).toEqual([
        expect.stringMatching(
          mounted
            ? /--report-dir .*: cannot lock it \(.*\.petstore-conformance\.lock\): ENOSPC/
            : /--report-dir .*: cannot lock it \(.*\.petstore-conformance\.lock\): EFBIG/,
        ),
      ]);
      expect(readdirSync(dir)).toEqual([]);
      // junit.xml alone fits a 64 KiB disk.
      const again = await runInProcess(['--embedded', ...RUN, '--reporter', 'junit', '--report-dir', dir]);
      expect(errorLines(again)).toEqual([]);
      expect(again.code).toBe(0);
    } finally {
      if (mounted) execFileSync('umount', [mounted]);
    }
  });
});

describe('export-load --out', () => {
  it('over a file it did not write: refused in one line, the file as it was; over its own script: replaced', async () => {
    const root = tempDir();
    const mine = "// my load test\nimport http from 'k6/http';\n";
    writeFileSync(join(root, 'gate.js'), mine);
    const refused = await runInProcess(['export-load', '--profile', 'smoke', '--format', 'k6', '--out', 'gate.js'], { cwd: root });
    expect(refused.code).toBe(2);
    expect(errorLines(refused)).toEqual([
      'petstore-conformance: error: --out gate.js (not written by petstore-conformance, left as it is); the suite replaces or removes only files it wrote: move it or give another --out (see --help)',
    ]);
    expect(readFileSync(join(root, 'gate.js'), 'utf8')).toBe(mine);
    // Artillery's processor beside the script is checked before the script is written.
    writeFileSync(join(root, 'gate.processor.cjs'), 'module.exports = {};\n');
    const processor = await runInProcess(['export-load', '--profile', 'smoke', '--format', 'artillery', '--out', 'gate.yml'], {
      cwd: root,
    });
    expect(processor.code).toBe(2);
    expect(errorLines(processor)).toEqual([expect.stringMatching(/gate\.processor\.cjs \(not written by petstore-conformance/)]);
    expect(existsSync(join(root, 'gate.yml'))).toBe(false);

    for (let i = 0; i < 2; i++)
      expect((await runInProcess(['export-load', '--profile', 'smoke', '--format', 'k6', '--out', 'ours.js'], { cwd: root })).code).toBe(0);
    expect(readFileSync(join(root, 'ours.js'), 'utf8')).toMatch(/^\/\/ Generated by petstore-conformance /);
  });

  it('into a missing folder: one line naming it, exit 2', async () => {
    const root = realpathSync(tempDir());
    const ran = await runInProcess(['export-load', '--profile', 'smoke', '--format', 'k6', '--out', join(root, 'missing', 'smoke.k6.js')]);
    expect(ran.code).toBe(2);
    expect(errorLines(ran)).toEqual([
      `petstore-conformance: error: --out ${join(root, 'missing', 'smoke.k6.js')}: the folder ${join(root, 'missing')} does not exist (see --help)`,
    ]);
    rmSync(root, { recursive: true });
  });
});
