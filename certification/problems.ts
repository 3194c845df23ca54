/**
 * What `verifyBundle` finds, as data: every step is one of a union keyed by a
 * stable `code`, worded only by certification/format.ts. Problems fail the
 * verification; passes and notes are said.
 */
import type { Severity } from '../spec/rules.js';
import type { Outcome, RuleOutcome, ThresholdResult } from '../result/model.js';
import type { InterruptSignal } from '../result/reasons.js';
import type { SchemaViolation } from '../spec/validate.js';
import type { BoundProduct, Difference, UrlPart } from './binding.js';
import type { ManifestDefect } from './manifest.js';
import type { TranscriptDefect } from './transcript.js';

/** A request of the recomputation, or of the transcript, as shown: path relative to the target, the Authorization header redacted ('' when none). */
export interface ShownRequest {
  method: string;
  path: string;
  authorization: string;
}

type ThresholdOutcome = ThresholdResult['outcome'];

/** Something in the bundle that does not match; any one fails the verification. */
export type VerifyProblem =
  /** The bytes are not a gzip-compressed tar archive at all (`layer`: which of the two is wrong). */
  | { code: 'NOT_A_BUNDLE'; layer: 'gzip' | 'tar'; detail: string }
  | { code: 'ENTRY_NOT_A_FILE'; name: string; type: string }
  | { code: 'ENTRY_NOT_FLAT'; name: string }
  | { code: 'ENTRY_REPEATED'; name: string }
  /** `known`: whether `name` is one of a bundle's files (its own bound) or another (the bound of any file). */
  | { code: 'ENTRY_TOO_LARGE'; name: string; size: number; limit: number; known: boolean }
  | { code: 'ARCHIVE_DAMAGED'; entries: number; detail: string }
  | { code: 'ARCHIVE_TOO_LARGE'; limit: number }
  | { code: 'TOO_MANY_ENTRIES'; entries: number; limit: number }
  /** The verification stopped on something it did not expect; what was found before stands. */
  | { code: 'CHECK_ABORTED'; detail: string }
  | { code: 'MANIFEST_MISSING' }
  | { code: 'MANIFEST_INVALID'; defect: ManifestDefect }
  /** A public key was given, and the bundle has no signature. */
  | { code: 'SIGNATURE_MISSING' }
  | { code: 'SIGNATURE_INVALID' }
  | { code: 'FILE_MISSING'; file: string }
  /** `expected` is the manifest's sha256, `actual` the file's (hex). */
  | { code: 'HASH_MISMATCH'; file: string; expected: string; actual: string }
  | { code: 'HASH_NOT_LISTED'; file: string }
  | { code: 'FILE_EXTRA'; file: string }
  | { code: 'TOOL_VERSION_DIFFERS'; bundle: string; installed: string }
  | { code: 'INTERFACE_VERSION_DIFFERS'; bundle: string; installed: string }
  /** `detail`: the refusal of product.json, naming the key (certification/product.ts). */
  | { code: 'PRODUCT_INVALID'; detail: string }
  | { code: 'REPORT_INVALID'; defect: { kind: 'not-json' } | { kind: 'schema'; violations: SchemaViolation[] } }
  /** No verdict can be recomputed without a readable report.json. */
  | { code: 'REPORT_UNREADABLE' }
  | { code: 'REPORT_MANIFEST_DISAGREE'; field: string; report: unknown; manifest: unknown }
  /** product.json and the manifest's `product` name different products (`field`: the first that differs). */
  | { code: 'PRODUCT_MANIFEST_DISAGREE'; field: string; product: string; manifest: string }
  /** The bundle was certified for another product than the one given (`verify --product`). */
  | { code: 'PRODUCT_DIFFERS'; bundle: BoundProduct; differences: Difference<keyof BoundProduct>[] }
  /** A product was given, and the bundle names none that can be read (no product in the manifest, product.json missing or invalid). */
  | { code: 'PRODUCT_NOT_NAMED' }
  /** The bundle was certified at another base URL than the one given (`verify --base-url`); `given` as the suite names it. */
  | { code: 'BASE_URL_DIFFERS'; bundle: string; given: string; differences: Difference<UrlPart>[] }
  | { code: 'TRANSCRIPT_MISSING' }
  | { code: 'TRANSCRIPT_INVALID'; defect: TranscriptDefect }
  | { code: 'RECOMPUTATION_FAILED'; detail: string }
  /** The recomputation sent a request the transcript does not hold: it diverged from the recorded run. */
  | { code: 'REQUEST_NOT_IN_TRANSCRIPT'; request: ShownRequest }
  /** More such requests than are listed one by one. */
  | { code: 'MORE_REQUESTS_NOT_IN_TRANSCRIPT'; count: number }
  /** Recorded exchanges (outside the load phase) the recomputation never asked for. */
  | { code: 'EXCHANGES_NOT_REPLAYED'; count: number; first: ShownRequest & { seq: number } }
  | { code: 'RULE_NOT_IN_REPORT'; rule: string; recomputed: RuleOutcome }
  | { code: 'RULE_UNKNOWN'; rule: string }
  | { code: 'RULE_DIFFERS'; rule: string; severity: Severity; recorded: RuleOutcome; recomputed: Outcome }
  | { code: 'CHECK_UNKNOWN'; rule: string; check: string }
  | { code: 'CHECK_NOT_IN_REPORT'; rule: string; check: string; recomputed: Outcome }
  /** `message`: the recomputation's first failure, when it failed. */
  | { code: 'CHECK_DIFFERS'; rule: string; check: string; recorded: Outcome; recomputed: Outcome; message?: string }
  | { code: 'VERDICT_DIFFERS'; recorded: string; recomputed: string }
  /** A threshold's outcome in report.json against the one its recorded figures give (`measure`: what they give, in words). */
  | {
      code: 'THRESHOLD_DIFFERS';
      profile: string;
      threshold: string;
      recorded: ThresholdOutcome | 'absent';
      recomputed: ThresholdOutcome | 'absent';
      measure?: string;
    }
  /** report.json's summary of the load thresholds against its own load results. */
  | { code: 'THRESHOLDS_DIFFER'; recorded: string; computed: string }
  /** manifest.json's decision against what report.json supports (`reasons`: why it supports none). */
  | { code: 'DECISION_DIFFERS'; manifest: boolean; supported: boolean; reasons: string[] };

/** A check of the bundle that held. */
export type VerifyPass =
  | { code: 'FILES_MATCH'; count: number }
  | { code: 'SIGNATURE_VALID' }
  | { code: 'SUITE_MATCHES'; version: string; suiteHash: string }
  /** The bundle's product is the one given. */
  | { code: 'PRODUCT_MATCHES'; product: BoundProduct }
  /** The bundle's base URL is the one given, once both are normalised. */
  | { code: 'BASE_URL_MATCHES'; target: string }
  | { code: 'VERDICTS_AGREE'; rules: number; exchanges: number }
  | { code: 'DECISION_FOLLOWS'; certified: boolean };

/** Said, neither passed nor failed. */
export type VerifyNote =
  | { code: 'SIGNATURE_NOT_CHECKED'; signed: boolean }
  /**
   * Made by this version from other code (another build, a reorganisation, a fix): the suite hash is the vendor's
   * claim, signed by the vendor's key, so it proves nothing a recomputation does not; the verdicts are judged again
   * with this installation's code, and any that differs is a problem of its own.
   */
  | { code: 'SUITE_CODE_DIFFERS'; version: string; bundle: string; installed: string }
  | { code: 'LOAD_NOT_RECOMPUTED' }
  /** The run was stopped by a signal: where it stopped cannot be replayed, so its verdicts are not recomputed (it can never support a certificate). */
  | { code: 'INTERRUPTED_NOT_RECOMPUTED'; signal: InterruptSignal };

/** One step of a verification, in the order made. */
export type VerifyStep = VerifyProblem | VerifyPass | VerifyNote;
