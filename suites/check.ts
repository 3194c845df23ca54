/**
 * What a check is. Two kinds:
 * - an active check (`defineCheck`) sends requests in its phase and judges them;
 * - a response check (`defineResponseCheck`) judges every response the run
 *   receives, whoever sent it (Error bodies, no 5xx, Pet shape, headers).
 * Checks name the rules they assert; the recorder refuses any other.
 */
import type fc from 'fast-check';
import type { RedactedExchange } from '../core/boundary.js';
import type { RequestSpec } from '../core/http.js';
import type { AuthKind } from '../core/key.js';
import type { FindingMessage } from '../spec/findings.js';
import type { GapId } from '../spec/gaps.js';
import type { RuleId } from '../spec/rules.js';
import type { NewPetInput } from '../generators/newPet.js';
import type { Names } from '../generators/names.js';
import type { AuthVariants } from './credentials.js';
import { comparePlace, place } from './schedule.js';
import { IdSet } from './id-set.js';
import type { Judgement, OperationId, Phase } from '../result/model.js';

export type { Phase } from '../result/model.js';

export type { AuthKind } from '../core/key.js';

/** Extra data the engine keeps with each exchange. */
export interface ExchangeMeta {
  operation: OperationId;
  auth: AuthKind;
  check: string;
}

/** An exchange of the run, as checks judge it: through the redaction boundary (core/boundary.ts), with what the engine knows of it. */
export interface SentExchange extends RedactedExchange {
  meta: ExchangeMeta;
}

/** A request as checks describe it. */
export interface SendOptions extends RequestSpec {
  operation: OperationId;
  /** Default `valid`. */
  auth?: AuthKind;
  /** The Authorization header value, for auth kinds other than `valid` and `none`. */
  authorization?: string;
  /**
   * The document says this request is refused (a body that is not a valid
   * NewPet: 400): a conforming server changes nothing for it, so it may be sent
   * again like an idempotent one when its answer was lost. Requests without
   * the key are refused (401) whatever this says.
   */
  refused?: true;
  /**
   * What the request says, for a client's application to write its own way
   * (core/clients.ts): the body's JSON value (`body` then holds it as the
   * suite writes it), the query's parameters (`path` then holds them in the
   * suite's order). Absent: sent exactly as `path` and `body` are.
   */
  written?: { json?: unknown; query?: readonly (readonly [string, string])[] };
}

/** Records assertions about rules. */
export interface Asserter {
  pass(rule: RuleId): void;
  /**
   * `message`: a code of spec/findings.ts and its arguments, server text in
   * them not redacted yet. `key` groups identical failures (default: the
   * message in words). `judge` says how the last exchange can be judged again
   * alone, for `petstore-conformance replay` (default: not at all).
   */
  fail(rule: RuleId, message: FindingMessage<string>, exchanges: readonly SentExchange[], key?: string, judge?: Judgement): void;
  inconclusive(rule: RuleId, message: FindingMessage<string>, exchanges?: readonly SentExchange[]): void;
}

/** What the target did in a gap, for the report. */
export interface Observer {
  observe(gap: GapId, operation: OperationId, summary: string, exchange?: SentExchange): void;
}

/** A created animal, as sent and as the service returned it. */
export interface CreatedPet {
  sent: NewPetInput;
  pet: PetView;
  exchange: SentExchange;
}

/** A Pet's fields, exact. */
export interface PetView {
  id: bigint;
  name: string;
  categoryId: bigint;
  status?: string;
}

/**
 * What the suite knows of the target's store. There is no delete operation,
 * so every id seen stays known: `ids.size` is a lower bound on the store's size.
 */
export class StoreState {
  /** Every id the suite knows of: an exact set with no object per id (id-set.ts), since a load profile adds every created id. */
  readonly ids = new IdSet();
  /** Created animals with the plan position of the code that created them, in order of creation. */
  readonly #made: { pet: CreatedPet; at: readonly [number, number] }[] = [];
  #inPlanOrder: CreatedPet[] | undefined;
  readonly #byId = new Map<bigint, CreatedPet>();
  /** The status each created animal was last read with (transitions are not shown: it may move). */
  readonly #status = new Map<bigint, string | undefined>();
  /** categoryIds the target accepted (a 201 echoed them), in the order learnt. */
  readonly #categories: bigint[] = [];
  /** When each created animal's 201 was taken in (`performance.now()`): the visibility window runs from there. */
  readonly #createdAt = new Map<bigint, number>();
  /** Ids shown by a 200 (getPet or a listing), with the earliest sending order (`seq`) of a request that showed them. */
  readonly #seen = new Map<bigint, number>();
  /**
   * The preflight's answer to `GET /pets?limit=100` (suites/engine.ts): the setup's first look at the store, which it
   * then does not ask for again a round trip later. Undefined when the preflight asked for less.
   */
  listing: SentExchange | undefined;

  /**
   * Animals the suite created, in plan order (the check, then the property
   * case, that created them; then order of creation): the same whichever
   * concurrent answer came back first.
   */
  get created(): readonly CreatedPet[] {
    // Array sort is stable: creations at one place keep their order.
    this.#inPlanOrder ??= [...this.#made].sort((a, b) => comparePlace(a.at, b.at)).map((m) => m.pet);
    return this.#inPlanOrder;
  }

  addCreated(pet: CreatedPet): void {
    this.#made.push({ pet, at: place() });
    this.#inPlanOrder = undefined;
    this.#byId.set(pet.pet.id, pet);
    this.#status.set(pet.pet.id, pet.pet.status);
    this.#createdAt.set(pet.pet.id, performance.now());
    this.noteCategory(pet.pet.categoryId);
  }

  /** The animal whose 201 the suite took in last, if any (arrival order, not plan order). */
  get lastCreated(): CreatedPet | undefined {
    return this.#made.at(-1)?.pet;
  }

  /** When the suite took in the 201 of the animal it created with this id (`performance.now()`), if it did. */
  createdAt(id: bigint): number | undefined {
    return this.#createdAt.get(id);
  }

  /**
   * Records that a 200 showed this id (getPet, or a listing), answering the
   * request sent `seq`-th. Once seen, an animal must stay visible.
   */
  noteSeen(id: bigint, seq: number): void {
    const before = this.#seen.get(id);
    if (before === undefined || seq < before) this.#seen.set(id, seq);
  }

  /** Whether a 200 to a request sent before the `seq`-th showed this id: a 404 to the `seq`-th is then a lost animal, not lag. */
  seenBefore(id: bigint, seq: number): boolean {
    const first = this.#seen.get(id);
    return first !== undefined && first < seq;
  }

  /** Records the status an animal was just read with. */
  noteStatus(id: bigint, status: string | undefined): void {
    if (this.#byId.has(id)) this.#status.set(id, status);
  }

  /** The status a created animal was last read with. */
  statusOf(id: bigint): string | undefined {
    return this.#status.get(id);
  }

  /** Records a categoryId the target accepted. */
  noteCategory(categoryId: bigint): void {
    if (!this.#categories.includes(categoryId)) this.#categories.push(categoryId);
  }

  /** categoryIds the target accepted, in the order learnt. */
  get categories(): readonly bigint[] {
    return this.#categories;
  }

  /** The animal the suite created with this id, if any. */
  createdWithId(id: bigint): CreatedPet | undefined {
    return this.#byId.get(id);
  }

  noteIds(ids: Iterable<bigint>): void {
    for (const id of ids) this.ids.add(id);
  }

  /**
   * Animals the suite created whose status, when last read, was `status`: one
   * per id (a target that gave one id twice holds one animal under it, the
   * later one: CREATE-ID-UNIQUE's business, not a page's).
   */
  createdWithStatus(status: string): CreatedPet[] {
    return this.created.filter((c) => this.#byId.get(c.pet.id) === c && this.#status.get(c.pet.id) === status);
  }
}

/** Run-wide settings a check can read. */
export interface CheckSettings {
  /** This check's fast-check seed (derived from the run seed and the check id). */
  seed: number;
  numRuns: number;
  /** Name prefix of every animal the suite creates; empty when names are natural. */
  prefix: string;
  /** How the run names the animals it creates (generators/names.ts): what to name an animal, rather than the prefix and a word, so a certification's names carry no constant part. */
  names: Names;
  /** Per-request timeout, ms. */
  timeoutMs: number;
  /**
   * How long after its 201 a created animal may still be missing (getPet 404,
   * absent from a listing) while it is asked for again, ms: the document
   * states no read-after-write guarantee.
   */
  visibilityWindowMs: number;
}

export interface CheckContext extends Asserter, Observer {
  readonly settings: CheckSettings;
  readonly store: StoreState;
  /** Authorization headers for the auth checks, derived from the key. */
  readonly authVariants: AuthVariants;
  send(options: SendOptions): Promise<SentExchange>;
  /** Sends requests with bounded concurrency, results in input order. */
  sendAll(options: readonly SendOptions[]): Promise<SentExchange[]>;
  /** Runs `fn` on each item with the same bounded concurrency, results in input order. */
  parallel<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]>;
  /**
   * Runs a fast-check property whose body records assertions. A run fails when
   * it records a failure; the shrunk counterexample's failures are reported with it.
   */
  property<T>(
    arbitrary: fc.Arbitrary<T>,
    body: (value: T, assert: Asserter & Observer) => Promise<void>,
    options?: { examples?: T[] },
  ): Promise<void>;
}

export interface ActiveCheck {
  kind: 'example' | 'property';
  id: string;
  title: string;
  phase: Phase;
  operation: OperationId;
  rules: readonly RuleId[];
  gaps: readonly GapId[];
  run(ctx: CheckContext): Promise<void>;
}

export interface ResponseCheck {
  kind: 'response';
  id: string;
  title: string;
  rules: readonly RuleId[];
  gaps: readonly GapId[];
  inspect(exchange: SentExchange, assert: Asserter & Observer): void;
}

/** A check of the load phase: judges responses sampled while a profile runs (see suites/load/phase.ts). */
export interface LoadCheck {
  kind: 'load';
  id: string;
  title: string;
  rules: readonly RuleId[];
  gaps: readonly GapId[];
  /** For copies of response checks: the same judgement, applied to sampled responses. */
  inspect?: ResponseCheck['inspect'];
}

/**
 * The differential probe's check (suites/probe.ts): it sends no request of
 * its own in a phase; the engine runs the probe around the run's requests
 * when the run speaks as two client fingerprints or more, and records what it
 * compares under this check.
 */
export interface DifferentialCheck {
  kind: 'differential';
  id: string;
  title: string;
  rules: readonly RuleId[];
  gaps: readonly GapId[];
}

export type CheckDefinition = ActiveCheck | ResponseCheck | LoadCheck | DifferentialCheck;

/** Declares an active check. */
export function defineCheck(check: Omit<ActiveCheck, 'gaps'> & { gaps?: readonly GapId[] }): ActiveCheck {
  return { ...check, gaps: check.gaps ?? [] };
}

/** Declares a check run on every response of the run. */
export function defineResponseCheck(check: Omit<ResponseCheck, 'kind' | 'gaps'> & { gaps?: readonly GapId[] }): ResponseCheck {
  return { ...check, kind: 'response', gaps: check.gaps ?? [] };
}

/** An ordered list of checks; duplicate ids are rejected. */
export function registerChecks(checks: readonly CheckDefinition[]): readonly CheckDefinition[] {
  const seen = new Set<string>();
  for (const check of checks) {
    if (seen.has(check.id)) throw new Error(`duplicate check id ${check.id}`);
    seen.add(check.id);
    if (check.rules.length === 0 && check.gaps.length === 0) throw new Error(`check ${check.id} names no rule and no gap`);
  }
  return checks;
}
