// Bundles the CLI (dist/cli/main.js and everything it imports, on demand or not) into one CommonJS file,
// dist/cli/main.bundle.cjs, that cli/launch.ts compiles with the V8 code cache scripts/build-code-cache.js makes
// from it. Run by `npm run build` after tsc. Why one file: Node 20 can give a code cache only to a script it compiles
// through `vm.Script`, not to ES modules (module.enableCompileCache is Node 22.1+); one file is also one read instead
// of about 260 module resolutions and reads before a run's first request.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { rolldown } from 'rolldown';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../dist/cli/', import.meta.url));

/**
 * Paths a package computes from its own file: in the bundle they would start from dist/cli/. yargs looks for the
 * project's package.json from the folder holding node_modules and reads its translations beside itself; here it
 * finds its own file again, at run time, wherever the package is installed.
 */
const OWN_FILE = [
  {
    file: /\/yargs\/lib\/platform-shims\/esm\.mjs$/,
    from: 'const __dirname = fileURLToPath(import.meta.url);',
    to: "const __dirname = join(dirname(createRequire(import.meta.url).resolve('yargs/package.json')), 'lib/platform-shims/esm.mjs');",
  },
  {
    file: /\/dist\/core\/undici\.js$/,
    from: 'const require = createRequire(import.meta.url);',
    to: '',
  },
  {
    file: /\/dist\/core\/undici\.js$/,
    from: "return require('undici');",
    to: "throw new Error('unreachable: the bundle holds the dispatchers');",
  },
];

/** The prefix of a module that loads its package at first use. */
const LAZY = '\0lazy:';

const bundle = await rolldown({
  input: `${DIST}main.js`,
  platform: 'node',
  external: [/^node:/],
  logLevel: 'silent',
  plugins: [
    {
      // string-width builds an Intl.Segmenter and Unicode-property patterns as it loads (about a tenth of a run's
      // start), for yargs' help and messages only: here it loads at its first call.
      name: 'lazy-string-width',
      async resolveId(source, importer) {
        if (source !== 'string-width' || importer?.startsWith(LAZY)) return null;
        const real = await this.resolve(source, importer, { skipSelf: true });
        return real && `${LAZY}${real.id}`;
      },
      load(id) {
        if (!id.startsWith(LAZY)) return null;
        return `export default function stringWidth(string, options) { return require(${JSON.stringify(id.slice(LAZY.length))}).default(string, options); }`;
      },
    },
    {
      name: 'own-file',
      transform(code, id) {
        const fixes = OWN_FILE.filter(({ file }) => file.test(id));
        if (fixes.length === 0) return null;
        for (const { from, to } of fixes) {
          if (!code.includes(from)) throw new Error(`build-bundle: ${id} no longer holds "${from}"`);
          code = code.replace(from, to);
        }
        return code;
      },
    },
  ],
});
await bundle.write({
  file: `${DIST}main.bundle.cjs`,
  format: 'cjs',
  codeSplitting: false,
  comments: { legal: true, annotation: false, jsdoc: false },
});
await bundle.close();
// The build's id closes the bundle; its code cache starts with it (cli/launch.ts uses a cache only for its own bundle).
appendFileSync(`${DIST}main.bundle.cjs`, `\n//# build ${randomBytes(16).toString('hex')}\n`);
