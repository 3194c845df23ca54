/**
 * Every option of every command from the environment, by one rule:
 * `PETSTORE_` and the flag in upper snake case (`--max-wait` →
 * `PETSTORE_MAX_WAIT`, `export-load --format` → `PETSTORE_FORMAT`). Flags win
 * over the environment, the environment over the config file, the file over
 * the defaults. An empty variable counts as unset. A repeatable option's
 * variable holds one value per line (header values may hold commas). Options
 * hidden from `--help` (certify's refused ones) have no variable. The key is
 * read by {@link apiKeyOf} alone, from `--api-key` or `PETSTORE_API_KEY`; the
 * run sets `PETSTORE_BASE_URL` aside under `--embedded` (cli/main.ts).
 */
import type { Options } from 'yargs';
import { UsageError } from '../core/errors.js';
import { envVarOf } from './option-schema.js';

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

export { envVarOf } from './option-schema.js';

/** Whether an option has a variable of this rule: every option `--help` shows does. */
const hasVariable = (option: Options): boolean => option.hidden !== true;

/**
 * The options as `--help` shows them: each description ends with its
 * variable, `(env PETSTORE_…)`, and for a repeatable option how to write
 * several values in it.
 */
export function documented(options: Record<string, Options>): Record<string, Options> {
  return Object.fromEntries(
    Object.entries(options).map(([flag, option]) => [
      flag,
      hasVariable(option)
        ? { ...option, describe: `${option.describe ?? ''} (env ${envVarOf(flag)}${option.array ? ', one value per line' : ''})` }
        : option,
    ]),
  );
}

/**
 * The options set in `env`, keyed by flag as yargs gives them (`max-wait`),
 * parsed by the option's type: numbers as numbers, booleans from
 * 1/true/yes/on and 0/false/no/off, repeatable options one value per line,
 * values among the option's choices. Throws `UsageError` naming the variable
 * (never its value, which may be a secret header) when a value does not parse.
 */
function optionsFromEnv(env: NodeJS.ProcessEnv, options: Record<string, Options>, except: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [flag, option] of Object.entries(options)) {
    if (flag === 'api-key' || except.includes(flag) || !hasVariable(option)) continue;
    const name = envVarOf(flag);
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const value = raw.trim();
    if (option.type === 'boolean') {
      if (TRUE.includes(value.toLowerCase())) out[flag] = true;
      else if (FALSE.includes(value.toLowerCase())) out[flag] = false;
      else throw new UsageError(`${name} must be one of ${TRUE.join(', ')} or ${FALSE.join(', ')}, got "${value}"`);
    } else if (option.type === 'number') {
      const number = Number(value);
      if (!Number.isFinite(number)) throw new UsageError(`${name} must be a number, got "${value}"`);
      out[flag] = number;
    } else {
      const values = option.array
        ? value
            .split('\n')
            .map((v) => v.trim())
            .filter(Boolean)
        : [value];
      const choices = option.choices as readonly unknown[] | undefined;
      if (choices && !values.every((v) => choices.includes(v))) throw new UsageError(`${name} must be one of ${choices.join(', ')}`);
      out[flag] = option.array ? values : value;
    }
  }
  return out;
}

/** Parsed arguments completed from the environment: each option the command line left out, from its variable. */
export function withEnv(
  args: Record<string, unknown>,
  options: Record<string, Options>,
  env: NodeJS.ProcessEnv,
  except: readonly string[] = [],
): Record<string, unknown> {
  return { ...optionsFromEnv(env, options, except), ...Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)) };
}

/**
 * The API key of a command: the flag's value when given, else PETSTORE_API_KEY
 * when it is set and not empty. Every command reads it this way.
 */
export function apiKeyOf(flag: unknown, env: NodeJS.ProcessEnv): string | undefined {
  return typeof flag === 'string' ? flag : env.PETSTORE_API_KEY || undefined;
}
