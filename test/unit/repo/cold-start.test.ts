/**
 * Cold start (issue 12): what a command loads before it runs is decided by the
 * static imports of its entry module, so these tests walk them. `--version`,
 * `--help` and every command start from cli/main.ts, which must load no
 * package (yargs and the rest come with `await import()` where a command needs
 * them); `rules` loads the catalog only; `serve` the reference only.
 *
 * Issue 23: a run reaches its first request without what it needs only later
 * or never: xmlbuilder2 and the HTML page (junit.xml and report.html are
 * written at the end), ajv (the interface's validators are compiled at build
 * time, spec/validators.generated.ts; ajv is required only by `newAjv`, for a
 * config file, waivers or the suite's own files), the load phase's histograms.
 * CommonJS required inside a function (`newAjv`'s) is not a static import, and
 * is rightly not walked: it loads when called.
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

/** Packages a command pays for in start-up: XML and YAML, JSON Schema compilation, properties, HTTP, histograms. */
const HEAVY = ['xmlbuilder2', 'ajv', 'ajv-formats', 'fast-check', 'undici', 'hdr-histogram-js'];

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

  it('bin/ sizes the heap, then loads the CLI through cli/launch.ts; neither loads a package or a module of the CLI first', () => {
    // --version and --help alone then import main.ts's ES modules; any other command reads the bundle (one file).
    expect(staticGraph('cli/launch.ts')).toEqual({ modules: ['cli/launch.ts'], packages: [] });
    expect(staticGraph('cli/heap.ts')).toEqual({ modules: ['cli/heap.ts'], packages: [] });
    const bin = readFileSync(join(root, 'bin/petstore-conformance.js'), 'utf8');
    expect([...bin.matchAll(/import\('([^']+)'\)/g)].map((m) => m[1])).toEqual(['../dist/cli/heap.js', '../dist/cli/launch.js']);
  });

  it('rules loads the catalog only, serve the reference only', () => {
    expect(staticGraph('cli/rules.ts').packages).toEqual([]);
    expect(staticGraph('cli/rules.ts').modules.filter((m) => m.startsWith('suites/'))).toEqual([]);
    expect(staticGraph('reference/server.ts').packages).toEqual(['lossless-json']);
  });

  it('the engine loads the load drivers (undici lanes, HDR histograms) only when a profile runs', () => {
    const { packages } = staticGraph('suites/engine.ts');
    // The walk sees what a run needs…
    expect(packages).toEqual(expect.arrayContaining(['fast-check']));
    // …and not the histograms of a load profile.
    expect(packages).not.toContain('hdr-histogram-js');
  });

  it('--version and --help alone are answered before any import; --help otherwise loads yargs and the redactor only', () => {
    // main.ts answers `--version`, then `--help` as yargs rendered it at build (cli/help.ts), before its first
    // `await import()`; any other help (a command's, another width or locale) then imports the redactor and yargs.
    const main = readFileSync(join(root, 'cli/main.ts'), 'utf8');
    const firstImport = main.indexOf("await import('");
    expect(main.indexOf("argv[0] === '--version'")).toBeGreaterThan(-1);
    expect(main.indexOf("argv[0] === '--version'")).toBeLessThan(firstImport);
    expect(main.indexOf('renderedHelp(argv')).toBeGreaterThan(-1);
    expect(main.indexOf('renderedHelp(argv')).toBeLessThan(firstImport);
    expect(staticGraph('cli/help.ts').packages).toEqual([]);
    expect([...main.matchAll(/await import\('([^']+)'\)/g)].slice(0, 2).map((m) => m[1])).toEqual(['../core/redact.js', 'yargs']);
    expect(staticGraph('core/redact.ts').packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it('a run reaches its first request without xmlbuilder2, the HTML page, ajv or the histograms', () => {
    // What a run loads before its first request: main.ts, its run command, and what that imports as it starts
    // (cli/run-command.ts's Promise.all; cli/run-config.ts's config and redactor).
    const entries = [
      'cli/main.ts',
      'cli/run-command.ts',
      'cli/run-config.ts',
      'cli/config.ts',
      'core/redact.ts',
      'suites/engine.ts',
      'reports/index.ts',
      'reports/json.ts',
      'cli/run-setup.ts',
      'cli/transport.ts',
    ];
    const graphs = entries.map(staticGraph);
    const packages = new Set(graphs.flatMap((g) => g.packages));
    const modules = new Set(graphs.flatMap((g) => g.modules));
    // fast-check it needs: the checks are built with it. undici's dispatchers come from their own files through
    // core/undici.ts (required, so not walked here), never from undici's index with fetch and WebSocket.
    expect([...packages].filter((p) => HEAVY.includes(p)).sort()).toEqual(['fast-check']);
    expect(modules).toContain('core/undici.ts');
    expect([...modules].filter((m) => /^reports\/(junit|html|page)\.ts$/.test(m))).toEqual([]);
    // The interface's validators come built; spec/validate.ts imports no ajv (types aside).
    expect(modules).toContain('spec/validators.generated.ts');
    expect(staticGraph('spec/validate.ts').packages.filter((p) => p.startsWith('ajv'))).toEqual([]);
  });
});
