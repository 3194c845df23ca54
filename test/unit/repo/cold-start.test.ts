/**
 * Cold start (issue 12): what a command loads before it runs is decided by the
 * static imports of its entry module, so these tests walk them. `--version`,
 * `--help` and every command start from cli/main.ts, which must load no
 * package (yargs and the rest come with `await import()` where a command needs
 * them); `rules` loads the catalog only; `serve` the reference only.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../..', import.meta.url).pathname;

/** The modules `entry` loads before it runs (itself included) and the packages among them: static, non-type imports only. */
function staticGraph(entry: string): { modules: string[]; packages: string[] } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    const text = readFileSync(join(root, file), 'utf8');
    // `import type …` and `export type …` load nothing; `import { type A, b }` loads its module.
    for (const match of text.matchAll(/^(?:import|export)\s+(?!type\s)[^'"]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm)) {
      const target = (match[1] ?? match[2])!;
      if (target.startsWith('node:')) continue;
      if (target.startsWith('.')) visit(relative(root, join(root, dirname(file), target)).replace(/\.js$/, '.ts'));
      else
        packages.add(
          target
            .split('/')
            .slice(0, target.startsWith('@') ? 2 : 1)
            .join('/'),
        );
    }
  };
  visit(entry);
  return { modules: [...modules].sort(), packages: [...packages].sort() };
}

describe('cold start', () => {
  it('cli/main.ts loads no package and none of the engine, the checks, the reporters or the reference before a command runs', () => {
    const { modules, packages } = staticGraph('cli/main.ts');
    expect(packages).toEqual([]);
    expect(
      modules.filter((m) =>
        /^(suites\/(engine|registry|check|judge|load\/(run|phase|sender))|reports\/(index|html|junit|json)|reference\/|generators\/|spec\/validate)/.test(
          m,
        ),
      ),
    ).toEqual([]);
  });

  it('rules loads the catalog only, serve the reference only', () => {
    expect(staticGraph('cli/rules.ts').packages).toEqual([]);
    expect(staticGraph('cli/rules.ts').modules.filter((m) => m.startsWith('suites/'))).toEqual([]);
    expect(staticGraph('reference/server.ts').packages).toEqual(['lossless-json']);
  });

  it('the engine loads the load drivers (undici lanes, HDR histograms) only when a profile runs', () => {
    const { packages } = staticGraph('suites/engine.ts');
    // The walk sees what a run needs…
    expect(packages).toEqual(expect.arrayContaining(['ajv', 'fast-check', 'undici']));
    // …and not the histograms of a load profile.
    expect(packages).not.toContain('hdr-histogram-js');
  });
});
