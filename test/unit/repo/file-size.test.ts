/**
 * No production file over 400 lines (issue 22): a module a reader can hold in mind, split by responsibility when it
 * grows. Counted on the files as committed, which `npm run format:check` keeps formatted (Prettier, printWidth 140),
 * so a long line cannot hide a file's length. Production is what the package ships: index.ts and the layers' folders.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../..', import.meta.url).pathname;
const MAX_LINES = 400;
const LAYERS = ['bin', 'certification', 'cli', 'core', 'generators', 'reference', 'reports', 'result', 'spec', 'suites'];
/** Written by `npm run build` (gitignored), not by hand. */
const GENERATED = new Set(['reports/assets/generated.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|js|mjs)$/.test(entry.name) && !GENERATED.has(relative(root, path)) ? [path] : [];
  });
}

/** Files of `files` longer than `max` lines, as `path: n lines`. */
function tooLong(files: readonly string[], max: number): string[] {
  return files.flatMap((file) => {
    const lines = readFileSync(file, 'utf8').split('\n').length - 1;
    return lines > max ? [`${relative(root, file)}: ${lines} lines`] : [];
  });
}

describe('file size', () => {
  const production = [join(root, 'index.ts'), ...LAYERS.flatMap((layer) => sources(join(root, layer)))];

  it(`no production file is over ${MAX_LINES} lines`, () => {
    expect(production.length).toBeGreaterThan(100);
    expect(tooLong(production, MAX_LINES)).toEqual([]);
  });

  it('the count finds a long file: the longest production file is over a quarter of the limit', () => {
    // Guards the walk itself: a scan that read nothing, or counted nothing, would pass the test above.
    expect(tooLong(production, MAX_LINES / 4).length).toBeGreaterThan(0);
  });
});

describe('ARCHITECTURE.md', () => {
  const text = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');

  it('is a map of at most 8 KB', () => {
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8 * 1024);
  });

  it('names every folder of the package, each as a room of its own', () => {
    for (const layer of LAYERS.filter((l) => l !== 'bin')) expect(text, layer).toContain(`**${layer}/**`);
  });

  it('every file it names as enforcing an invariant exists', () => {
    const named = [...text.matchAll(/`((?:test|scripts|core|suites|result|reports|spec|cli|certification)\/[\w./<>*-]+\.(?:ts|js))`/g)].map(
      (m) => m[1]!,
    );
    expect(named.length).toBeGreaterThan(10);
    const concrete = named.filter((path) => !/[<*]/.test(path));
    expect(concrete.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });
});
