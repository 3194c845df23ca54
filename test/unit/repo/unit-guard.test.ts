/**
 * Keeps the split of the tests honest: a file under test/unit/ opens no
 * socket, starts no process or server and waits on no timer, so the unit run
 * (`npm run test:unit`) stays seconds long and cannot starve. This scans every
 * source under test/unit/ and fails on an import or a call that does; such a
 * test belongs under test/e2e/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../..', import.meta.url).pathname;
const UNIT = join(root, 'test', 'unit');

/** What a unit test may not use, each with a line it must catch. */
const FORBIDDEN: readonly (readonly [name: string, pattern: RegExp, example: string])[] = [
  [
    'a socket',
    /from\s+['"](node:)?(net|http|https|http2|dgram|tls)['"]|import\(\s*['"](node:)?(net|http|https|http2|dgram|tls)['"]/,
    "import { createServer } from 'node:http';",
  ],
  ['undici', /from\s+['"]undici['"]|import\(\s*['"]undici['"]/, "import { request } from 'undici';"],
  [
    'a child process',
    /from\s+['"](node:)?(child_process|worker_threads|cluster)['"]|\b(spawn|spawnSync|execFile|execFileSync|execSync|fork)\s*\(/,
    "const child = spawn('node', []);",
  ],
  [
    'a server of the reference',
    /\bstartReference\b|\bwithServer\b|from\s+['"][./]*reference\/server\.js['"]/,
    'const server = await startReference({});',
  ],
  ['the CLI run in process', /\brunInProcess\b|\brunCli\b|\bspawnCli\b/, "await runInProcess(['--base-url', url]);"],
  // test/helpers.ts starts servers and processes: a unit test that needs one of its pure helpers moves it elsewhere.
  ['test/helpers.ts', /from\s+['"](\.\.\/)+helpers\.js['"]/, "import { tempDir } from '../../helpers.js';"],
  [
    'a timer that waits',
    /\b(setTimeout|setInterval|setImmediate)\s*\(|from\s+['"](node:)?timers(\/promises)?['"]|\bvi\.useRealTimers\b/,
    'await new Promise((r) => setTimeout(r, 100));',
  ],
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

describe('unit tests need no socket, process or waiting timer', () => {
  it('each pattern catches what it names', () => {
    for (const [name, pattern, example] of FORBIDDEN) expect(pattern.test(example), `${name}: ${example}`).toBe(true);
  });

  it('no source under test/unit/ uses one (move such a test to test/e2e/)', () => {
    const self = new URL(import.meta.url).pathname;
    const found = sources(UNIT)
      .filter((file) => file !== self)
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            FORBIDDEN.filter(([, pattern]) => pattern.test(line)).map(
              ([name]) => `${relative(root, file)}:${i + 1}: ${name}: ${line.trim().slice(0, 120)}`,
            ),
          ),
      );
    expect(sources(UNIT).length).toBeGreaterThan(20);
    expect(found).toEqual([]);
  });
});

describe('no test mocks a module', () => {
  // vitest.config.ts shares modules between the files a worker runs (isolate: false): a module mocked in one file may
  // already be loaded, unmocked, by an earlier one, and the test then passes without testing anything.
  it('no source under test/ calls vi.mock or vi.doMock (inject what a test counts instead)', () => {
    const self = new URL(import.meta.url).pathname;
    const pattern = /\bvi\.(do)?[mM]ock\s*\(/;
    expect(pattern.test("vi.mock('hdr-histogram-js', () => ({}))")).toBe(true);
    const found = sources(join(UNIT, '..'))
      .filter((file) => file !== self)
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) => (pattern.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim().slice(0, 120)}`] : [])),
      );
    expect(found).toEqual([]);
  });
});
