import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The direction of flow (ARCHITECTURE.md): spec → generators → suites → reports;
 * core below all of them; cli and index on top. This test fails on an import the
 * wrong way.
 */
const root = new URL('..', import.meta.url).pathname;
const allowed: Record<string, string[]> = {
  core: ['core'],
  spec: ['spec', 'core'],
  generators: ['generators', 'spec', 'core'],
  suites: ['suites', 'generators', 'spec', 'core'],
  reports: ['reports', 'spec', 'core'],
  reference: ['reference', 'spec', 'core'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('architecture', () => {
  for (const [layer, may] of Object.entries(allowed)) {
    it(`${layer}/ imports only ${may.join(', ')}`, () => {
      const wrong: string[] = [];
      for (const file of sources(join(root, layer))) {
        const text = readFileSync(file, 'utf8');
        for (const match of text.matchAll(/^(import|export)\s+(type\s+)?[^'"]*from\s+'(\.[^']+)'/gm)) {
          const target = relative(root, join(file, '..', match[3]!)).split('/')[0]!;
          // Reporters read the result model (types only) and ask the verdict policy; nothing else of suites/.
          const modelOrPolicy = layer === 'reports' && ((match[2] !== undefined && match[3]!.endsWith('suites/model.js')) || match[3]!.endsWith('suites/policy.js'));
          if (!may.includes(target) && !modelOrPolicy) wrong.push(`${relative(root, file)} → ${match[3]}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it('nothing but bin/ calls process.exit', () => {
    const offenders = Object.keys(allowed)
      .concat('cli')
      .flatMap((layer) => sources(join(root, layer)))
      .filter((file) => /process\.exit\(/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
