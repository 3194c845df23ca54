
/**
 * What `certify` and `verify` share: the fixed certification settings, the
 * manifest, the suite's own content hash, the certificate decision, the
 * product description's validation and the Ed25519 keys.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { UsageError } from '../core/errors.js';
import { PACKAGE_ROOT } from '../core/version.js';
import { MAX_PRODUCT_BYTES, type Product, productSchema } from '../spec/product-schema.js';
import { newAjv } from '../spec/validate.js';
import { FILE_LIMITS, readBoundedFile } from './files.js';
import { sha256 } from '../core/hash.js';

export { CERTIFICATION, certificationDecision } from '../suites/policy.js';

/** The names of the files of a bundle. */
export const BUNDLE = {
  manifest: 'manifest.json',
  signature: 'manifest.sig',
  product: 'product.json',
  report: 'report.json',
  junit: 'junit.xml',
  html: 'report.html',
  transcript: 'transcript.jsonl',
} as const;

/** Files whose hashes the manifest carries (every file but the manifest and its signature). */
export const HASHED_FILES = [BUNDLE.product, BUNDLE.report, BUNDLE.junit, BUNDLE.html, BUNDLE.transcript] as const;

/** `format` of a manifest this version writes and reads. */
export const MANIFEST_FORMAT = 'petstore-conformance-certification/1';

/** manifest.json: what was run, by what, where, with which outcome, and the hash of every other file. */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  tool: { name: 'petstore-conformance'; version: string };
  /** `sha256:<hex>` over the suite's own code and spec ({@link suiteHash}). */
  suiteHash: string;
  interfaceVersion: string;
  seed: number;
  numRuns: number;
  load: string;
  /** Name prefix of the animals the run created. */
  namePrefix: string;
  /** Where the run happened. */
  environment: { node: string; platform: string; release: string; arch: string };
  startedAt: string;
  finishedAt: string;
  /** Scheme, host, port and path of the target; never credentials. */
  target: string;
  /** The certificate decision, and why not when not. */
  certified: boolean;
  reasons: string[];
  /** sha256 (hex) of each other file of the bundle, by name. */
  files: Record<string, string>;
}

/** sha256 of bytes, hex. */
export { sha256 } from '../core/hash.js';

/**
 * The content hash of the suite itself: sha256 over the lines
 * `<sha256 of the file>  <path>\n` of every file under the installed
 * package's dist/ and of spec/*.json, sorted by path (the format of
 * `sha256sum`, so it can be recomputed with the usual tools).
 */
export function suiteHash(root: string = PACKAGE_ROOT): string {
  const walk = (dir: string, prefix: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name), `${prefix}${d.name}/`) : d.isFile() ? [`${prefix}${d.name}`] : []));
  const files = [...walk('dist', 'dist/'), ...readdirSync(join(root, 'spec')).filter((f) => f.endsWith('.json')).map((f) => `spec/${f}`)].sort();
  return `sha256:${sha256(files.map((f) => `${sha256(readFileSync(join(root, f)))}  ${f}\n`).join(''))}`;
}

let productValidator: ValidateFunction | undefined;

/**
 * Parses and validates a product description against spec/product-schema.ts.
 * Returns the product, or the reason it is refused, in one line naming the key.
 */
export function checkProduct(text: string): { product: Product } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\ufeff/, ''));
  } catch (error) {
    return { error: `not JSON (${(error as Error).message.split('\n')[0]})` };
  }
  productValidator ??= newAjv().compile(productSchema);
  if (productValidator(value)) return { product: value as Product };
  return { error: describeProductError(productValidator.errors?.[0]) };
}

function describeProductError(error: ErrorObject | undefined): string {
  const properties: Record<string, { description: string }> = productSchema.properties;
  const known = Object.keys(properties).join(', ');
  if (!error) return 'invalid';
  if (error.keyword === 'required') {
    const key = String(error.params.missingProperty);
    return `key "${key}" is missing: it must be ${properties[key]?.description ?? 'given'}`;
  }
  if (error.keyword === 'additionalProperties') return `key ${JSON.stringify(String(error.params.additionalProperty))} is not known (known keys: ${known})`;
  const key = error.instancePath.split('/')[1];
  if (key === undefined || key === '') return `must be a JSON object with the keys ${productSchema.required.join(', ')} (and optionally description)`;
  const name = key.replace(/~1/g, '/').replace(/~0/g, '~');
  return `key "${name}" must be ${properties[name]?.description ?? 'valid'}`;
}

/** Reads and validates `--product`; a `UsageError` naming the file and the key when it is refused. */
export async function readProduct(path: string, shown: string): Promise<Product> {
  const refuse = (why: string): never => {
    throw new UsageError(`--product ${shown}: ${why}`);
  };
  const bytes = await readBoundedFile(path, MAX_PRODUCT_BYTES, `--product ${shown}`);
  const checked = checkProduct(bytes.toString('utf8'));
  if ('error' in checked) return refuse(checked.error);
  return checked.product;
}

/** An Ed25519 key from a PEM file (`shown`: its name as given); `UsageError` naming the flag when it is not one. */
export async function readEd25519Key(path: string, shown: string, flag: '--sign-key' | '--public-key'): Promise<KeyObject> {
  const pem = (await readBoundedFile(path, FILE_LIMITS.key, `${flag} ${shown}`)).toString('utf8');
  let key: KeyObject;
  try {
    key = flag === '--sign-key' ? createPrivateKey(pem) : createPublicKey(pem);
  } catch {
    throw new UsageError(`${flag}: ${shown} is not a PEM ${flag === '--sign-key' ? 'private' : 'public'} key`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new UsageError(`${flag}: ${shown} is a key of type ${key.asymmetricKeyType ?? 'unknown'}; an Ed25519 key is needed`);
  return key;
}
