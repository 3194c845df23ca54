/**
 * JSON Schema (2020-12) of manifest.json, the file of a certification bundle
 * that says what was run, by what, where, with which outcome, and the hash of
 * every other file. `npm run gen` writes it to spec/manifest.schema.json.
 */

import { FINGERPRINT_IDS, type FingerprintId } from '../core/fingerprints.js';

/**
 * `format` of a manifest this version writes. 3: the manifest names the
 * product and the client fingerprints the run was sent under (2: neither;
 * 1: transcript.jsonl, one JSON line an exchange, instead of transcript.har).
 */
export const MANIFEST_FORMAT = 'petstore-conformance-certification/3';

/** `format` of the manifests certify wrote before {@link MANIFEST_FORMAT}; still read, so those bundles stay verifiable. */
export const MANIFEST_FORMAT_2 = 'petstore-conformance-certification/2';

/** manifest.json: what was run, on which product, by what, where, when, with which outcome, and the hash of every other file. */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  /** The product certified: product.json's name, version and contact (the whole file is bound by its hash in `files`). */
  product: { name: string; version: string; contact: string };
  /** The client shapes the run's requests were sent under (core/fingerprints.ts); empty: the tool's own. */
  fingerprints: FingerprintId[];
  tool: { name: 'petstore-conformance'; version: string };
  /** `sha256:<hex>` over the suite's own code and spec (certification/manifest.ts `suiteHash`). */
  suiteHash: string;
  interfaceVersion: string;
  seed: number;
  numRuns: number;
  load: string;
  /** Name prefix of the animals the run created; absent when their names were natural (certifications since seeds are drawn at random), which have none. */
  namePrefix?: string;
  /** Where the suite ran. */
  environment: { node: string; platform: string; release: string; arch: string };
  startedAt: string;
  finishedAt: string;
  /** The base URL certified: scheme, host, port and path (core/http.ts `targetOf`), no trailing slash; never credentials. */
  target: string;
  /** The certificate decision, and why not when not. */
  certified: boolean;
  reasons: string[];
  /** sha256 (hex) of each other file of the bundle, by name. */
  files: Record<string, string>;
}

/** A manifest of format 2: as {@link Manifest}, without the product and fingerprints. */
export type ManifestFormat2 = Omit<Manifest, 'format' | 'product' | 'fingerprints'> & { format: typeof MANIFEST_FORMAT_2 };

/** A manifest `verify` reads: the current format or an earlier one still supported. */
export type AnyManifest = Manifest | ManifestFormat2;

const text = { type: 'string' };

/** The schema of a manifest of the current format ({@link MANIFEST_FORMAT}). */
export const manifestSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://petstore-conformance.invalid/spec/manifest.schema.json',
  title: 'petstore-conformance certification manifest',
  type: 'object',
  required: [
    'format',
    'product',
    'fingerprints',
    'tool',
    'suiteHash',
    'interfaceVersion',
    'seed',
    'numRuns',
    'load',
    'environment',
    'startedAt',
    'finishedAt',
    'target',
    'certified',
    'reasons',
    'files',
  ],
  additionalProperties: false,
  properties: {
    format: { const: MANIFEST_FORMAT },
    product: {
      type: 'object',
      required: ['name', 'version', 'contact'],
      additionalProperties: false,
      properties: { name: text, version: text, contact: text },
      description: "The product certified: product.json's name, version and contact",
    },
    fingerprints: {
      type: 'array',
      items: { enum: FINGERPRINT_IDS },
      uniqueItems: true,
      description: "The client shapes the run was sent under; empty: the tool's own",
    },
    tool: {
      type: 'object',
      required: ['name', 'version'],
      additionalProperties: false,
      properties: { name: { const: 'petstore-conformance' }, version: text },
    },
    suiteHash: {
      type: 'string',
      pattern: '^sha256:[0-9a-f]{64}$',
      description: 'sha256 over the lines `<sha256 of the file>  <path>` of dist/ and spec/*.json, sorted by path',
    },
    interfaceVersion: text,
    seed: { type: 'integer' },
    numRuns: { type: 'integer', minimum: 1 },
    load: { ...text, description: 'The load profile run' },
    namePrefix: { ...text, description: 'Name prefix of the animals the run created; absent when their names were natural' },
    environment: {
      type: 'object',
      required: ['node', 'platform', 'release', 'arch'],
      additionalProperties: false,
      properties: { node: text, platform: text, release: text, arch: text },
    },
    startedAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: 'string', format: 'date-time' },
    target: { ...text, description: 'The base URL certified: scheme, host, port and path, no trailing slash, no credentials' },
    certified: { type: 'boolean' },
    reasons: { type: 'array', items: text, description: 'Why no certificate, when none' },
    files: {
      type: 'object',
      additionalProperties: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      description: 'sha256 (hex) of each other file of the bundle, by name',
    },
  },
} as const;

/** The schema of a format-2 manifest: the current one without `product` and `fingerprints`. */
export const manifestSchemaFormat2 = {
  ...manifestSchema,
  $id: 'https://petstore-conformance.invalid/spec/manifest-2.schema.json',
  required: manifestSchema.required.filter((key) => key !== 'product' && key !== 'fingerprints'),
  properties: Object.fromEntries([
    ...Object.entries(manifestSchema.properties).filter(([key]) => key !== 'product' && key !== 'fingerprints'),
    ['format', { const: MANIFEST_FORMAT_2 }],
  ]),
};
