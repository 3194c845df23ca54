/**
 * The README and docs/ show commands a reader copies: each must run as shown. Every fenced block carries a
 * language, and every command of a shell block (and every `run:` of a YAML block) that calls this tool is
 * checked against the built CLI's own `--help`: the command exists, each flag is one that command takes, and
 * nothing in it is a placeholder (`[--flag …]`, `…`). `npm` lines name scripts package.json has; the tarball
 * named is the one `npm pack` writes. The README stays short (≤ 20 KB), links only to files (and headings)
 * that exist, links every page of docs/, and keeps the developer's two set-up commands that .ci/run relies on;
 * docs/options.md names every option of every command.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers.js';

const ROOT = resolve(new URL('../../..', import.meta.url).pathname);
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
/** The issue's bound: about fifteen minutes of reading. */
const README_MAX_BYTES = 20 * 1024;

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  scripts: Record<string, string>;
};

/** The Markdown files a user reads: README.md and every page of docs/. */
function pages(): string[] {
  const docs = existsSync(DOCS) ? readdirSync(DOCS).filter((f) => f.endsWith('.md')) : [];
  return [README, ...docs.map((f) => join(DOCS, f))];
}

interface Fence {
  lang: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The fenced blocks of a Markdown text (``` fences, possibly indented in a list). */
function fences(markdown: string): Fence[] {
  const out: Fence[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(open[1]!.length));
    out.push({ lang: open[2]!, body: body.join('\n'), line: i + 1 });
    i = j;
  }
  return out;
}

/** Shell words of one line, quotes removed; a word starting with `#` ends the line; `&&`, `||`, `;`, `|`, `&` are words of their own. */
function words(line: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      const stop = end < 0 ? line.length : end;
      word = (word ?? '') + line.slice(i + 1, stop);
      i = stop;
    } else if (/\s/.test(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else if (c === '#' && word === undefined) {
      break;
    } else if ('&|;'.includes(c)) {
      if (word !== undefined) out.push(word);
      word = undefined;
      const two = line.slice(i, i + 2);
      if (two === '&&' || two === '||' || two === '>>') {
        out.push(two);
        i++;
      } else out.push(c);
    } else if (c === '$' && line[i + 1] === '(') {
      // A command substitution is one word here: what it runs is not this tool.
      let depth = 0;
      let k = i;
      for (; k < line.length; k++) {
        if (line[k] === '(') depth++;
        if (line[k] === ')' && --depth === 0) break;
      }
      word = (word ?? '') + line.slice(i, k + 1);
      i = k;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** The simple commands of a shell text: continuation lines joined, split at `&&`, `||`, `;`, `|`, `&`. */
function simpleCommands(shell: string): string[][] {
  const out: string[][] = [];
  for (const line of shell.replace(/\\\n/g, ' ').split('\n')) {
    let current: string[] = [];
    for (const w of words(line)) {
      if (['&&', '||', ';', '|', '&'].includes(w)) {
        if (current.length) out.push(current);
        current = [];
      } else current.push(w);
    }
    if (current.length) out.push(current);
  }
  return out;
}

/** The shell text of a block: a shell (or untagged) block whole; of a YAML block, each `run:` value. */
function shellOf(fence: Fence): string | undefined {
  // An untagged block is read as shell too (and reported for its missing language): it may well be a command.
  if (['', 'sh', 'bash', 'shell'].includes(fence.lang)) return fence.body;
  if (fence.lang === 'yaml' || fence.lang === 'yml')
    return [...fence.body.matchAll(/^\s*-?\s*run:\s*(.+)$/gm)].map((m) => m[1]!.replace(/\s+#.*$/, '')).join('\n');
  return undefined;
}

/** Flags by command, as the built CLI's --help lists them; '' is the default command, the run. */
type FlagTable = Map<string, Set<string>>;

/** The flags an option line of yargs' help starts with (`  -q, --quiet`, `      --base-url`); wrapped text is indented further. */
function flagsOfHelp(help: string): Set<string> {
  const flags = new Set<string>();
  for (const line of help.split('\n')) {
    const m = /^ {2}(-\w), (--[\w-]+)|^ {6}(--[\w-]+)/.exec(line);
    if (!m) continue;
    for (const f of [m[1], m[2], m[3]]) if (f) flags.add(f);
  }
  return flags;
}

/** What is wrong with one command line of the docs, or nothing; commands of other programs are not judged. */
function problemsOf(argv: string[], table: FlagTable): string[] {
  let rest = [...argv];
  while (rest[0] !== undefined && (/^[A-Z_][A-Z0-9_]*=/.test(rest[0]) || ['export', 'sudo', 'time'].includes(rest[0])))
    rest = rest.slice(1);
  const [program, ...args] = rest;
  if (program === undefined) return [];
  const shown = argv.join(' ');
  const placeholders = args.filter((a) => a.includes('…') || a.startsWith('['));
  if (/(^|\/)bin\/petstore-conformance\.js$/.test(args[0] ?? '') && program === 'node') return cliProblems(args.slice(1), table, shown);
  if (program === 'petstore-conformance') return cliProblems(args, table, shown);
  if (program === 'npx' && /^petstore-conformance(@|$)/.test(args[0] ?? '')) return cliProblems(args.slice(1), table, shown);
  if (program === 'npm') {
    const problems = placeholders.map((p) => `${shown}: "${p}" is a placeholder, not something that runs`);
    const [sub, name] = args;
    if ((sub === 'run' || sub === 'run-script') && name !== undefined && !(name in pkg.scripts))
      problems.push(`${shown}: package.json has no script "${name}"`);
    if ((sub === 'start' || sub === 'test') && !(sub in pkg.scripts)) problems.push(`${shown}: package.json has no script "${sub}"`);
    for (const a of args.filter((x) => /petstore-conformance-.*\.tgz$/.test(x)))
      if (!a.endsWith(`${pkg.name}-${pkg.version}.tgz`))
        problems.push(`${shown}: npm pack writes ${pkg.name}-${pkg.version}.tgz, not ${a}`);
    return problems;
  }
  if (program.startsWith('.ci/') && !existsSync(join(ROOT, program))) return [`${shown}: ${program} does not exist`];
  return [];
}

function cliProblems(args: string[], table: FlagTable, shown: string): string[] {
  const problems: string[] = [];
  const command = args[0] !== undefined && !args[0].startsWith('-') && table.has(args[0]) ? args[0] : '';
  const flags = table.get(command)!;
  for (const arg of command ? args.slice(1) : args) {
    if (arg === '--') break;
    if (arg.includes('…') || arg.startsWith('[')) problems.push(`${shown}: "${arg}" is a placeholder, not something that runs`);
    if (!/^--?[a-zA-Z]/.test(arg)) continue;
    const flag = arg.split('=')[0]!;
    const known = flags.has(flag) || (flag.startsWith('--no-') && flags.has(`--${flag.slice(5)}`));
    if (!known) problems.push(`${shown}: ${command ? `"${command}"` : 'a run'} takes no ${flag}`);
  }
  return problems;
}

/** Every problem of the commands a Markdown text shows. */
function commandProblems(markdown: string, table: FlagTable): string[] {
  const problems: string[] = [];
  for (const fence of fences(markdown)) {
    if (!fence.lang) problems.push(`line ${fence.line}: a fenced block without a language (sh, text, json…): is it a command?`);
    const shell = shellOf(fence);
    if (shell === undefined) continue;
    for (const argv of simpleCommands(shell)) problems.push(...problemsOf(argv, table).map((p) => `line ${fence.line}: ${p}`));
  }
  return problems;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const markdownWithoutFences = markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
  return new Set([...markdownWithoutFences.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/** Links of a page to files of the repository (and their headings) that do not exist. */
function brokenLinks(file: string, markdown: string): string[] {
  const broken: string[] = [];
  for (const [, target] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target!)) continue;
    const [path, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = path ? resolve(dirname(file), path) : file;
    if (!existsSync(resolved)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))
      broken.push(`${target}: no such heading`);
  }
  return broken;
}

describe('the commands and links of README.md and docs/', () => {
  const table: FlagTable = new Map();

  beforeAll(async () => {
    const main = await runCli(['--help']);
    expect(main.code, main.stderr).toBe(0);
    table.set('', flagsOfHelp(main.stdout));
    const commands = [...main.stdout.matchAll(/^ {2}petstore-conformance ([a-z][\w-]*)/gm)].map((m) => m[1]!);
    expect(commands).toContain('serve');
    const helps = await Promise.all(commands.map((c) => runCli([c, '--help'])));
    // A command whose --help lists no options (completion prints its script) takes none.
    commands.forEach((c, i) => table.set(c, flagsOfHelp(helps[i]!.stdout)));
  }, 60_000);

  it('the checker can fail: a made-up flag, a flag of another command, a placeholder, a missing script, an untagged block', () => {
    const bad = [
      '```sh',
      'petstore-conformance --base-url http://127.0.0.1:8080/v1 --made-up-flag',
      'node bin/petstore-conformance.js serve --port 8080 --load none',
      'petstore-conformance certify --out a.tar.gz [--sign-key key.pem]',
      'npm run no-such-script',
      'npm install -g ./petstore-conformance-0.0.1.tgz',
      '```',
      '```',
      'npx petstore-conformance --base-url http://x',
      '```',
      '```yaml',
      '      - run: npx petstore-conformance --made-up-in-yaml',
      '```',
    ].join('\n');
    const problems = commandProblems(bad, table).join('\n');
    expect(problems).toContain('a run takes no --made-up-flag');
    expect(problems).toContain('"serve" takes no --load');
    expect(problems).toContain('"[--sign-key" is a placeholder');
    expect(problems).toContain('no script "no-such-script"');
    expect(problems).toContain(`npm pack writes ${pkg.name}-${pkg.version}.tgz`);
    expect(problems).toContain('a fenced block without a language');
    expect(problems).toContain('a run takes no --made-up-in-yaml');
    const good = '```sh\nexport PETSTORE_API_KEY="$(openssl rand -hex 16)"\nnode bin/petstore-conformance.js serve --port 8080\n```\n';
    expect(commandProblems(good, table)).toEqual([]);
  });

  it('every command shown calls a real command with flags it takes, and nothing in it is a placeholder', () => {
    const problems = pages().flatMap((file) =>
      commandProblems(readFileSync(file, 'utf8'), table).map((p) => `${file.slice(ROOT.length + 1)}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it('README.md is at most 20 KB, and every link of README.md and docs/ leads to a file and heading that exist', () => {
    expect(readFileSync(README).length).toBeLessThanOrEqual(README_MAX_BYTES);
    const broken = pages().flatMap((file) =>
      brokenLinks(file, readFileSync(file, 'utf8')).map((b) => `${file.slice(ROOT.length + 1)}: ${b}`),
    );
    expect(broken).toEqual([]);
  });

  it('the README links every page of docs/', () => {
    const readme = readFileSync(README, 'utf8');
    const docs = readdirSync(DOCS).filter((f) => f.endsWith('.md'));
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.filter((f) => !readme.includes(`](docs/${f}`))).toEqual([]);
  });

  it("the README's first command is not npx petstore-conformance (the package is not published), and its set-up is two commands, the second what .ci/run runs", () => {
    const readme = readFileSync(README, 'utf8');
    const first = fences(readme).find((f) => shellOf(f) !== undefined)!;
    expect(first.body).not.toMatch(/^\s*npx petstore-conformance/m);
    const setUp = fences(readme).filter((f) => /^npm ci && npm start\b/m.test(f.body) && /^npm test\b/m.test(f.body));
    expect(setUp, 'a shell block holding "npm ci && npm start" and "npm test"').toHaveLength(1);
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8').trim().split('\n');
    expect(ci.at(-1)).toBe('npm test');
  });

  it('docs/options.md names every option of every command', () => {
    const options = readFileSync(join(DOCS, 'options.md'), 'utf8');
    const missing = [...table].flatMap(([command, flags]) =>
      [...flags]
        .filter((f) => !['--help', '-h', '--version', '-v'].includes(f) && !options.includes(`\`${f}\``))
        .map((f) => `${command || 'run'} ${f}`),
    );
    expect(missing).toEqual([]);
  });
});
