/**
 * `--help` without yargs: the text yargs renders for the top-level help,
 * rendered by yargs itself at build time (scripts/render-help.js) for the
 * widths most terminals and every pipe get, and printed as it was rendered.
 *
 * Why: yargs lays help out with cliui and wrap-ansi, which measure every cell
 * with string-width 7, and that segments each string into graphemes with
 * Intl.Segmenter (no ASCII fast path before string-width 8, which cliui 9 does
 * not take): about 200 ms of a 340 ms `--help`, more than node's own start.
 *
 * The text is printed only where it is, byte for byte, what yargs would print
 * (test/e2e/cli/help-cache.test.ts compares them): `--help` or `-h` alone, at
 * a width rendered at build, and in a locale where yargs speaks English (it
 * reads the locale from the environment and translates its headings).
 * Anything else, or a missing file (a run from source), goes through yargs.
 */
import { readFileSync } from 'node:fs';

/** The widths rendered at build: an 80-column terminal, a pipe (no width: 100), and 110 (any terminal that wide or wider). */
export const HELP_WIDTHS = [80, 100, 110] as const;

/** The width help is wrapped at: the terminal's, at most 110; 100 when the output is not a terminal. */
export function helpWidth(stdout: { columns?: number }): number {
  return Math.min(110, stdout.columns ?? 100);
}

/** The file holding the help rendered at `width` (beside the built module: dist/cli/help/<width>.txt). */
export function helpFile(width: number): URL {
  return new URL(`./help/${width}.txt`, import.meta.url);
}

/**
 * Whether yargs would print its own English strings in `env`: it takes the
 * first of LC_ALL, LC_MESSAGES, LANG, LANGUAGE (default en_US), cut at `.` or
 * `:`, and English, C and POSIX have no translation but its own.
 */
export function yargsSpeaksEnglish(env: NodeJS.ProcessEnv): boolean {
  const locale = (env.LC_ALL || env.LC_MESSAGES || env.LANG || env.LANGUAGE || 'en_US').replace(/[.:].*/, '');
  return /^(?:en(?:_[A-Za-z]+)?|C|POSIX)$/.test(locale);
}

/**
 * The help yargs would print for `argv`, from the build, or undefined when it
 * was not rendered for this case (yargs then renders it). `env` is the
 * process's: the one yargs reads its locale from.
 */
export function renderedHelp(argv: readonly string[], stdout: { columns?: number }, env: NodeJS.ProcessEnv): string | undefined {
  if (argv.length !== 1 || (argv[0] !== '--help' && argv[0] !== '-h') || !yargsSpeaksEnglish(env)) return undefined;
  const width = helpWidth(stdout);
  if (!(HELP_WIDTHS as readonly number[]).includes(width)) return undefined;
  try {
    return readFileSync(helpFile(width), 'utf8');
  } catch {
    return undefined;
  }
}
