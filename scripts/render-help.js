// Renders the top-level `--help` with yargs, as the CLI prints it, for each width of cli/help.ts's HELP_WIDTHS, into
// dist/cli/help/<width>.txt, which `--help` alone then prints without loading yargs (cli/help.ts says why and when).
// Run by `npm run build` after tsc. The old files are removed first, so the text comes from yargs, never from an
// earlier build; the locale is C (yargs' own English strings). test/e2e/cli/help-cache.test.ts compares the files
// with yargs rendering now.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { HELP_WIDTHS, helpFile } = await import('../dist/cli/help.js');
const { main } = await import('../dist/cli/main.js');

rmSync(new URL('../dist/cli/help/', import.meta.url), { recursive: true, force: true });
for (const key of ['LC_ALL', 'LC_MESSAGES', 'LANG', 'LANGUAGE']) delete process.env[key];
process.env.LC_ALL = 'C';

/** What yargs prints for `--help` at `width` (on the process's stdout, through console.log). */
async function render(width) {
  let text = '';
  const write = process.stdout.write;
  const sink = { columns: width, write: () => true };
  process.stdout.write = (chunk) => ((text += String(chunk)), true);
  try {
    const code = await main(['--help'], { stdout: sink, stderr: sink, env: {} });
    if (code !== 0) throw new Error(`--help at width ${width} exited ${code}`);
  } finally {
    process.stdout.write = write;
  }
  if (!text.includes('--base-url')) throw new Error(`--help at width ${width} printed no help`);
  return text;
}

try {
  for (const width of HELP_WIDTHS) {
    const text = await render(width);
    mkdirSync(new URL('.', helpFile(width)), { recursive: true });
    writeFileSync(fileURLToPath(helpFile(width)), text);
  }
} catch (error) {
  console.error(`render-help: ${error.message}`);
  process.exitCode = 1;
}
