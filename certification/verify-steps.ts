/**
 * What a verification of a bundle (certification/verify.ts) is checked
 * against and what it finds: the expected product, base URL and key, and the
 * steps (problems, passes, notes) in the order they are made.
 */
import type { KeyObject } from 'node:crypto';
import type { ConformanceResult } from '../result/model.js';
import type { AnyManifest } from '../spec/manifest-schema.js';
import type { Product } from '../spec/product-schema.js';
import type { VerifyNote, VerifyPass, VerifyProblem, VerifyStep } from './problems.js';

/** What the bundle is checked against besides itself: the options of verifyBundle once read. */
export interface Expected {
  publicKey: KeyObject | undefined;
  product: Product | undefined;
  /** The base URL given, as the suite names it (core/http.ts `targetOf`). */
  target: string | undefined;
}

/** What verifyBundle found. The bundle verifies when `problems` is empty. */
export interface Verification {
  /** Every step, in the order made: problems, passes and notes (certification/format.ts words them). */
  steps: VerifyStep[];
  /** The problems among the steps. */
  problems: VerifyProblem[];
  /** What the bundle says, as far as it could be read (a manifest of an earlier format has no product or fingerprints). */
  manifest?: AnyManifest;
  product?: Product;
  report?: ConformanceResult;
}

/** The steps of one verification as they are made. */
export class Steps implements Verification {
  readonly steps: VerifyStep[] = [];
  readonly problems: VerifyProblem[] = [];
  manifest?: AnyManifest;
  product?: Product;
  report?: ConformanceResult;
  problem(problem: VerifyProblem): void {
    this.problems.push(problem);
    this.steps.push(problem);
  }
  say(step: VerifyPass | VerifyNote): void {
    this.steps.push(step);
  }
}
