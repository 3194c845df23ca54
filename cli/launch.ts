/**
 * How bin/ starts the CLI (issue 23, start-up): a command runs from the
 * bundle of the CLI (dist/cli/main.bundle.cjs, scripts/build-bundle.js)
 * compiled with the V8 code cache made from it at build time
 * (scripts/build-code-cache.js), so what a run loads before its first request
 * is read from one file and not compiled again. `--version` and `--help`
 * alone are answered by cli/main.ts before it imports anything, so they keep
 * the ES modules and do not read the bundle at all.
 *
 * Node 20 gives a code cache only to a script compiled through `vm.Script`
 * (module.enableCompileCache is Node 22.1+, and ES modules take none), hence
 * one CommonJS file. The cache is read from beside the bundle, in the
 * package's own dist/, written by the build and never at run time: a cache
 * is code. V8 refuses one made by another V8, under other flags or for
 * another source length, and the build stamps both files with one id, so a
 * cache that does not belong to this bundle is never used; without a usable
 * cache the bundle is compiled as any script, and without a bundle (a build
 * without that step) the ES modules run, as before.
 */
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Script } from 'node:vm';
import type * as Main from './main.js';

/** The bundle and its cache, beside this module in dist/cli/. */
export const BUNDLE_FILE = fileURLToPath(new URL('./main.bundle.cjs', import.meta.url));
export const CACHE_FILE = fileURLToPath(new URL('./main.bundle.cache', import.meta.url));

/** The build id closing the bundle (`//# build <hex>`), which its cache starts with: 32 hex digits. */
const ID_LENGTH = 32;
const ID_MARK = '\n//# build ';

/** What the CLI exports, as the bundle and the ES modules both give it. */
export type CliModule = Pick<typeof Main, 'main'>;

/** Whether the bundle was compiled with its code cache. */
export type CacheUse = 'accepted' | 'rejected' | 'none';

/**
 * The bundle compiled and not yet run, with the cache in `cacheFile` when it
 * was made for this bundle (its id first), and whether V8 took it; undefined
 * when there is no bundle. The build makes the cache from this same script.
 */
export async function compileBundle(cacheFile?: Buffer): Promise<{ script: Script; id: string | undefined; cache: CacheUse } | undefined> {
  let source: string;
  try {
    source = readFileSync(BUNDLE_FILE, 'utf8');
  } catch {
    return undefined;
  }
  const id = bundleId(source);
  const cachedData = cacheFile && cachedDataOf(cacheFile, id);
  const { constants, Script } = await import('node:vm');
  // CommonJS's own wrapper, so the bundle's `require` resolves its packages from dist/cli/ as a module there would.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: BUNDLE_FILE,
    // An `import()` left in the bundle (none is, at this writing) loads as it would in an ES module.
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    ...(cachedData ? { cachedData } : {}),
  });
  return { script, id, cache: cachedData === undefined ? 'none' : script.cachedDataRejected === false ? 'accepted' : 'rejected' };
}

/** Runs the compiled bundle and returns what it exports. */
export function runBundle(script: Script): CliModule {
  const module = { exports: {} as CliModule };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    // Taken from the process, not imported: --version and --help, which load this module too, need no `node:module`.
    process.getBuiltinModule('node:module').createRequire(BUNDLE_FILE),
    module,
    BUNDLE_FILE,
    fileURLToPath(new URL('.', import.meta.url)),
  );
  return module.exports;
}

/** How much newer than the bundle the ES modules may be: a copy of dist/ (`cp -r`) writes them in any order. */
const COPY_SLACK_MS = 2000;

/**
 * Whether the bundle is as new as the ES modules it was made from: tsc rewrites every module, so main.js newer than
 * the bundle (beyond a copy's slack) means dist/ was rebuilt by tsc alone, and the bundle is an earlier build's;
 * then, or when either is missing, the ES modules run.
 */
function bundleIsCurrent(): boolean {
  const bundle = statSync(BUNDLE_FILE, { throwIfNoEntry: false });
  const modules = statSync(new URL('./main.js', import.meta.url), { throwIfNoEntry: false });
  return bundle !== undefined && modules !== undefined && modules.mtimeMs - bundle.mtimeMs <= COPY_SLACK_MS;
}

/** The build id that closes `source` (its last line, `//# build <id>`), or undefined. */
export function bundleId(source: string): string | undefined {
  const at = source.lastIndexOf(ID_MARK);
  const id = at === -1 ? undefined : source.slice(at + ID_MARK.length).trimEnd();
  return id !== undefined && /^[0-9a-f]+$/.test(id) && id.length === ID_LENGTH ? id : undefined;
}

/** The cache file's content for the bundle of `id`: the id, then V8's data. */
export function cacheFileOf(id: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(id, 'latin1'), data]);
}

/** V8's data in a cache file when it was made for the bundle of `id`, else undefined. */
export function cachedDataOf(file: Buffer, id: string | undefined): Buffer | undefined {
  if (id === undefined || file.length <= ID_LENGTH || file.toString('latin1', 0, ID_LENGTH) !== id) return undefined;
  return file.subarray(ID_LENGTH);
}

/**
 * The CLI for `argv`: the ES modules for `--version` or `--help` alone (answered before main.ts imports anything),
 * the bundle otherwise, or the ES modules when there is no bundle or it is older than them. `from` says which,
 * `cache` whether V8 took the bundle's cache.
 */
export async function loadCli(argv: readonly string[]): Promise<CliModule & { from: 'bundle' | 'modules'; cache: CacheUse }> {
  const modules = async () => ({ main: (await import('./main.js')).main, from: 'modules' as const, cache: 'none' as const });
  if (argv.length === 1 && ['--version', '-v', '--help', '-h'].includes(argv[0]!)) return modules();
  let cacheFile: Buffer | undefined;
  try {
    cacheFile = readFileSync(CACHE_FILE);
  } catch {
    // No cache: the bundle is compiled as any script.
  }
  const compiled = bundleIsCurrent() ? await compileBundle(cacheFile) : undefined;
  if (!compiled) return modules();
  return { main: runBundle(compiled.script).main, from: 'bundle', cache: compiled.cache };
}
