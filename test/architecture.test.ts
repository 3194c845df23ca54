import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The direction of flow (ARCHITECTURE.md): spec → generators → suites → reports;
 * core below all of them; certification above suites and reports; cli and index
 * on top. This test fails on an import the wrong way.
 */
const root = new URL('..', import.meta.url).pathname;
const allowed: Record<string, string[]> = {
  core: ['core'],
  spec: ['spec', 'core'],
  generators: ['generators', 'spec', 'core'],
  suites: ['suites', 'generators', 'spec', 'core'],
  reports: ['reports', 'spec', 'core'],
  reference: ['reference', 'spec', 'core'],
  certification: ['certification', 'suites', 'reports', 'generators', 'spec', 'core'],
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

  it('only cli/ and the package entry build on certification/: no layer below names it, dynamic imports included', () => {
    const below = Object.keys(allowed).filter((layer) => layer !== 'certification');
    const offenders = below
      .flatMap((layer) => sources(join(root, layer)))
      .filter((file) => [...readFileSync(file, 'utf8').matchAll(/['"](\.[^'"]*)['"]/g)].some((m) => relative(root, join(file, '..', m[1]!)).split('/')[0] === 'certification'))
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('no module imports itself back, through any chain of static imports (types included)', () => {
    const files = [...Object.keys(allowed), 'cli'].flatMap((layer) => sources(join(root, layer))).concat(join(root, 'index.ts'));
    const edges = new Map<string, string[]>();
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(/^(?:import|export)\s+(?:type\s+)?[^'"]*?from\s+'(\.[^']+)'/gms)].map((m) => relative(root, join(file, '..', m[1]!.replace(/\.js$/, '.ts'))));
      edges.set(relative(root, file), targets);
    }
    expect(cyclesOf(edges)).toEqual([]);
  });

  it('nothing but bin/ calls process.exit', () => {
    const offenders = Object.keys(allowed)
      .concat('cli')
      .flatMap((layer) => sources(join(root, layer)))
      .filter((file) => /process\.exit\(/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});

/** The strongly connected components with more than one module (Tarjan), each as its modules, sorted. */
function cyclesOf(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles;
}
