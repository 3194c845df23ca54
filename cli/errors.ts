/**
 * The one line a command prints for an error it stops on, and the usage error
 * whose fix is not among the flags: a config file's ({@link ConfigFileError}).
 * Light on purpose: cli/main.ts loads it before any command runs.
 */
import { type PcError, UsageError } from '../core/errors.js';
import type { Wording } from '../core/wording.js';
import { inFlags } from './options.js';

/**
 * A usage error about a config file: what it holds, or the file named with
 * `--config`/`PETSTORE_CONFIG`. Its fix is in the file or in which file is
 * named, so its line does not send the reader to `--help`.
 */
export class ConfigFileError extends UsageError {
  constructor(message: string | Wording) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

/**
 * `petstore-conformance: error: …`, the first line of `error`'s message with
 * settings called by their flags; a usage error about the command line ends
 * with where its help is (`help`: `--help`, `certify --help`), one about a
 * config file does not. Not redacted: the caller redacts the line.
 */
export function errorLine(error: PcError, help: string): string {
  const seeHelp = error.code === 'PC_ERR_USAGE' && !(error instanceof ConfigFileError);
  return `petstore-conformance: error: ${inFlags(error).split('\n')[0]}${seeHelp ? ` (see ${help})` : ''}`;
}
