import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The direction of flow (ARCHITECTURE.md): spec → generators → suites → result ← reports;
 * core below all of them; certification above suites and reports; cli and index
 * on top. This test fails on an import the wrong way.
 */
const root = new URL('../../..', import.meta.url).pathname;
const allowed: Record<string, string[]> = {
  core: ['core'],
  spec: ['spec', 'core'],
  generators: ['generators', 'spec', 'core'],
  result: ['result', 'spec', 'core'],
  suites: ['suites', 'result', 'generators', 'spec', 'core'],
  reports: ['reports', 'result', 'spec', 'core'],
  reference: ['reference', 'spec', 'core'],
  certification: ['certification', 'suites', 'reports', 'result', 'generators', 'spec', 'core'],
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
          if (!may.includes(target)) wrong.push(`${relative(root, file)} → ${match[3]}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it('only cli/ and the package entry build on certification/: no layer below names it, dynamic imports included', () => {
    const below = Object.keys(allowed).filter((layer) => layer !== 'certification');
    const offenders = below
      .flatMap((layer) => sources(join(root, layer)))
      .filter((file) =>
        [...readFileSync(file, 'utf8').matchAll(/['"](\.[^'"]*)['"]/g)].some(
          (m) => relative(root, join(file, '..', m[1]!)).split('/')[0] === 'certification',
        ),
      )
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
  });

  it('no module imports itself back, through any chain of static imports (types included)', () => {
    const files = [...Object.keys(allowed), 'cli'].flatMap((layer) => sources(join(root, layer))).concat(join(root, 'index.ts'));
    const edges = new Map<string, string[]>();
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(/^(?:import|export)\s+(?:type\s+)?[^'"]*?from\s+'(\.[^']+)'/gms)].map((m) =>
        relative(root, join(file, '..', m[1]!.replace(/\.js$/, '.ts'))),
      );
      edges.set(relative(root, file), targets);
    }
    expect(cyclesOf(edges)).toEqual([]);
  });

  it('below cli/, no string names a --flag: the engine speaks in options and data, cli/ turns them into flags', () => {
    const offenders = Object.keys(allowed)
      .flatMap((layer) => sources(join(root, layer)))
      .filter((file) => !FLAG_TEXT_ALLOWED.includes(relative(root, file)))
      .flatMap((file) => flagsInStrings(readFileSync(file, 'utf8')).map((text) => `${relative(root, file)}: ${text}`));
    expect(offenders).toEqual([]);
    // Parses every source below cli/ with TypeScript: 2 to 3 s of one core on a quiet machine, ×10 for a shared one.
  }, 30_000);

  it('only the redaction boundary makes a redacted exchange: no cast to RedactedExchange or SentExchange elsewhere', () => {
    for (const example of [
      'return out as RedactedExchange;',
      'const x = raw as unknown as SentExchange;',
      'x = (await client.send(spec)) as SentExchange;',
    ])
      expect(REDACTED_CAST.test(example), example).toBe(true);
    const offenders = [...Object.keys(allowed), 'cli']
      .flatMap((layer) => sources(join(root, layer)))
      .filter((file) => relative(root, file) !== 'core/boundary.ts')
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => REDACTED_CAST.test(line))
          .map((line) => `${relative(root, file)}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });

  it('nothing but bin/ calls process.exit', () => {
    const offenders = Object.keys(allowed)
      .concat('cli')
      .flatMap((layer) => sources(join(root, layer)))
      .filter((file) => /process\.exit\(/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('outside result/policy.ts, no code re-derives the verdict policy: warnings, verdicts and exit codes are asked of it', () => {
    for (const [pattern, example] of POLICY_REDERIVATIONS) expect(pattern.test(example), `${pattern} must catch ${example}`).toBe(true);
    const offenders = [...Object.keys(allowed), 'cli']
      .flatMap((layer) => sources(join(root, layer)))
      .concat(join(root, 'index.ts'))
      .filter((file) => relative(root, file) !== 'result/policy.ts')
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => POLICY_REDERIVATIONS.some(([pattern]) => pattern.test(line)))
          .map((line) => `${relative(root, file)}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });
});

/** A cast that could make a redacted exchange (or a check's exchange, which is one) out of a raw one. */
const REDACTED_CAST = /\bas\s+(?:unknown\s+as\s+)?(?:RedactedExchange|SentExchange)\b/;

/** Ways the policy was re-derived before it had one home, each with a line it catches. */
const POLICY_REDERIVATIONS: readonly [RegExp, string][] = [
  // SHOULD failures counted raw, or turned into warnings by hand.
  [/\bSHOULD\.fail\b|counts\.SHOULD\b/, 'const warnings = strict ? 0 : summary.counts.SHOULD.fail;'],
  [
    /severity === 'SHOULD' && !strict|!strict && \w+\.severity === 'SHOULD'/,
    "if (as === 'fail' && severity === 'SHOULD' && !strict) return 0;",
  ],
  // A verdict decided again, or turned into an exit code, from a conformant verdict.
  [
    /=== 'conformant'[^?]*\? ('non-conformant'|[0-9] :|EXIT\.)/,
    "const verdict = replayed.summary.verdict === 'conformant' && loadFailure ? 'non-conformant' : replayed.summary.verdict;",
  ],
  // Exit codes as literals, or a table of them outside the policy.
  [/\b(certified|problems\.length === 0|verdict === '[a-z-]+') \? [0-9] : [0-9]/, 'return manifest.certified ? 0 : 1;'],
  [/\bconst [A-Z_]*EXIT\b\s*(:[^=]+)?=/, 'export const REPLAY_EXIT = { passes: 0, fails: 1 } as const;'],
];

/**
 * Files below cli/ whose strings may hold `--` words: the command lines a report
 * prints for its reader to copy are the CLI's by design, the embedded
 * stylesheets' `--name` are CSS custom properties, and an exported Artillery
 * script's comments name Artillery's own flags (`--target`, `--count`), not ours.
 */
const FLAG_TEXT_ALLOWED = ['reports/commands.ts', 'reports/assets/generated.ts', 'suites/load/export/artillery.ts'];

/** A long flag in a string (`--only`), or a template that builds one (`--${name}`); curl's `--data-binary` is not ours. */
const LONG_FLAG = /(?<![\w-])--(?!data-binary\b)(?:[a-z][a-z0-9-]*|$)/;

/** The string literals and template pieces of `source` that name a long flag; comments are not strings, so they pass. */
function flagsInStrings(source: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      // A piece followed by a substitution may end in `--` (`--${name}`); a whole string may not end so.
      const text = ts.isTemplateHead(node) || ts.isTemplateMiddle(node) ? node.text : `${node.text} `;
      if (LONG_FLAG.test(text)) found.push(node.getText().slice(0, 120));
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile('source.ts', source, ts.ScriptTarget.Latest, true));
  return found;
}

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
