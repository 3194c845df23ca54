/**
 * `petstore-conformance certify`: flags → certification/certify.ts `certify`
 * → the bundle written to `--out` and the decision said. Every flag and file
 * is checked before the run, so a mistake costs nothing.
 *
 * Exit codes: 0 certified, 1 not certified (the bundle is written all the
 * same and says why), 2 usage error (nothing run, nothing written), 130/143/129
 * interrupted by SIGINT/SIGTERM/SIGHUP (the bundle is written of what ran, not
 * certified: "interrupted by …").
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Options } from 'yargs';
import { BUNDLE_MARKER } from '../certification/bundle.js';
import { certify, ProductRefused } from '../certification/certify.js';
import { asPcError, PcError, UsageError } from '../core/errors.js';
import { checkApiKey, redactorForAll } from '../core/redact.js';
import { refusalOf, removePartialFilesSync, writeFileAtomic } from '../core/safe-write.js';
import { reporters } from '../reports/index.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import { CERTIFICATION, certifyExitCode } from '../result/policy.js';
import { readEd25519Key, readProduct } from './certification.js';
import { buildConnection } from './connection.js';
import { connectionFlags, connectionOptions } from './connection-flags.js';
import { watchInterrupts } from './interrupt.js';
import type { Io } from './io.js';
import { errorLine } from './errors.js';
import { ARGV_WARNING } from './options.js';
import { yargsOptionsOf } from './option-views.js';
import { apiKeyOf } from './env.js';
import { connectionLine, settingSources } from './transport.js';

/** Flags of a plain run that would change what is certified; certify refuses each (see {@link certifyOptions}). */
const REFUSED = ['only', 'skip', 'seed', 'num-runs', 'load', 'strict', 'waiver', 'waivers', 'config', 'embedded'] as const;

/** The options of `certify`; the refused ones are declared (hidden) so that the refusal can say why. */
export const certifyOptions: Record<string, Options> = {
  'base-url': { type: 'string', describe: 'Base URL of the implementation' },
  'api-key': { type: 'string', describe: `API key, sent as "Authorization: Bearer <key>"; never written into the bundle. ${ARGV_WARNING}` },
  product: { type: 'string', describe: "product.json: the product's name, version and contact (spec/product.schema.json)" },
  out: { type: 'string', describe: 'Where the bundle (.tar.gz) is written' },
  'sign-key': { type: 'string', describe: 'PEM file of an Ed25519 private key: signs manifest.json into manifest.sig' },
  ...yargsOptionsOf(['timeout', 'ca', 'insecure']),
  ...connectionOptions,
  ...Object.fromEntries(REFUSED.map((flag) => [flag, { hidden: true } satisfies Options])),
};

/** The fixed settings, in words, for messages. */
export const CERTIFICATION_SETTINGS = `every rule, a seed drawn at random for each certification, ${CERTIFICATION.numRuns} runs per property, load profile ${CERTIFICATION.load}, not strict, no waivers, no config file`;

/**
 * Runs `certify` with parsed arguments (`typed`: as the command line gave
 * them, before the environment filled them, to say where each transport
 * setting came from); returns the exit code. Never throws.
 */
export async function certifyCommand(
  args: Record<string, unknown>,
  io: Pick<Io, 'stdout' | 'stderr' | 'env' | 'cwd' | 'signals' | 'raise'>,
  typed: Record<string, unknown> = args,
): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const secrets = redactorForAll([typeof args['api-key'] === 'string' ? args['api-key'] : undefined, io.env.PETSTORE_API_KEY]);
  try {
    const refused = REFUSED.filter((flag) => args[flag] !== undefined);
    if (refused.length > 0)
      throw new UsageError(
        `certify runs with fixed settings (${CERTIFICATION_SETTINGS}): ${refused.map((f) => `--${f}`).join(', ')} ${refused.length === 1 ? 'is' : 'are'} not accepted`,
      );
    const text = (name: string): string | undefined => {
      const value = args[name];
      if (value === undefined) return undefined;
      if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} takes one value`);
      return value;
    };
    const baseUrl = text('base-url');
    if (!baseUrl) throw new UsageError('--base-url is required (or set PETSTORE_BASE_URL)');
    const apiKey = apiKeyOf(text('api-key'), io.env);
    if (!apiKey) throw new UsageError('--api-key is required (or set PETSTORE_API_KEY)');
    checkApiKey(apiKey);
    const productPath = text('product');
    if (!productPath) throw new UsageError('--product is required: a product.json with the name, version and contact of what is certified');
    const outPath = text('out');
    if (!outPath) throw new UsageError('--out is required: where the bundle (.tar.gz) goes');

    const product = await readProduct(resolve(cwd, productPath), productPath);
    const flags = connectionFlags(args);
    const connection = await buildConnection(flags, io.env, cwd);
    const said = connectionLine({
      target: baseUrl,
      connection,
      files: flags,
      sources: settingSources({ typed, filled: args }, { target: baseUrl, connection }),
    });
    const out = resolve(cwd, outPath);
    const outDir = await stat(dirname(out)).catch(() => undefined);
    if (!outDir?.isDirectory()) throw new UsageError(`--out ${outPath}: the directory ${dirname(outPath)} does not exist`);
    if ((await stat(out).catch(() => undefined))?.isDirectory())
      throw new UsageError(`--out ${outPath}: is a directory; give the bundle's file name`);
    // A file named at --out is replaced only when it is a bundle certify wrote: refused now, before the run.
    const inTheWay = await refusalOf([{ path: out, ours: BUNDLE_MARKER, label: `--out ${outPath}` }], 'give another --out');
    if (inTheWay) throw new UsageError(inTheWay);
    // A bundle certify wrote there before is replaced, and the last line says so: a signed certificate is not lost unsaid.
    const replacing = (await stat(out).catch(() => undefined))?.isFile() === true;
    const signPath = text('sign-key');
    const signKey = signPath ? await readEd25519Key(resolve(cwd, signPath), signPath, '--sign-key') : undefined;

    const progress = reporters.console({
      reportDir: '',
      out: io.stdout,
      progress: io.stderr,
      color: false,
      interactive: false,
      env: io.env,
    });
    // A signal stops the run, and the bundle is written of what ran: never certified, but the evidence is kept.
    const interrupts = watchInterrupts(io, { kept: `the bundle is written for what ran, NOT CERTIFIED (interrupted), to ${outPath}` });
    interrupts.onHardExit(removePartialFilesSync);
    let certification: Awaited<ReturnType<typeof certify>>;
    try {
      certification = await certify({
        baseUrl,
        apiKey,
        product,
        connection,
        ...(signKey ? { signKey } : {}),
        ...(args.timeout === undefined ? {} : { timeoutMs: args.timeout as number }),
        onEvent: (event) => {
          if (event.type !== 'run-end') progress.onEvent?.(event);
          // How certify reaches the target, under the console's "testing …" line.
          if (event.type === 'run-start') io.stderr.write(`  ${said}\n`);
        },
        signal: interrupts.signal,
      }).catch((error: unknown) => {
        throw error instanceof ProductRefused ? new UsageError(`--product ${productPath}: ${error.reason}`) : error;
      });
      await writeFileAtomic(out, certification.bundle, { label: `--out ${outPath}`, ours: BUNDLE_MARKER });
    } finally {
      interrupts.dispose();
    }
    const { manifest, result } = certification;

    await progress.onRunEnd?.(result, []);
    if (result.summary.abort) io.stderr.write(`petstore-conformance: the target could not be tested: ${result.summary.abort.message}\n`);
    const lines = [''];
    if (manifest.certified)
      lines.push(
        `CERTIFIED: ${product.name} ${product.version} conforms to the Animal Store Service ${INTERFACE_VERSION} (every MUST rule passed; load profile ${CERTIFICATION.load} within its thresholds)`,
      );
    else lines.push(`NOT CERTIFIED: ${product.name} ${product.version}`, ...manifest.reasons.map((r) => `  - ${r}`));
    lines.push(
      `bundle: ${outPath} (${signKey ? 'manifest signed with Ed25519' : 'unsigned'}${replacing ? '; it replaced the bundle written there before' : ''}); check it with: petstore-conformance verify ${outPath}${signKey ? ' --public-key <public key PEM>' : ''}`,
    );
    io.stdout.write(`${lines.join('\n')}\n`);
    const { interrupted } = result.summary;
    if (interrupted)
      io.stderr.write(
        `petstore-conformance: ${interrupted}: the run was interrupted; the bundle ${outPath} keeps what ran, NOT CERTIFIED (interrupted)\n`,
      );
    return certifyExitCode(manifest.certified, interrupted);
  } catch (error) {
    const pcError = error instanceof PcError ? error : asPcError(error);
    io.stderr.write(`${secrets.redact(errorLine(pcError, 'certify --help'))}\n`);
    if (io.env.PETSTORE_CONFORMANCE_DEBUG && error instanceof Error) io.stderr.write(`${secrets.redact(error.stack ?? '')}\n`);
    return pcError.exitCode;
  }
}
