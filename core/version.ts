import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own root and version, found from this file whether it runs from source or from dist/. */
function findPackage(): { root: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'petstore-conformance') return { root: dir, version: pkg.version ?? '0.0.0' };
    } catch {
      // not here; look one level up
    }
    dir = dirname(dir);
  }
  return { root: dir, version: '0.0.0' };
}

const found = findPackage();

/** The version of petstore-conformance, from its package.json. */
export const TOOL_VERSION = found.version;
/** The package root (holds package.json, spec/, dist/). */
export const PACKAGE_ROOT = found.root;
