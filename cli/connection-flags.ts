/**
 * The connection flags every command that talks to a target shares (the run,
 * `replay`, `certify`) as yargs options, and what they say once parsed. Apart
 * from cli/connection.ts, which checks them with core/connection.ts and so
 * loads undici: `--help` describes them without it.
 */
import type { Options } from 'yargs';
import { UsageError } from '../core/errors.js';
import { CONNECTION_KEYS } from './option-schema.js';
import { yargsOptionsOf } from './option-views.js';

/** Secret header values shorter than this are refused: they would be "redacted" out of any text. */
export { MIN_SECRET_LENGTH } from '../core/connection/options.js';

export { SECRET_HEADER_ENV } from './option-schema.js';

/** The flags beyond `--ca` and `--insecure` (which each command declares in its own table), from the schema. */
export const connectionOptions: Record<string, Options> = yargsOptionsOf(CONNECTION_KEYS);

/** `--ca` and `--insecure`, for commands that did not have them, from the schema. */
export const tlsOptions: Record<string, Options> = yargsOptionsOf(['ca', 'insecure']);

/** What the flags (and the config file, for the run) say, before any file is read. */
export interface ConnectionFlags {
  ca?: string | undefined;
  insecure?: boolean | undefined;
  cert?: string | undefined;
  certKey?: string | undefined;
  proxy?: string | undefined;
  /** `Name: value` each. */
  header?: string[] | undefined;
  /** `Name: value` or `Name` each. */
  secretHeader?: string[] | undefined;
  /** Headers from the config file, by name. */
  fileHeaders?: Record<string, string> | undefined;
  /** Values the config file took from the environment into its headers (cli/config.ts `SECRET_KEYS`): secrets. */
  fileSecrets?: readonly { at: readonly string[]; variable: string; value: string }[] | undefined;
}

/** The connection flags of parsed yargs arguments. */
export function connectionFlags(args: Record<string, unknown>): ConnectionFlags {
  const list = (value: unknown): string[] | undefined =>
    value === undefined ? undefined : (Array.isArray(value) ? value : [value]).map(String);
  const text = (name: string): string | undefined => {
    const value = args[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} takes one value`);
    return value;
  };
  return {
    ca: text('ca'),
    insecure: args.insecure === undefined ? undefined : args.insecure === true,
    cert: text('cert'),
    certKey: text('cert-key'),
    proxy: text('proxy'),
    header: list(args.header),
    secretHeader: list(args['secret-header']),
  };
}
