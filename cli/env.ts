/**
 * Every option of a run from the environment: `PETSTORE_` and the flag in upper
 * snake case (`--max-wait` → `PETSTORE_MAX_WAIT`, see {@link envVarOf}). Flags
 * win over the environment, the environment over the config file, the file over
 * the defaults. An empty variable counts as unset. The base URL and the key keep
 * their own handling in cli/main.ts (PETSTORE_BASE_URL, PETSTORE_API_KEY).
 */
import type { Options } from 'yargs';
import { UsageError } from '../core/errors.js';
import { envVarOf } from './options.js';

export { envVarOf };

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

/**
 * The options set in `env`, keyed by flag as yargs gives them (`max-wait`),
 * parsed by the option's type: numbers as numbers, booleans from
 * 1/true/yes/on and 0/false/no/off, lists split at commas. Throws `UsageError`
 * naming the variable when a value does not parse.
 */
export function optionsFromEnv(env: NodeJS.ProcessEnv, options: Record<string, Options>, except: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [flag, option] of Object.entries(options)) {
    if (except.includes(flag)) continue;
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
    } else if (option.array) {
      out[flag] = value.split(',').map((v) => v.trim()).filter(Boolean);
    } else {
      out[flag] = value;
    }
  }
  return out;
}

/**
 * The API key of a command: the flag's value when given, else PETSTORE_API_KEY
 * when it is set and not empty. Every command reads it this way.
 */
export function apiKeyOf(flag: unknown, env: NodeJS.ProcessEnv): string | undefined {
  return typeof flag === 'string' ? flag : env.PETSTORE_API_KEY || undefined;
}
