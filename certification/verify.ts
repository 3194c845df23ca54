/**
 * `verifyBundle`: checks a certification bundle offline (it opens no
 * connection at all) and says, as data, everything that does not match:
 *
 * - each file against its hash in manifest.json (missing, extra, changed);
 * - the Ed25519 signature of manifest.json, when a public key is given;
 * - the tool version and the suite's content hash against this installation;
 * - when asked, the product and base URL the bundle was certified for against
 *   the ones given (`product`, `baseUrl`): a bundle presented for another
 *   product or origin does not verify;
 * - every rule's outcome, recomputed by running the suite again against the
 *   transcript (same seed, runs, names and fingerprints; the key a placeholder) with
 *   the current validators, against report.json's;
 * - each load threshold's outcome against the one report.json's own load
 *   figures give, judged as the load phase judges them;
 * - the certificate decision against what report.json supports.
 *
 * Load results cannot be replayed (checks `load.*`, figures): the hashes, and
 * the signature when checked, are all that vouch for them.
 *
 * The checks that need no replay are certification/verify-integrity.ts's,
 * the recomputation and the decision certification/verify-recompute.ts's.
 */
import type { KeyObject } from 'node:crypto';
import { parseBaseUrl, targetOf } from '../core/http.js';
import type { Product } from '../spec/product-schema.js';
import { type BundleContents, unpackBundle } from './bundle.js';
import { BUNDLE, readManifest } from './manifest.js';
import { checkProduct } from './product.js';
import { checkBinding, checkHashes, checkReportAgainstManifest, checkSignature, checkSuite, parseReport } from './verify-integrity.js';
import { checkDecision, recompute } from './verify-recompute.js';
import { type Expected, Steps, type Verification } from './verify-steps.js';

export type { Verification } from './verify-steps.js';

/** Options of {@link verifyBundle}. */
export interface VerifyOptions {
  /** The Ed25519 public key manifest.json must be signed with; without it the signature is not checked (a note says so). */
  publicKey?: KeyObject;
  /** The product the bundle must have been certified for (its name, version and contact are compared). Default: not compared. */
  product?: Product;
  /**
   * The base URL the bundle must have been certified at: scheme, host, port
   * and path are compared once both are normalised (letter case of scheme
   * and host, a default port, trailing slashes). Default: not compared.
   */
  baseUrl?: string;
}

/**
 * Checks a bundle (the bytes of its .tar.gz) and returns every problem, pass
 * and note. Whatever the bytes hold is a problem of the bundle (bytes that
 * are no .tar.gz at all, a single `NOT_A_BUNDLE`), never an exception; only
 * `options.baseUrl` that is no base URL throws (`InvalidBaseUrlError`, a
 * `UsageError`), before the bundle is read.
 */
export async function verifyBundle(bytes: Uint8Array, options: VerifyOptions = {}): Promise<Verification> {
  const expected: Expected = {
    publicKey: options.publicKey,
    product: options.product,
    target: options.baseUrl === undefined ? undefined : targetOf(parseBaseUrl(options.baseUrl)),
  };
  const found = new Steps();
  try {
    const contents = await unpackBundle(bytes);
    for (const problem of contents.problems) found.problem(problem);
    if (!contents.problems.some((p) => p.code === 'NOT_A_BUNDLE')) await check(contents, expected, found);
  } catch (error) {
    // Whatever a bundle holds, it is a problem of the bundle, said as one: never an internal error.
    found.problem({ code: 'CHECK_ABORTED', detail: (error instanceof Error ? error.message : String(error)).split('\n')[0]! });
  }
  const { steps, problems, manifest, product, report } = found;
  return { steps, problems, manifest, product, report };
}

async function check({ files, hashes }: BundleContents, expected: Expected, found: Steps): Promise<void> {
  const manifestBytes = files.get(BUNDLE.manifest);
  if (!manifestBytes) return found.problem({ code: 'MANIFEST_MISSING' });
  // The signature covers the manifest's bytes: it is checked before they are read.
  checkSignature(files, manifestBytes, expected.publicKey, found);
  const read = readManifest(manifestBytes);
  if ('defect' in read) return found.problem({ code: 'MANIFEST_INVALID', defect: read.defect });
  const { manifest } = read;
  found.manifest = manifest;
  checkHashes(files, hashes, manifest, found);
  checkSuite(manifest, found);

  const product = files.get(BUNDLE.product);
  if (product) {
    const checked = checkProduct(product.toString('utf8'));
    if ('error' in checked) found.problem({ code: 'PRODUCT_INVALID', detail: checked.error });
    else found.product = checked.product;
  }
  checkBinding(manifest, found.product, expected, found);
  const report = parseReport(files.get(BUNDLE.report), found);
  if (!report) return found.problem({ code: 'REPORT_UNREADABLE' });
  found.report = report;
  checkReportAgainstManifest(report, manifest, found);
  await recompute(report, manifest, files.get(BUNDLE.transcript), found);
  checkDecision(report, manifest, found);
}
