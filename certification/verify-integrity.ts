/**
 * The checks of a bundle that need no replay (certification/verify.ts): each
 * file against its hash in manifest.json, the Ed25519 signature, the tool
 * version and the suite's hash against this installation, the product and
 * base URL it binds, and report.json read and held against the manifest.
 */
import { verify as verifySignature, type KeyObject } from 'node:crypto';
import { sha256 } from '../core/hash.js';
import { TOOL_VERSION } from '../core/version.js';
import type { ConformanceResult } from '../result/model.js';
import { type AnyManifest, MANIFEST_FORMAT } from '../spec/manifest-schema.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import type { Product } from '../spec/product-schema.js';
import { reportSchema } from '../spec/report-schema.js';
import { validatorFor, violationsOf } from '../spec/validate.js';
import { baseUrlDifferences, productDifferences } from './binding.js';
import { BUNDLE, HASHED_FILES, suiteHash } from './manifest.js';
import type { Expected, Steps } from './verify-steps.js';

/**
 * The product and base URL the bundle binds: the manifest's product against
 * product.json's, then both against what the reader expects, when given. A
 * manifest of format 2 names no product: product.json, bound by its hash, does.
 */
export function checkBinding(manifest: AnyManifest, productFile: Product | undefined, expected: Expected, found: Steps): void {
  const named = manifest.format === MANIFEST_FORMAT ? manifest.product : productFile;
  if (manifest.format === MANIFEST_FORMAT && productFile) {
    const [first] = productDifferences(manifest.product, productFile);
    if (first) found.problem({ code: 'PRODUCT_MANIFEST_DISAGREE', field: first.field, product: first.given, manifest: first.bundle });
  }
  if (expected.product) {
    const differences = named ? productDifferences(named, expected.product) : [];
    if (!named) found.problem({ code: 'PRODUCT_NOT_NAMED' });
    else if (differences.length > 0)
      found.problem({ code: 'PRODUCT_DIFFERS', bundle: { name: named.name, version: named.version, contact: named.contact }, differences });
    else found.say({ code: 'PRODUCT_MATCHES', product: { name: named.name, version: named.version, contact: named.contact } });
  }
  if (expected.target !== undefined) {
    const differences = baseUrlDifferences(manifest.target, expected.target);
    if (differences.length > 0) found.problem({ code: 'BASE_URL_DIFFERS', bundle: manifest.target, given: expected.target, differences });
    else found.say({ code: 'BASE_URL_MATCHES', target: manifest.target });
  }
}

/** Each file against its hash in the manifest: missing, changed, not listed, or extra; a pass when all match. */
export function checkHashes(files: Map<string, Buffer>, hashes: Map<string, string>, manifest: AnyManifest, found: Steps): void {
  let matching = 0;
  for (const [file, expected] of Object.entries(manifest.files)) {
    // Every file was hashed as it was read, the ones too large to keep included.
    const actual = hashes.get(file) ?? (files.has(file) ? sha256(files.get(file)!) : undefined);
    if (actual === undefined) found.problem({ code: 'FILE_MISSING', file });
    else if (actual !== expected) found.problem({ code: 'HASH_MISMATCH', file, expected, actual });
    else matching++;
  }
  for (const file of HASHED_FILES) if (!Object.hasOwn(manifest.files, file)) found.problem({ code: 'HASH_NOT_LISTED', file });
  for (const file of new Set([...files.keys(), ...hashes.keys()])) {
    if (file !== BUNDLE.manifest && file !== BUNDLE.signature && !Object.hasOwn(manifest.files, file))
      found.problem({ code: 'FILE_EXTRA', file });
  }
  if (matching === Object.keys(manifest.files).length && matching > 0) found.say({ code: 'FILES_MATCH', count: matching });
}

/** The Ed25519 signature of manifest.json's bytes, when a public key is given (a note says so when not). */
export function checkSignature(files: Map<string, Buffer>, manifestBytes: Buffer, publicKey: KeyObject | undefined, found: Steps): void {
  const signature = files.get(BUNDLE.signature);
  if (!publicKey) return found.say({ code: 'SIGNATURE_NOT_CHECKED', signed: signature !== undefined });
  if (!signature) return found.problem({ code: 'SIGNATURE_MISSING' });
  const text = signature.toString('utf8').trim();
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : undefined;
  let valid = false;
  try {
    valid = bytes !== undefined && bytes.length === 64 && verifySignature(null, manifestBytes, publicKey, bytes);
  } catch {
    valid = false;
  }
  if (valid) found.say({ code: 'SIGNATURE_VALID' });
  else found.problem({ code: 'SIGNATURE_INVALID' });
}

/** The tool version, the suite's content hash and the interface version the bundle was made with, against this installation. */
export function checkSuite(manifest: AnyManifest, found: Steps): void {
  const installed = suiteHash();
  const before = found.problems.length;
  if (manifest.tool.version !== TOOL_VERSION)
    found.problem({ code: 'TOOL_VERSION_DIFFERS', bundle: manifest.tool.version, installed: TOOL_VERSION });
  if (manifest.interfaceVersion !== INTERFACE_VERSION)
    found.problem({ code: 'INTERFACE_VERSION_DIFFERS', bundle: manifest.interfaceVersion, installed: INTERFACE_VERSION });
  if (found.problems.length > before) return;
  if (manifest.suiteHash === installed) found.say({ code: 'SUITE_MATCHES', version: TOOL_VERSION, suiteHash: installed });
  else found.say({ code: 'SUITE_CODE_DIFFERS', version: TOOL_VERSION, bundle: manifest.suiteHash, installed });
}

/** report.json, parsed and valid against the report's schema; undefined (with a problem said) when it is not. */
export function parseReport(bytes: Buffer | undefined, found: Steps): ConformanceResult | undefined {
  if (!bytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    found.problem({ code: 'REPORT_INVALID', defect: { kind: 'not-json' } });
    return undefined;
  }
  const validate = validatorFor<ConformanceResult>(reportSchema);
  if (validate(value)) return value;
  found.problem({ code: 'REPORT_INVALID', defect: { kind: 'schema', violations: violationsOf(validate.errors) } });
  return undefined;
}

/** The run's facts (seed, runs, names, target, load, versions, times) as report.json and manifest.json each say them. */
export function checkReportAgainstManifest(report: ConformanceResult, manifest: AnyManifest, found: Steps): void {
  const pairs: [string, unknown, unknown][] = [
    ['seed', report.seed, manifest.seed],
    ['numRuns', report.numRuns, manifest.numRuns],
    ['namePrefix', report.namePrefix, manifest.namePrefix],
    ['target', report.target, manifest.target],
    ['load', report.options.load, manifest.load],
    ['tool version', report.tool.version, manifest.tool.version],
    ['interfaceVersion', report.interfaceVersion, manifest.interfaceVersion],
    ['startedAt', report.startedAt, manifest.startedAt],
    ['finishedAt', report.finishedAt, manifest.finishedAt],
  ];
  for (const [field, inReport, inManifest] of pairs)
    if (inReport !== inManifest) found.problem({ code: 'REPORT_MANIFEST_DISAGREE', field, report: inReport, manifest: inManifest });
}
