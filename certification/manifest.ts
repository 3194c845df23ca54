/**
 * What `certify` writes and `verify` reads besides the reports: the names of
 * a bundle's files, the suite's own content hash, and manifest.json read
 * against its schema (spec/manifest-schema.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../core/hash.js';
import { PACKAGE_ROOT } from '../core/version.js';
import { type AnyManifest, MANIFEST_FORMAT, MANIFEST_FORMAT_2, manifestSchema, manifestSchemaFormat2 } from '../spec/manifest-schema.js';
import { type SchemaViolation, validatorFor, violationsOf } from '../spec/validate.js';

/** The names of the files of a bundle. */
export const BUNDLE = {
  manifest: 'manifest.json',
  signature: 'manifest.sig',
  product: 'product.json',
  report: 'report.json',
  junit: 'junit.xml',
  html: 'report.html',
  transcript: 'transcript.har',
} as const;

/** Files whose hashes the manifest carries (every file but the manifest and its signature). */
export const HASHED_FILES = [BUNDLE.product, BUNDLE.report, BUNDLE.junit, BUNDLE.html, BUNDLE.transcript] as const;

/**
 * The content hash of the suite itself: sha256 over the lines
 * `<sha256 of the file>  <path>\n` of every file under the installed
 * package's dist/ and of spec/*.json, sorted by path (the format of
 * `sha256sum`, so it can be recomputed with the usual tools).
 */
export function suiteHash(root: string = PACKAGE_ROOT): string {
  const walk = (dir: string, prefix: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? walk(join(dir, d.name), `${prefix}${d.name}/`) : d.isFile() ? [`${prefix}${d.name}`] : [],
    );
  const files = [
    ...walk('dist', 'dist/'),
    ...readdirSync(join(root, 'spec'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => `spec/${f}`),
  ].sort();
  return `sha256:${sha256(files.map((f) => `${sha256(readFileSync(join(root, f)))}  ${f}\n`).join(''))}`;
}

/** Why manifest.json cannot be read: not JSON, another format (a version this one does not read), or not of its schema. */
export type ManifestDefect = { kind: 'not-json' } | { kind: 'format'; format: unknown } | { kind: 'schema'; violations: SchemaViolation[] };

/**
 * manifest.json's bytes, parsed and validated against spec/manifest-schema.ts:
 * the current format, or format 2 (bundles certified before the manifest named
 * the product and fingerprints), each against its own schema.
 */
export function readManifest(bytes: Buffer): { manifest: AnyManifest } | { defect: ManifestDefect } {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { defect: { kind: 'not-json' } };
  }
  // The format first: a manifest of another version is said to be one, not listed as every difference of its schema.
  const format = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { format?: unknown }).format : undefined;
  if (format !== undefined && format !== MANIFEST_FORMAT && format !== MANIFEST_FORMAT_2) return { defect: { kind: 'format', format } };
  const validate = validatorFor<AnyManifest>(format === MANIFEST_FORMAT_2 ? manifestSchemaFormat2 : manifestSchema);
  return validate(value) ? { manifest: value } : { defect: { kind: 'schema', violations: violationsOf(validate.errors) } };
}
