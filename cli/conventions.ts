/**
 * Command-line habits users bring from other tools: colour by the usual
 * environment variables, "did you mean" for a mistyped flag or command, an
 * option that takes one value refused when given twice. Pure functions;
 * cli/main.ts applies them.
 */
import type { Options } from 'yargs';
import { distance, nearest } from '../core/nearest.js';

/**
 * Whether output to `stream` is coloured, by the usual rules
 * (https://no-color.org, https://force-color.org, as supports-color reads them):
 * `NO_COLOR` set and non-empty disables colour, whatever else is set;
 * `FORCE_COLOR` `0` or `false` disables it, `1`, `2`, `3`, `true` or empty
 * enables it even without a terminal; otherwise colour only on a TTY whose
 * `TERM` is not `dumb`.
 */
export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '' || force === 'true') return true;
    if (force === 'false') return false;
    const level = Number.parseInt(force, 10);
    if (Number.isInteger(level)) return level > 0;
  }
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** The nearest known word to a typed one (core/nearest.ts): the did-you-mean of flags and commands. */
export const suggest = nearest;
export { distance };

/**
 * yargs' "Unknown argument(s): …" message, rewritten for people: each unknown
 * word as it was typed (`--base-ur`, not also its camelCase twin `baseUr`),
 * with a suggestion among the command's flags or the commands when one is
 * close. Other messages are returned as they are.
 */
export function explainUnknown(message: string, argv: readonly string[], flags: readonly string[], commands: readonly string[]): string {
  const match = /^Unknown arguments?: (.*)$/.exec(message);
  if (!match) return message;
  const words = match[1]!.split(', ');
  // yargs lists a kebab-case flag twice (base-ur, baseUr): keep the spelling that was typed.
  const typed = words.filter((w) => !words.some((other) => other !== w && camel(other) === w));
  const parts = typed.map((word) => {
    // yargs reads --no-x as x set to false: show and match what was typed.
    const spelled = [`--${word}`, `--no-${word}`, `-${word}`].find((f) => argv.some((a) => a === f || a.startsWith(`${f}=`)));
    if (spelled) {
      const near = suggest(spelled.replace(/^-+/, ''), flags) ?? suggest(word, flags);
      return `${spelled}${near ? ` (did you mean --${near}?)` : ''}`;
    }
    // A word that is not a flag is shown only when it is a near miss of a command: anything else may be a key.
    const near = suggest(word, commands);
    return near ? `${word} (did you mean the command "${near}"?)` : undefined;
  });
  const shown = parts.filter((p): p is string => p !== undefined);
  const hidden = parts.length - shown.length;
  const all = [...shown, ...(hidden > 0 ? [`${hidden} other argument(s), not shown (one may be a key)`] : [])];
  return `unknown ${parts.length === 1 ? 'argument' : 'arguments'}: ${all.join(', ')}`;
}

function camel(kebab: string): string {
  return kebab.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * The first option of `options` that takes one value but was given more than
 * once on the command line, or undefined. yargs turns a string or number
 * option given twice into an array (`--load smoke --load none` became
 * "smokenone", `--base-url` twice a URL joined with a comma), so those are
 * read from `parsed`; a boolean it reads last-wins, so those are counted in
 * `argv` as typed (`--x`, `--x=…`, `--no-x`, a one-letter alias, alone or in a
 * group). Repeatable options (`array: true`) take repeats; options declared
 * without a type (certify's refused ones) are left to their own refusal. A
 * flag and its environment variable are not a repeat: the flag wins.
 */
export function repeatedOption(
  parsed: Record<string, unknown>,
  argv: readonly string[],
  options: Record<string, Options>,
): string | undefined {
  const single = Object.entries(options).filter(([, option]) => option.type !== undefined && option.array !== true);
  for (const [flag, option] of single) if (option.type !== 'boolean' && Array.isArray(parsed[flag])) return flag;
  const booleans = new Map<string, string>();
  for (const [flag, option] of single) {
    if (option.type !== 'boolean') continue;
    booleans.set(flag, flag);
    booleans.set(camel(flag), flag);
    for (const alias of [option.alias ?? []].flat()) booleans.set(alias, flag);
  }
  const seen = new Set<string>();
  for (const arg of argv) {
    if (arg === '--') break;
    let flags: (string | undefined)[];
    if (arg.startsWith('--')) {
      const name = arg.slice(2).split('=')[0]!;
      // --x, --no-x (yargs' negation), --noX (its camelCase twin).
      const negated = name.startsWith('no-') ? name.slice(3) : /^no[A-Z]/.test(name) ? lowerFirst(name.slice(2)) : undefined;
      flags = [booleans.get(name) ?? (negated === undefined ? undefined : booleans.get(negated))];
    } else if (/^-[A-Za-z]+$/.test(arg)) flags = [...arg.slice(1)].map((letter) => booleans.get(letter));
    else continue;
    for (const flag of flags) {
      if (flag === undefined) continue;
      if (seen.has(flag)) return flag;
      seen.add(flag);
    }
  }
  return undefined;
}

function lowerFirst(word: string): string {
  return word.charAt(0).toLowerCase() + word.slice(1);
}
