/**
 * The GitHub Action (action.yml): its run steps are run in bash as the runner
 * runs a composite action (`bash --noprofile --norc -eo pipefail`), with the
 * runner's environment (GITHUB_ACTIONS=true, GITHUB_STEP_SUMMARY,
 * GITHUB_OUTPUT, GITHUB_ACTION_PATH…) and its `${{ }}` expressions evaluated,
 * against the reference implementation. The `uses:` steps (setup-node,
 * upload-artifact) are not run: the test checks what they are given.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DISTINCTIVE_KEY, overDefaultLimit, tempDir, withServer } from '../../helpers.js';

const ROOT = new URL('../../..', import.meta.url).pathname.replace(/\/$/, '');

interface Step {
  name: string;
  id?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string>;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}

interface Action {
  inputs: Record<string, { required?: boolean; default?: string; description: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

interface Context {
  inputs: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string>; outcome: string }>;
  github: Record<string, string>;
}

/** The value of a context path (`inputs.base-url`, `steps.run.outputs.exit-code`, `github.action_path`): '' when absent. */
function lookup(path: string, ctx: Context): string {
  const [head, ...rest] = path.split('.');
  let value: unknown = ctx[head as keyof Context];
  for (const part of rest) value = (value as Record<string, unknown> | undefined)?.[part];
  return value === undefined || value === null ? '' : String(value);
}

/**
 * The expressions this action uses: context paths, string literals, `==`,
 * `!=`, `&&`, `||`, `always()`, `success()`, `failure()`. Anything else throws,
 * so a new kind of expression in action.yml fails here instead of being misread.
 */
function evaluate(expression: string, ctx: Context, failed: boolean): string | boolean {
  const tokens = expression.match(/'(?:[^']|'')*'|&&|\|\||==|!=|[A-Za-z_][\w.-]*\(\)|[A-Za-z_][\w.-]*|\S/g) ?? [];
  let i = 0;
  const primary = (): string | boolean => {
    const token = tokens[i++];
    if (token === undefined) throw new Error(`unexpected end of ${expression}`);
    if (token.startsWith("'")) return token.slice(1, -1).replace(/''/g, "'");
    if (token === 'always()') return true;
    if (token === 'success()') return !failed;
    if (token === 'failure()') return failed;
    if (token === 'true' || token === 'false') return token === 'true';
    if (/^(inputs|steps|github)\./.test(token)) return lookup(token, ctx);
    throw new Error(`unsupported token ${token} in ${expression}`);
  };
  const comparison = (): string | boolean => {
    const left = primary();
    const op = tokens[i];
    if (op !== '==' && op !== '!=') return left;
    i++;
    const right = primary();
    return op === '==' ? String(left) === String(right) : String(left) !== String(right);
  };
  const truthy = (v: string | boolean) => v !== '' && v !== false;
  const or = (): string | boolean => {
    let value = and();
    while (tokens[i] === '||') {
      i++;
      const right = and();
      value = truthy(value) ? value : right;
    }
    return value;
  };
  const and = (): string | boolean => {
    let value = comparison();
    while (tokens[i] === '&&') {
      i++;
      const right = comparison();
      value = truthy(value) ? right : value;
    }
    return value;
  };
  const value = or();
  if (i !== tokens.length) throw new Error(`cannot read ${expression}`);
  return value;
}

/** A string with every `${{ … }}` replaced. */
function interpolate(text: string, ctx: Context): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expression: string) => String(evaluate(expression, ctx, false)));
}

/** name=value lines and name<<DELIMITER heredocs, as the runner reads $GITHUB_OUTPUT. */
function readOutputs(file: string): Record<string, string> {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  const out: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]!);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i]!.includes('=')) {
      out[lines[i]!.slice(0, lines[i]!.indexOf('='))] = lines[i]!.slice(lines[i]!.indexOf('=') + 1);
    }
  }
  return out;
}

function bash(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

interface ActionRun {
  outputs: Record<string, string>;
  summary: string;
  log: string;
  uses: { step: Step; with: Record<string, string>; ran: boolean }[];
  failedStep?: string;
  workspace: string;
}

/** Runs action.yml's steps as a runner runs a composite action, with `given` inputs. */
async function runAction(given: Record<string, string>): Promise<ActionRun> {
  const workspace = tempDir();
  const runnerTemp = tempDir();
  const summaryFile = join(runnerTemp, 'step_summary.md');
  writeFileSync(summaryFile, '');
  const inputs = Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [name, given[name] ?? input.default ?? '']));
  for (const [name, input] of Object.entries(action.inputs))
    if (input.required && !inputs[name]) throw new Error(`input ${name} is required`);
  const ctx: Context = { inputs, steps: {}, github: { action_path: ROOT, workspace } };
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    CI: 'true',
    NO_COLOR: '1',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_ACTION_PATH: ROOT,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_ENV: join(runnerTemp, 'env'),
    GITHUB_PATH: join(runnerTemp, 'path'),
    RUNNER_TEMP: runnerTemp,
  };
  // Nothing of the test's own environment may configure the tool behind the action's back.
  for (const name of Object.keys(base)) if (name.startsWith('PETSTORE_')) delete base[name];
  let log = '';
  let failedStep: string | undefined;
  const uses: ActionRun['uses'] = [];
  for (const [index, step] of action.runs.steps.entries()) {
    const runs = step.if === undefined ? failedStep === undefined : Boolean(evaluate(step.if, ctx, failedStep !== undefined));
    if (step.uses) {
      uses.push({
        step,
        with: Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v), ctx)])),
        ran: runs,
      });
      continue;
    }
    if (!runs) continue;
    expect(step.shell, step.name).toBe('bash');
    const outputFile = join(runnerTemp, `output-${index}`);
    writeFileSync(outputFile, '');
    const env = {
      ...base,
      GITHUB_OUTPUT: outputFile,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, interpolate(String(v), ctx)])),
    };
    // A composite action's run step sees ${{ }} expressions replaced before bash reads the script.
    const ran = await bash(interpolate(step.run!, ctx), env, workspace);
    log += `--- ${step.name} (exit ${ran.code})\n${ran.stdout}${ran.stderr}`;
    if (step.id) ctx.steps[step.id] = { outputs: readOutputs(outputFile), outcome: ran.code === 0 ? 'success' : 'failure' };
    if (ran.code !== 0) failedStep = step.name;
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([name, output]) => [name, interpolate(output.value, ctx)]));
  return { outputs, summary: readFileSync(summaryFile, 'utf8'), log, uses, ...(failedStep ? { failedStep } : {}), workspace };
}

/** Default limit 21 instead of 20: LIST-LIMIT-DEFAULT fails. */
const broken = overDefaultLimit;

describe('action.yml', () => {
  it('is a composite action with the documented inputs and outputs; the key is an input never echoed', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(['base-url', 'api-key', 'load', 'strict', 'waivers', 'report-dir']));
    expect(Object.keys(action.outputs)).toEqual(expect.arrayContaining(['exit-code', 'verdict', 'report-dir']));
    // Inputs reach scripts only through env: no ${{ inputs.… }} inside a script.
    for (const step of action.runs.steps) expect(step.run ?? '', step.name).not.toMatch(/\$\{\{\s*inputs\./);
    expect(action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))?.if).toBe('always()');
  });

  it('against a conformant target: exit-code 0, the step summary with the load table, the reports uploaded', async () => {
    await withServer({}, async (url) => {
      const run = await runAction({ 'base-url': url, 'api-key': DISTINCTIVE_KEY, load: 'smoke', 'report-dir': 'reports/conformance' });
      expect(run.failedStep, run.log).toBeUndefined();
      expect(run.outputs).toEqual({ 'exit-code': '0', verdict: 'conformant', 'report-dir': 'reports/conformance' });
      expect(run.summary).toMatch(/^## petstore-conformance: ✅ conformant/);
      expect(run.summary).toMatch(/\| LIST-LIMIT-DEFAULT \| MUST \| ✅ pass \|/);
      expect(run.summary).toMatch(/### Load\n\n\| Profile \|/);
      expect(run.summary).toMatch(/^\| smoke \(closed, 4 connections, /m);
      for (const file of ['report.json', 'junit.xml', 'report.html'])
        expect(existsSync(join(run.workspace, 'reports', 'conformance', file)), file).toBe(true);
      const upload = run.uses.find((u) => u.step.uses!.startsWith('actions/upload-artifact@'))!;
      expect(upload.ran).toBe(true);
      expect(upload.with).toMatchObject({ name: 'petstore-conformance-report', path: 'reports/conformance' });
      expect(run.uses.find((u) => u.step.uses!.startsWith('actions/setup-node@'))?.with).toEqual({ 'node-version': '20' });
      expect(run.log + run.summary + JSON.stringify(run.outputs)).not.toContain(DISTINCTIVE_KEY);
    });
  });

  it('against a non-conformant target: exit-code 1, annotations, the reports still uploaded, then the step fails', async () => {
    await withServer({ wrap: broken }, async (url) => {
      const run = await runAction({ 'base-url': url, 'api-key': DISTINCTIVE_KEY, load: 'none', strict: 'true' });
      expect(run.outputs['exit-code']).toBe('1');
      expect(run.outputs.verdict).toBe('non-conformant');
      expect(run.log).toMatch(/^::error title=LIST-LIMIT-DEFAULT \(MUST\) /m);
      expect(run.summary).toMatch(/^## petstore-conformance: ❌ non-conformant \(exit 1\)/);
      expect(run.uses.find((u) => u.step.uses!.startsWith('actions/upload-artifact@'))?.ran).toBe(true);
      expect(run.failedStep).toBe('Fail when not conformant');
      expect(run.log).toMatch(/::error title=petstore-conformance::exit code 1/);
      const report = JSON.parse(readFileSync(join(run.workspace, 'petstore-conformance-report', 'report.json'), 'utf8')) as {
        summary: { strict: boolean };
      };
      expect(report.summary.strict).toBe(true);
      expect(run.log + run.summary).not.toContain(DISTINCTIVE_KEY);
    });
  });

  it('args, config and wait-for reach the tool; args are split, never evaluated, and refuse the key', async () => {
    await withServer({}, async (url) => {
      const run = await runAction({
        'base-url': url,
        'api-key': DISTINCTIVE_KEY,
        load: 'none',
        'wait-for': '30',
        args: '--only AUTH-REQUIRED  --num-runs 3 $(touch injected)',
      });
      // "$(touch" is an argument like any other: the tool refuses it, nothing runs it.
      expect(run.outputs['exit-code'], run.log).toBe('2');
      expect(existsSync(join(run.workspace, 'injected'))).toBe(false);
      expect(run.log).toMatch(/unknown argument|\$\(touch/);
    });
    await withServer({}, async (url) => {
      const run = await runAction({
        'base-url': url,
        'api-key': DISTINCTIVE_KEY,
        load: 'none',
        'wait-for': '30',
        args: '--only AUTH-REQUIRED --num-runs 3',
      });
      expect(run.outputs['exit-code'], run.log).toBe('0');
      const report = JSON.parse(readFileSync(join(run.workspace, 'petstore-conformance-report', 'report.json'), 'utf8')) as {
        options: { only: string[] };
        numRuns: number;
      };
      expect(report.options.only).toEqual(['AUTH-REQUIRED']);
      expect(report.numRuns).toBe(3);
    });
    const refused = await runAction({
      'base-url': 'http://127.0.0.1:9/v1',
      'api-key': DISTINCTIVE_KEY,
      args: `--api-key ${DISTINCTIVE_KEY}`,
    });
    expect(refused.outputs['exit-code']).toBe('2');
    expect(refused.log).toMatch(/::error title=petstore-conformance::the args input takes no --api-key/);
    expect(refused.failedStep).toBe('Fail when not conformant');
    // Nothing was sent: the tool never ran, so no report.
    expect(refused.outputs.verdict).toBe('');
  }, 120_000);

  it("installs what the tool runs on and its build's compiler, not the project's test tools", () => {
    const install = action.runs.steps.find((s) => s.name === 'Install petstore-conformance')!.run!;
    expect(install).toContain('npm ci --omit=dev --ignore-scripts');
    expect(install).not.toMatch(/npm ci(?! --omit=dev)/);
    // The build's own steps, in package.json's order, with the compiler installed apart at the lock file's version.
    const build = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build;
    // Not the CLI's bundle and its code cache (rolldown, a run against the reference): the Action runs the CLI once,
    // and without them it runs from the ES modules (cli/launch.ts).
    const steps = build
      .split(' && ')
      .filter((step) => !/build-(bundle|code-cache)\.js$/.test(step))
      .map((step) => step.replace(/^tsc /, 'node "$build/node_modules/typescript/bin/tsc" '));
    let at = -1;
    for (const step of steps) {
      const found = install.indexOf(step, at + 1);
      expect(found, step).toBeGreaterThan(at);
      at = found;
    }
    for (const pkg of ['typescript', '@types/node', '@types/yargs', '@types/escape-html'])
      expect(install).toContain(`"${pkg}@$(pinned ${pkg})"`);
  });

  it('every input and output is described; the verdict output with each of its values', () => {
    for (const [name, input] of Object.entries(action.inputs)) expect((input as { description?: string }).description, name).toBeTruthy();
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(['args', 'config', 'wait-for']));
    const verdict = (action.outputs.verdict as unknown as { description: string }).description;
    for (const value of ['conformant', 'non-conformant', 'inconclusive', 'error', 'interrupted']) expect(verdict).toContain(value);
  });

  it('fail-on-error: false leaves the exit code to the workflow', async () => {
    await withServer({ wrap: broken }, async (url) => {
      const run = await runAction({ 'base-url': url, 'api-key': DISTINCTIVE_KEY, load: 'none', 'fail-on-error': 'false' });
      expect(run.outputs['exit-code']).toBe('1');
      expect(run.failedStep).toBeUndefined();
    });
  });
});
