/**
 * Tests write only inside temporary folders. This global set-up notes every
 * file of the repository that git does not track (node_modules/, dist/ and
 * .git aside) before the run, and fails the run when, after it, such a file is
 * new or changed: a test that wrote `./petstore-conformance-report`, a
 * screenshot or a scratch file into the clone. Without git (an unpacked
 * tarball) there is nothing to compare against, and it checks nothing.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const NOT_WATCHED = new Set(['node_modules', 'dist', '.git']);

/** Untracked files (ignored ones included) by path, with their modification time. */
function untrackedFiles(): Map<string, number> | undefined {
  let tracked: Set<string>;
  try {
    tracked = new Set(
      execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\0'),
    );
  } catch {
    return undefined;
  }
  const files = new Map<string, number>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (dir === ROOT.replace(/\/$/, '') && NOT_WATCHED.has(entry.name)) continue;
      if (entry.isDirectory()) walk(path);
      else {
        const name = relative(ROOT, path);
        if (!tracked.has(name)) files.set(name, statSync(path).mtimeMs);
      }
    }
  };
  walk(ROOT.replace(/\/$/, ''));
  return files;
}

export default function setup(): () => void {
  const before = untrackedFiles();
  return () => {
    if (!before) return;
    const after = untrackedFiles() ?? new Map<string, number>();
    const written = [...after].filter(([path, mtime]) => before.get(path) !== mtime).map(([path]) => path);
    if (written.length > 0) {
      // vitest reports an error thrown here but still exits 0: set the exit code too.
      process.exitCode = 1;
      throw new Error(
        `the tests wrote into the repository (${written.slice(0, 10).join(', ')}${written.length > 10 ? `, and ${written.length - 10} more` : ''}): a test must write only inside a temporary folder (test/helpers.ts: tempDir, artifactsDir)`,
      );
    }
  };
}
