/**
 * JSON Schema (2020-12) of manifest.json, the file of a certification bundle
 * that says what was run, by what, where, with which outcome, and the hash of
 * every other file. `npm run gen` writes it to spec/manifest.schema.json.
 */

/**
 * `format` of a manifest this version writes and reads. 2: the transcript is
 * transcript.har, an HTTP Archive (1: transcript.jsonl, one JSON line an exchange).
 */
export const MANIFEST_FORMAT = 'petstore-conformance-certification/2';

/** manifest.json: what was run, by what, where, with which outcome, and the hash of every other file. */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  tool: { name: 'petstore-conformance'; version: string };
  /** `sha256:<hex>` over the suite's own code and spec (certification/manifest.ts `suiteHash`). */
  suiteHash: string;
  interfaceVersion: string;
  seed: number;
  numRuns: number;
  load: string;
  /** Name prefix of the animals the run created; absent when their names were natural (certifications since seeds are drawn at random), which have none. */
  namePrefix?: string;
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

const text = { type: 'string' };

export const manifestSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://petstore-conformance.invalid/spec/manifest.schema.json',
  title: 'petstore-conformance certification manifest',
  type: 'object',
  required: ['format', 'tool', 'suiteHash', 'interfaceVersion', 'seed', 'numRuns', 'load', 'environment', 'startedAt', 'finishedAt', 'target', 'certified', 'reasons', 'files'],
  additionalProperties: false,
  properties: {
    format: { const: MANIFEST_FORMAT },
    tool: {
      type: 'object',
      required: ['name', 'version'],
      additionalProperties: false,
      properties: { name: { const: 'petstore-conformance' }, version: text },
    },
    suiteHash: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$', description: 'sha256 over the lines `<sha256 of the file>  <path>` of dist/ and spec/*.json, sorted by path' },
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
    target: { ...text, description: 'Base URL without credentials' },
    certified: { type: 'boolean' },
    reasons: { type: 'array', items: text, description: 'Why no certificate, when none' },
    files: { type: 'object', additionalProperties: { type: 'string', pattern: '^[0-9a-f]{64}$' }, description: 'sha256 (hex) of each other file of the bundle, by name' },
  },
} as const;
