/**
 * `petstore-conformance certify`: the full suite with the fixed certification
 * settings, written as a bundle (.tar.gz) a third party can check offline
 * with `verify`:
 *
 * - manifest.json: tool and suite hash, settings, environment, times, target,
 *   the certificate decision, and the sha256 of every other file;
 * - manifest.sig (with `--sign-key`): Ed25519 signature of manifest.json's bytes, base64;
 * - product.json, report.json, junit.xml, report.html, transcript.jsonl.
 *
 * Exit codes: 0 certified, 1 not certified (the bundle is written all the
 * same and says why), 2 usage error (nothing run, nothing written).
 */
import { sign } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { arch, platform, release } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Options } from 'yargs';
import { asPcError, PcError, UsageError } from '../core/errors.js';
import { redactSecrets } from '../core/connection.js';
import { checkApiKey, MIN_KEY_LENGTH, redactorFor, redactorForAll } from '../core/redact.js';
import { renderTranscript, toTranscriptEntry, type TranscriptEntry } from '../core/transcript.js';
import { TOOL_VERSION } from '../core/version.js';
import { renderHtml } from '../reports/html.js';
import { reporters } from '../reports/index.js';
import { renderJson } from '../reports/json.js';
import { renderJunit } from '../reports/junit.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import { DEFAULTS, runConformance } from '../suites/engine.js';
import { writeBundle } from './bundle.js';
import { BUNDLE, CERTIFICATION, certificationDecision, type Manifest, MANIFEST_FORMAT, readEd25519Key, readProduct, sha256, suiteHash } from './certification.js';
import { buildConnection } from './connection.js';
import { connectionFlags, connectionOptions } from './connection-flags.js';
import type { Io } from './io.js';
import { apiKeyOf } from './env.js';

/** Flags of a plain run that would change what is certified; certify refuses each (see {@link certifyOptions}). */
const REFUSED = ['only', 'skip', 'seed', 'num-runs', 'load', 'strict', 'waiver', 'waivers', 'config', 'embedded'] as const;

/** The options of `certify`; the refused ones are declared (hidden) so that the refusal can say why. */
export const certifyOptions: Record<string, Options> = {
  'base-url': { type: 'string', describe: 'Base URL of the implementation (env PETSTORE_BASE_URL)' },
  'api-key': { type: 'string', describe: 'API key, sent as "Authorization: Bearer <key>"; never written into the bundle (env PETSTORE_API_KEY)' },
  product: { type: 'string', describe: 'product.json: the product\'s name, version and contact (spec/product.schema.json)' },
  out: { type: 'string', describe: 'Where the bundle (.tar.gz) is written' },
  'sign-key': { type: 'string', describe: 'PEM file of an Ed25519 private key: signs manifest.json into manifest.sig' },
  timeout: { type: 'number', describe: `Deadline of one request, headers and body, in ms [default: ${DEFAULTS.timeoutMs}]` },
  ca: { type: 'string', describe: 'PEM file of a private CA to trust for an https target' },
  insecure: { type: 'boolean', describe: 'Do not verify the TLS certificate (recorded in the report)' },
  ...connectionOptions,
  ...Object.fromEntries(REFUSED.map((flag) => [flag, { hidden: true } satisfies Options])),
};

/** Keys shorter than this are not searched for in the bundle's files: they may be ordinary words of the reports' own text. */
const MIN_CHECKED_KEY = Math.max(8, MIN_KEY_LENGTH);

/** The fixed settings, in words, for messages. */
export const CERTIFICATION_SETTINGS = `every rule, seed ${CERTIFICATION.seed}, ${CERTIFICATION.numRuns} runs per property, load profile ${CERTIFICATION.load}, not strict, no waivers, no config file`;

/** Runs `certify` with parsed arguments; returns the exit code. Never throws. */
export async function certifyCommand(args: Record<string, unknown>, io: Pick<Io, 'stdout' | 'stderr' | 'env' | 'cwd'>): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const secrets = redactorForAll([typeof args['api-key'] === 'string' ? args['api-key'] : undefined, io.env.PETSTORE_API_KEY]);
  try {
    const refused = REFUSED.filter((flag) => args[flag] !== undefined);
    if (refused.length > 0) throw new UsageError(`certify runs with fixed settings (${CERTIFICATION_SETTINGS}): ${refused.map((f) => `--${f}`).join(', ')} ${refused.length === 1 ? 'is' : 'are'} not accepted`);
    const text = (name: string): string | undefined => {
      const value = args[name];
      if (value === undefined) return undefined;
      if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} takes one value`);
      return value;
    };
    const baseUrl = text('base-url') ?? (io.env.PETSTORE_BASE_URL || undefined);
    if (!baseUrl) throw new UsageError('--base-url is required (or set PETSTORE_BASE_URL)');
    const apiKey = apiKeyOf(text('api-key'), io.env);
    if (!apiKey) throw new UsageError('--api-key is required (or set PETSTORE_API_KEY)');
    checkApiKey(apiKey);
    const productPath = text('product');
    if (!productPath) throw new UsageError('--product is required: a product.json with the name, version and contact of what is certified');
    const outPath = text('out');
    if (!outPath) throw new UsageError('--out is required: where the bundle (.tar.gz) goes');

    // Everything is checked before the run, so a mistake costs nothing.
    const product = await readProduct(resolve(cwd, productPath), productPath);
    const connection = await buildConnection(connectionFlags(args), io.env, cwd);
    const redactor = redactSecrets(redactorFor(apiKey), connection);
    // Belt and braces against a key (or a secret header) that got where it must not be; a short key would be found in any text.
    const secretHeaders = (connection.secretHeaders ?? []).map((name) => connection.headers?.[name] ?? '').filter((s) => s.length >= MIN_CHECKED_KEY);
    const holdsKey = (content: string) => (apiKey.length >= MIN_CHECKED_KEY && redactor.leaks(content)) || secretHeaders.some((secret) => content.includes(secret));
    if (holdsKey(JSON.stringify(product))) throw new UsageError(`--product ${productPath}: it holds the API key; a product description must not`);
    const out = resolve(cwd, outPath);
    const outDir = await stat(dirname(out)).catch(() => undefined);
    if (!outDir?.isDirectory()) throw new UsageError(`--out ${outPath}: the directory ${dirname(outPath)} does not exist`);
    if ((await stat(out).catch(() => undefined))?.isDirectory()) throw new UsageError(`--out ${outPath}: is a directory; give the bundle's file name`);
    const signPath = text('sign-key');
    const signKey = signPath ? await readEd25519Key(resolve(cwd, signPath), signPath, '--sign-key') : undefined;

    const progress = reporters.console({ reportDir: '', out: io.stdout, progress: io.stderr, color: false, interactive: false, env: io.env });
    const transcript: TranscriptEntry[] = [];
    const result = await runConformance({
      baseUrl,
      apiKey,
      seed: CERTIFICATION.seed,
      numRuns: CERTIFICATION.numRuns,
      concurrency: CERTIFICATION.concurrency,
      load: CERTIFICATION.load,
      strict: false,
      ...(args.timeout === undefined ? {} : { timeoutMs: args.timeout as number }),
      connection,
      // Redacted as it arrives: no exchange is kept with the key in it.
      onExchange: (exchange) => transcript.push(toTranscriptEntry(exchange, redactor)),
      onEvent: (event) => {
        if (event.type !== 'run-end') progress.onEvent?.(event);
      },
    });

    const decision = certificationDecision(result);
    const files = new Map<string, string>([
      [BUNDLE.product, `${JSON.stringify(product, null, 2)}\n`],
      [BUNDLE.report, renderJson(result)],
      [BUNDLE.junit, renderJunit(result)],
      [BUNDLE.html, renderHtml(result)],
      [BUNDLE.transcript, renderTranscript(transcript)],
    ]);
    for (const [name, content] of files) if (holdsKey(content)) throw new PcError('PC_ERR_INTERNAL', `internal error: ${name} would hold the API key; no bundle written`);
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      tool: { name: 'petstore-conformance', version: TOOL_VERSION },
      suiteHash: suiteHash(),
      interfaceVersion: INTERFACE_VERSION,
      seed: result.seed,
      numRuns: result.numRuns,
      load: result.options.load,
      namePrefix: result.namePrefix,
      environment: { node: process.version, platform: platform(), release: release(), arch: arch() },
      startedAt: result.startedAt,
      finishedAt: result.finishedAt,
      target: result.target,
      certified: decision.certified,
      reasons: decision.reasons,
      files: Object.fromEntries([...files].map(([name, content]) => [name, sha256(content)])),
    };
    const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
    const bundle = new Map<string, string>([[BUNDLE.manifest, manifestText], ...files]);
    if (signKey) bundle.set(BUNDLE.signature, `${sign(null, Buffer.from(manifestText), signKey).toString('base64')}\n`);
    await writeBundle(out, bundle, new Date(result.finishedAt)).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(`--out ${outPath}: cannot write it (${error.code ?? error.message})`);
    });

    await progress.onRunEnd?.(result, []);
    if (result.summary.abort) io.stderr.write(`petstore-conformance: the target could not be tested: ${result.summary.abort.message}\n`);
    const lines = [''];
    if (decision.certified) lines.push(`CERTIFIED: ${product.name} ${product.version} conforms to the Animal Store Service ${INTERFACE_VERSION} (every MUST rule passed; load profile ${CERTIFICATION.load} within its thresholds)`);
    else lines.push(`NOT CERTIFIED: ${product.name} ${product.version}`, ...decision.reasons.map((r) => `  - ${r}`));
    lines.push(`bundle: ${outPath} (${signKey ? 'manifest signed with Ed25519' : 'unsigned'}); check it with: petstore-conformance verify ${outPath}${signKey ? ' --public-key <public key PEM>' : ''}`);
    io.stdout.write(`${lines.join('\n')}\n`);
    return decision.certified ? 0 : 1;
  } catch (error) {
    const pcError = error instanceof PcError ? error : asPcError(error);
    io.stderr.write(`${secrets.redact(`petstore-conformance: error: ${pcError.message.split('\n')[0]}${pcError.code === 'PC_ERR_USAGE' ? ' (see certify --help)' : ''}`)}\n`);
    if (io.env.PETSTORE_CONFORMANCE_DEBUG && error instanceof Error) io.stderr.write(`${secrets.redact(error.stack ?? '')}\n`);
    return pcError.exitCode;
  }
}
