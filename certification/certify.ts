/**
 * `certify`: the full suite with the fixed certification settings
 * (result/policy.ts `CERTIFICATION`) and a seed drawn at random, returned as a bundle (.tar.gz bytes) a
 * third party can check offline with `verifyBundle`:
 *
 * - manifest.json: what the certificate binds (the product, the base URL, the
 *   tool and suite hash, the seed, the client fingerprints, the times), the
 *   other settings, the environment, the certificate decision, and the sha256
 *   of every other file;
 * - manifest.sig (with `signKey`): Ed25519 signature of manifest.json's bytes, base64;
 * - product.json, report.json, junit.xml, report.html, transcript.har (every exchange, an HTTP Archive).
 */
import { type KeyObject, randomInt, sign } from 'node:crypto';
import { arch, platform, release } from 'node:os';
import type { ConnectOptions } from '../core/connection.js';
import { PcError, UsageError } from '../core/errors.js';
import { type FingerprintId } from '../core/fingerprints.js';
import { sha256 } from '../core/hash.js';
import { checkApiKey, MIN_KEY_LENGTH } from '../core/redact.js';
import { runRedactor, runSecrets, withCredentialHeaders } from '../suites/credentials.js';
import { renderTranscript, toTranscriptEntry, type TranscriptEntry } from '../core/transcript.js';
import { TOOL_VERSION } from '../core/version.js';
import { renderHtml } from '../reports/html.js';
import { renderJson } from '../reports/json.js';
import { renderJunit } from '../reports/junit.js';
import { type Manifest, MANIFEST_FORMAT } from '../spec/manifest-schema.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import type { Product } from '../spec/product-schema.js';
import { runConformance } from '../suites/engine.js';
import type { ConformanceResult, RunEvent } from '../result/model.js';
import { CERTIFICATION, certificationDecision } from '../result/policy.js';
import { packBundle } from './bundle.js';
import { BUNDLE, suiteHash } from './manifest.js';
import { checkProduct } from './product.js';

/** Options of {@link certify}. The run's settings are not among them: they are fixed. */
export interface CertifyOptions {
  /** Base URL of the implementation. */
  baseUrl: string;
  /** The API key; never written into the bundle (every file is searched for it before the bundle is made). */
  apiKey: string;
  /** What is certified (spec/product-schema.ts); refused with {@link ProductRefused} when invalid or when it holds any of the run's secrets. */
  product: Product;
  /** An Ed25519 private key: signs manifest.json into manifest.sig. Default: unsigned. */
  signKey?: KeyObject;
  /** Deadline of one request, headers and body, in ms. Default: the engine's. */
  timeoutMs?: number;
  /** How to reach the target (TLS, client certificate, proxy, extra headers). */
  connection?: ConnectOptions;
  /** The run's events as they happen (progress); `run-end` included. */
  onEvent?: (event: RunEvent) => void;
  /**
   * Stops the run when aborted (its `reason`, `SIGINT`, `SIGTERM` or `SIGHUP`, is
   * recorded): the bundle is still made, of what ran, and is not certified
   * ("interrupted by …").
   */
  signal?: AbortSignal;
  /**
   * The run's seed. Default, and always from the CLI: drawn from a
   * cryptographic source for this certification. For tests that need a
   * repeatable run: a caller who picks it could learn the requests before the
   * run, which is why the command line never takes it; the bundle records the
   * seed either way.
   */
  seed?: number;
}

/** A certification: the bundle and what it says. */
export interface Certification {
  /** The .tar.gz, to be written as it is. */
  bundle: Buffer;
  /** manifest.json as written into the bundle (`certified`, `reasons`: the decision). */
  manifest: Manifest;
  /** The run (report.json of the bundle). */
  result: ConformanceResult;
}

/** A product description certify will not put into a bundle; `reason` says why, never quoting a value of it. */
export class ProductRefused extends UsageError {
  constructor(readonly reason: string) {
    super(`product: ${reason}`);
    this.name = 'ProductRefused';
  }
}

/** Secrets shorter than this are not searched for in the bundle's files: they may be ordinary words of the reports' own text. */
const MIN_CHECKED_SECRET = Math.max(8, MIN_KEY_LENGTH);

/**
 * Runs the suite against `baseUrl` with the certification settings and makes
 * the bundle; nothing is written anywhere. A run that is not certified still
 * gives a bundle (its manifest says why). Throws a `PcError` when the run
 * cannot start (a `UsageError` for bad options), and `PC_ERR_INTERNAL` when a
 * file would hold one of its secrets (the key, a secret header…).
 */
export async function certify(options: CertifyOptions): Promise<Certification> {
  const { apiKey, signKey } = options;
  checkApiKey(apiKey);
  const checked = checkProduct(JSON.stringify(options.product));
  if ('error' in checked) throw new ProductRefused(checked.error);
  const { product } = checked;
  if (signKey && (signKey.type !== 'private' || signKey.asymmetricKeyType !== 'ed25519'))
    throw new UsageError('the signing key must be an Ed25519 private key');
  // An extra header that carries a credential by its name is a secret header too, in the bundle as in the run.
  const connection = withCredentialHeaders(options.connection, options.baseUrl);
  const secrets = runSecrets(apiKey, connection);
  const redactor = runRedactor(secrets);
  // Belt and braces against a secret that got where it must not be, in any form the redactor knows, registered alike; a short one would be found in any text.
  const watch = runRedactor(secrets.filter((secret) => secret.forms[0]!.value.length >= MIN_CHECKED_SECRET));
  const holdsSecret = (content: string) => watch.leaks(content);
  // Which secret is not said: naming it would tell a reader of the line which value of the product description is one.
  if (holdsSecret(JSON.stringify(product)))
    throw new ProductRefused(
      "it holds one of the secrets the run sends (the API key, a secret header's value, a value taken from the environment); a product description must hold none",
    );

  const transcript: TranscriptEntry[] = [];
  // Every client shape (CERTIFICATION.fingerprints): the manifest names the ones the run was sent under.
  const fingerprints: readonly FingerprintId[] = CERTIFICATION.fingerprints;
  const result = await runConformance({
    baseUrl: options.baseUrl,
    apiKey,
    // Drawn for this certification, recorded in the bundle: the run can be replayed afterwards, not foreseen before.
    seed: options.seed ?? randomInt(-(2 ** 31), 2 ** 31),
    names: CERTIFICATION.names,
    numRuns: CERTIFICATION.numRuns,
    concurrency: CERTIFICATION.concurrency,
    fingerprints,
    jitterMs: CERTIFICATION.jitterMs,
    load: CERTIFICATION.load,
    strict: false,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(connection === undefined ? {} : { connection }),
    // Redacted as it arrives: no exchange is kept with the key in it.
    onExchange: (exchange) => transcript.push(toTranscriptEntry(exchange, redactor)),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });

  const decision = certificationDecision(result);
  const files = new Map<string, string>([
    [BUNDLE.product, `${JSON.stringify(product, null, 2)}\n`],
    [BUNDLE.report, renderJson(result)],
    [BUNDLE.junit, renderJunit(result)],
    [BUNDLE.html, renderHtml(result)],
    [BUNDLE.transcript, renderTranscript(transcript)],
  ]);
  for (const [name, content] of files)
    if (holdsSecret(content))
      throw new PcError('PC_ERR_INTERNAL', `internal error: ${name} would hold one of the run's secrets; no bundle written`);
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    product: { name: product.name, version: product.version, contact: product.contact },
    fingerprints: [...fingerprints],
    tool: { name: 'petstore-conformance', version: TOOL_VERSION },
    suiteHash: suiteHash(),
    interfaceVersion: INTERFACE_VERSION,
    seed: result.seed,
    numRuns: result.numRuns,
    load: result.options.load,
    ...(result.namePrefix === undefined ? {} : { namePrefix: result.namePrefix }),
    environment: { node: process.version, platform: platform(), release: release(), arch: arch() },
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    target: result.target,
    certified: decision.certified,
    reasons: decision.reasons,
    files: Object.fromEntries([...files].map(([name, content]) => [name, sha256(content)])),
  };
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
  const contents = new Map<string, string>([[BUNDLE.manifest, manifestText], ...files]);
  if (signKey) contents.set(BUNDLE.signature, `${sign(null, Buffer.from(manifestText), signKey).toString('base64')}\n`);
  return { bundle: await packBundle(contents, new Date(result.finishedAt)), manifest, result };
}
