/**
 * `--help` alone prints the text yargs rendered at build (dist/cli/help/<width>.txt, scripts/render-help.js) instead
 * of loading yargs (cli/help.ts says why). That text must be, byte for byte, what yargs renders now from the source,
 * at every width built; and where yargs would say something else (another locale), yargs still says it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HELP_WIDTHS } from '../../../cli/help.js';
import { main } from '../../../cli/main.js';
import { runCli } from '../../helpers.js';

const built = (width: number) => readFileSync(new URL(`../../../dist/cli/help/${width}.txt`, import.meta.url), 'utf8');

/** What yargs prints for `--help` at `width`, from the source (where no help was rendered at build: yargs renders it). */
async function yargsHelp(width: number): Promise<string> {
  let text = '';
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    text += `${args.map(String).join(' ')}\n`;
  });
  try {
    const sink = { columns: width, write: () => true } as unknown as NodeJS.WritableStream;
    expect(await main(['--help'], { stdout: sink, stderr: sink, env: {} })).toBe(0);
  } finally {
    log.mockRestore();
  }
  return text;
}

describe('--help rendered at build', () => {
  const saved = process.env.LC_ALL;
  beforeAll(() => {
    process.env.LC_ALL = 'C';
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.LC_ALL;
    else process.env.LC_ALL = saved;
  });

  it.each(HELP_WIDTHS)('at width %i is what yargs renders', async (width) => {
    expect(built(width)).toBe(await yargsHelp(width));
  });

  it('is what bin prints for --help and -h (a pipe: width 100), in English and C locales', async () => {
    const expected = await yargsHelp(100);
    for (const [args, env] of [
      [['--help'], { LC_ALL: 'C' }],
      [['-h'], { LC_ALL: 'en_US.UTF-8' }],
      [['--help'], { LC_ALL: '', LC_MESSAGES: '', LANG: 'POSIX', LANGUAGE: '' }],
    ] as const) {
      const ran = await runCli([...args], { env });
      expect({ code: ran.code, stdout: ran.stdout, stderr: ran.stderr }, `${args.join(' ')} ${JSON.stringify(env)}`).toEqual({
        code: 0,
        stdout: expected,
        stderr: '',
      });
    }
  });

  it('leaves a locale yargs translates to yargs', async () => {
    const ran = await runCli(['--help'], { env: { LC_ALL: '', LC_MESSAGES: '', LANG: 'de_DE.UTF-8', LANGUAGE: '' } });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('Kommandos:');
    expect(ran.stdout).toContain('--base-url');
  });
});
