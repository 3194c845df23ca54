/**
 * `petstore-conformance verify bundle.tar.gz [--public-key key.pem]
 * [--product product.json] [--base-url url]`: the bundle, the key and what the
 * bundle must be for read from their flags → certification/verify.ts
 * `verifyBundle` (offline: hashes, signature, suite, product and base URL,
 * every verdict recomputed from the transcript) → its steps worded by
 * certification/format.ts.
 *
 * Exit codes: 0 everything matches, 1 something does not (another product or
 * base URL included), 2 usage error (no such file, not a .tar.gz, an
 * unreadable key or product.json, a base URL that is none).
 */
import { resolve } from 'node:path';
import type { Options } from 'yargs';
import { MAX_BUNDLE_BYTES } from '../certification/bundle.js';
import { describeStep, renderVerification } from '../certification/format.js';
import { verifyBundle } from '../certification/verify.js';
import { asPcError, PcError, UsageError } from '../core/errors.js';
import { parseBaseUrl } from '../core/http.js';
import { oneLine } from '../core/one-line.js';
import { readEd25519Key, readProduct } from './certification.js';
import { readBoundedFile } from './files.js';
import type { Io } from './io.js';
import { inFlags } from './options.js';
import { verifyExitCode } from '../result/policy.js';

export const verifyOptions: Record<string, Options> = {
  'public-key': { type: 'string', describe: 'PEM file of the Ed25519 public key the manifest must be signed with' },
  product: {
    type: 'string',
    describe: 'product.json of the product the bundle must certify: verify fails when its name, version or contact differs',
  },
  'base-url': {
    type: 'string',
    describe:
      'Base URL the bundle must have been certified at: verify fails when scheme, host, port or path differs (letter case of scheme and host, a default port and trailing slashes do not count)',
  },
};

/** What `verify` reads from its flags, as given (paths relative to the working directory). */
export interface VerifyFlags {
  publicKey?: string;
  product?: string;
  baseUrl?: string;
}

/** Runs `verify`; returns the exit code. Never throws. */
export async function verifyCommand(
  bundlePath: string | undefined,
  options: VerifyFlags,
  io: Pick<Io, 'stdout' | 'stderr' | 'env' | 'cwd'>,
): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  try {
    if (!bundlePath) throw new UsageError('verify needs the bundle: petstore-conformance verify bundle.tar.gz');
    const publicKey = options.publicKey
      ? await readEd25519Key(resolve(cwd, options.publicKey), options.publicKey, '--public-key')
      : undefined;
    const product = options.product ? await readProduct(resolve(cwd, options.product), options.product) : undefined;
    // Refused before the bundle is read: a base URL that is none is a mistake of the flag.
    if (options.baseUrl !== undefined) parseBaseUrl(options.baseUrl);
    const bytes = await readBoundedFile(resolve(cwd, bundlePath), MAX_BUNDLE_BYTES, bundlePath);
    const verification = await verifyBundle(bytes, {
      ...(publicKey ? { publicKey } : {}),
      ...(product ? { product } : {}),
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    });
    // Bytes that are no bundle at all are a mistake of the argument, not a finding about a bundle.
    const unreadable = verification.problems.find((p) => p.code === 'NOT_A_BUNDLE');
    if (unreadable) throw new UsageError(`${bundlePath}: ${describeStep(unreadable).text}`);
    io.stdout.write(renderVerification(verification, bundlePath));
    return verifyExitCode(verification.problems.length);
  } catch (error) {
    const pcError = error instanceof PcError ? error : asPcError(error);
    io.stderr.write(
      `petstore-conformance: error: ${oneLine(inFlags(pcError).split('\n')[0]!)}${pcError.code === 'PC_ERR_USAGE' ? ' (see verify --help)' : ''}\n`,
    );
    if (io.env.PETSTORE_CONFORMANCE_DEBUG && error instanceof Error) io.stderr.write(`${error.stack}\n`);
    return pcError.exitCode;
  }
}
