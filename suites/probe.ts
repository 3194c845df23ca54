/**
 * The differential probe (CLIENT-INDEPENDENT): does every client get the
 * answers the suite gets? Run when the run speaks as two client fingerprints
 * or more (core/fingerprints.ts; certification speaks as all of them), in two
 * parts, each request through the run's session (so every answer also passes
 * the run's response checks) on a new connection of its own:
 *
 * - the **prelude**, before anything else of the run: one request of each kind
 *   ({@link PRELUDE}), paced like an ordinary client (a pause of a few hundred
 *   ms with jitter between them), on a new connection each: first what any
 *   client does first (list under a drawn query, create, read back) as one
 *   client, then the rest in an order drawn from the seed, each as another
 *   (`preludeOrder`). A server that learns from, or rate-limits, the suite's
 *   traffic has seen nothing suite-like yet, and one that opens a window on
 *   the first tell (a client switch, no key, a missing id, an invalid body)
 *   has answered ordinary traffic before it, so these answers are the ones
 *   any client gets; each is compared with the run's first later answer of
 *   its kind;
 * - the **re-sends**, interleaved: a share of the run's requests, each drawn
 *   from the seed and the request itself ({@link RESENT_SHARE}), each right
 *   after its answer under every other fingerprint of the run. Kinds sent by
 *   many requests (each operation with and without the key, answered 2xx or
 *   4xx) are drawn on every seed measured; a rare one (listPets answered 4xx
 *   with the key) on some seeds only: not a guarantee.
 *
 * Decisions depend only on the seed, each check's own requests (one after
 * another in a certification) and their answers, never on how concurrent
 * checks interleave, so `verify`'s replay of a transcript (same seed) sends
 * the same requests, each identical one in the same order. Pairs are compared by
 * `answerDifferences` (suites/compare.ts); the prelude's requests, their
 * partners and the probe's draws from the seed are suites/probe/prelude.ts.
 */
import { unit } from '../core/hash.js';
import { fingerprintOfHeaders, type FingerprintId, TOOL_FINGERPRINT } from '../core/fingerprints.js';
import { bodyJson } from '../core/http.js';
import { sha256 } from '../core/hash.js';
import type { Asserter, DifferentialCheck, SendOptions, SentExchange, StoreState } from './check.js';
import { type AnswerView, answerDifferences, type Pairing } from './compare.js';
import { petView } from './judge.js';
import type { OperationId } from '../result/model.js';
import { TargetLost } from '../result/reasons.js';
import { NotJudged, RateLimited } from './session.js';
import { listPets, PREFLIGHT_LIMIT } from './requests.js';
import type { Names } from '../generators/names.js';
import {
  drawnLimit,
  missingIdFor,
  PRELUDE_JITTER_MS,
  PRELUDE_PARTNER,
  PRELUDE_PAUSE_MS,
  type PreludeKind,
  preludeOrder,
  preludePairing,
  preludeRequest,
  type PreludeScheme,
  shuffled,
} from './probe/prelude.js';

export { PRELUDE, PRELUDE_JITTER_MS, PRELUDE_PARTNER, PRELUDE_PAUSE_MS, type PreludeKind } from './probe/prelude.js';

/** The probe's check: what it compares is recorded under it. */
export const clientIndependence: DifferentialCheck = {
  kind: 'differential',
  id: 'clients.differential',
  title: 'Answers compared across client fingerprints: a paced prelude, then a sample of the run sent again as each other client',
  rules: ['CLIENT-INDEPENDENT'],
  gaps: [],
};

/** What a run needs before the probe can run: two clients to compare. */
export const PROBE_NEEDS = 'two client fingerprints or more to compare answers across (a certification speaks as all of them)';

/**
 * The share of the run's requests sent again as each other client, each drawn
 * from the seed and the request itself (check, kind, method, path, body), never
 * from its place in time: checks and their concurrent cases complete in
 * another order when `verify` replays a transcript, and the replay must send
 * the same requests. Requests with the key are many; those without it and
 * GET /store/orders are few, and drawn more often.
 */
export const RESENT_SHARE = 0.03;
/** The share for requests without the key (or another Authorization) and GET /store/orders. */
export const RESENT_SHARE_KEYLESS = 0.25;

/** What the probe is given by the engine. */
export interface ProbeOptions {
  /** The run's fingerprints, two or more. */
  fingerprints: readonly FingerprintId[];
  seed: number;
  /** How the prelude goes (probe/prelude.ts `preludeOrder`): drawn, or fixed for `verify`'s replay of a bundle certified before. */
  prelude: PreludeScheme;
  /** How the run names its animals: the prelude's animal has an ordinary name. */
  names: Names;
  store: StoreState;
  /** Sends a request for the probe's check through the run's session; `watch: false` for the prelude (a target that does not answer is the preflight's to tell). */
  send(request: SendOptions, options?: { watch: false }): Promise<SentExchange>;
  /** The probe check's asserter for an operation (failures counted towards maxFailures). */
  asserter(operation: OperationId): Asserter;
  /** Waits between prelude requests; undefined when the run sends nothing real (a recorded transcript replayed): no pause. */
  sleep?: (ms: number) => Promise<void>;
  /** Whether a createPet of this check may be sent again (it creates another animal): not while the store's pages are judged. */
  mayCreate(check: string): boolean;
}

/** A request of the run as the probe sees it: what was asked for, and the exchange. */
interface Sent {
  request: SendOptions;
  x: SentExchange;
}

/**
 * One run's probe: the prelude, then what the engine hands it after each of
 * the run's requests, then what it could not compare.
 */
export class DifferentialProbe {
  readonly #options: ProbeOptions;
  /** Prelude answers not yet compared with the run's, by kind. */
  readonly #pending = new Map<PreludeKind, Sent>();
  #seen = 0;
  #compared = 0;
  /** Why the prelude stopped early, if it did. */
  #preludeStopped: string | undefined;
  #preludeId: bigint | undefined;
  #missingId: bigint;
  #preflight: SendOptions = listPets({ limit: PREFLIGHT_LIMIT });

  constructor(options: ProbeOptions) {
    this.#options = options;
    this.#missingId = missingIdFor(options.seed);
  }

  /** Pairs compared so far. */
  get compared(): number {
    return this.#compared;
  }

  /** The request the run's preflight sends (suites/engine.ts): the prelude's `list-key` is that very request. */
  comparePreflight(request: SendOptions): void {
    this.#preflight = request;
  }

  /**
   * The prelude: one request of each kind, in `preludeOrder` (the clients are
   * the run's fingerprints in an order drawn from the seed), on a new
   * connection, paced.
   */
  async prelude(): Promise<void> {
    const order = shuffled(this.#options.fingerprints, this.#options.seed);
    for (const [i, { kind, client }] of preludeOrder(this.#options.seed, this.#options.prelude).entries()) {
      if (i > 0 && this.#options.sleep)
        await this.#options.sleep(PRELUDE_PAUSE_MS + Math.floor(unit(this.#options.seed, `pause ${i}`) * PRELUDE_JITTER_MS));
      const request = preludeRequest(kind, {
        preflight: this.#preflight,
        names: this.#options.names,
        createdId: this.#preludeId,
        missingId: this.#missingId,
        statusLimit: drawnLimit(this.#options.seed, 'prelude status'),
      });
      if (!request) continue;
      const x = await this.#options.send({ ...request, fingerprint: order[client % order.length]!, fresh: true }, { watch: false });
      if (!x.response) {
        this.#preludeStopped = `the prelude's ${describe(request)} got no response (${x.error?.message ?? 'unknown'})`;
        return;
      }
      if (kind === 'create-valid') this.#preludeId = createdId(x);
      this.#pending.set(kind, { request, x });
    }
  }

  /**
   * After each request of the run (`check` sent `request`, answered `x`):
   * compares it with the prelude's answer of its kind, if one waits; sends it
   * again as each other client when the sample draws it.
   */
  async after(check: string, request: SendOptions, x: SentExchange): Promise<void> {
    if (!x.response) return;
    this.#matchPrelude(check, request, x);
    if (!this.#drawn(check, request, x)) return;
    const first = sentUnder(x);
    for (const fingerprint of this.#options.fingerprints) {
      if (fingerprint === first) continue;
      let again: SentExchange;
      try {
        again = await this.#options.send({ ...request, fingerprint, fresh: true });
      } catch (error) {
        // The run stopped, the target kept rate-limiting, or the answer says nothing of the target: nothing to compare.
        if (error instanceof TargetLost || error instanceof RateLimited || error instanceof NotJudged) return;
        throw error;
      }
      if (!again.response) continue;
      const id = again.response.status === 201 ? createdId(again) : undefined;
      if (id !== undefined) this.#options.store.ids.add(id);
      this.#compare(request, { request, x }, { request, x: again }, 'same-request');
    }
  }

  /** Records the probe's outcome when nothing was compared: inconclusive, with why. */
  finish(): void {
    if (this.#compared > 0) return;
    const reason =
      this.#preludeStopped ??
      (this.#seen === 0
        ? 'the run sent no request the probe could follow'
        : `none of the prelude's answers met a later answer of its kind, and none of the run's ${this.#seen} answered requests was sent again`);
    this.#options.asserter('listPets').inconclusive('CLIENT-INDEPENDENT', { code: 'NOTHING_COMPARED', args: { reason } });
  }

  /** The first later request of a prelude kind is compared with the prelude's answer of that kind. */
  #matchPrelude(check: string, request: SendOptions, x: SentExchange): void {
    for (const [kind, earlier] of this.#pending) {
      if (PRELUDE_PARTNER[kind] !== check) continue;
      const pairing = preludePairing(kind, request, earlier.request, this.#options.store);
      if (!pairing) continue;
      this.#pending.delete(kind);
      if (kind === 'get-existing' && earlier.x.response?.status === 404) continue; // No read-after-write guarantee is stated.
      if (kind === 'get-missing' && (existingAnswer(earlier.x) || existingAnswer(x))) continue; // The id may be an animal's after all.
      this.#compare(request, earlier, { request, x }, pairing);
    }
  }

  /**
   * Whether the sample draws this request for a re-send: a share
   * ({@link RESENT_SHARE}) drawn from the seed and the request itself.
   */
  #drawn(check: string, request: SendOptions, x: SentExchange): boolean {
    this.#seen++;
    const auth = request.auth ?? 'valid';
    // A valid createPet sent again creates another animal: not while pages are judged against the store.
    if (request.operation === 'createPet' && auth === 'valid' && !request.refused && !this.#options.mayCreate(check)) return false;
    const kind = `${request.operation} ${auth === 'valid' || auth === 'none' ? auth : 'other'} ${Math.floor(x.response!.status / 100)}xx`;
    // Drawn from the request itself (check, kind, method, path, body), never from which request of a kind came first: a
    // check's concurrent cases complete in another order in verify's replay, and the replay must send the same requests.
    const key = `${check} ${kind} ${request.method} ${request.path} ${request.body === undefined ? '-' : sha256(request.body)}`;
    const share = auth !== 'valid' || request.operation === 'listStoreOrders' ? RESENT_SHARE_KEYLESS : RESENT_SHARE;
    return unit(this.#options.seed, `resend ${key}`) < share;
  }

  #compare(request: SendOptions, earlier: Sent, later: Sent, pairing: Pairing): void {
    const differences = answerDifferences(viewOf(earlier.x), viewOf(later.x), {
      operation: request.operation,
      pairing,
      ...limitOf(request),
    });
    this.#compared++;
    const assert = this.#options.asserter(request.operation);
    if (differences.length === 0) return assert.pass('CLIENT-INDEPENDENT');
    const [first, second] = [clientOf(earlier), clientOf(later)];
    assert.fail(
      'CLIENT-INDEPENDENT',
      { code: 'CLIENT_DIFFERS', args: { request: describe(request), pairing, first, second, differences } },
      [earlier.x, later.x],
      `${request.operation} ${first} ${second}`,
      {
        kind: 'none',
        why: 'it compares the answers two clients got to the same request; the re-run command sends both again',
      },
    );
  }
}

/** The fingerprint an exchange went out under, by the User-Agent it carried; undefined for the tool's own shape. */
export function sentUnder(x: SentExchange): FingerprintId | undefined {
  return fingerprintOfHeaders(x.request.headers);
}

/** A client in a finding: the fingerprint the request asked for, else the one its User-Agent shows, else the tool's own shape (`tool`). */
function clientOf(sent: Sent): string {
  return sent.request.fingerprint ?? sentUnder(sent.x) ?? TOOL_FINGERPRINT;
}

/** The suite's words for a request: `listPets GET /pets?limit=1 without the key`. */
function describe(request: SendOptions): string {
  const auth = request.auth ?? 'valid';
  const key = auth === 'valid' ? 'with the key' : auth === 'none' ? 'without the key' : `with ${auth} credentials`;
  return `${request.operation} ${request.method} ${request.path} ${key}${request.refused ? ' (a body the document refuses)' : ''}`;
}

function viewOf(x: SentExchange): AnswerView {
  const response = x.response!;
  const parsed = response.truncated ? undefined : bodyJson(response);
  return {
    status: response.status,
    headers: response.headers,
    ...(parsed?.ok ? { json: parsed.value } : {}),
    // Past the parse bound (core/json.ts MAX_JSON_TOKENS) is not read whole either.
    whole: !response.truncated && !response.decoding?.cut && !(parsed && !parsed.ok && parsed.notParsed !== undefined),
    empty: response.body.byteLength === 0,
  };
}

function limitOf(request: SendOptions): { limit?: number } {
  if (request.operation !== 'listPets') return {};
  const limit = new URLSearchParams(request.path.split('?')[1] ?? '').get('limit');
  const n = limit === null ? undefined : Number(limit);
  return n !== undefined && Number.isInteger(n) && n > 0 ? { limit: n } : {};
}

function createdId(x: SentExchange): bigint | undefined {
  if (x.response?.status !== 201) return undefined;
  const parsed = bodyJson(x.response);
  return parsed.ok ? petView(parsed.value)?.id : undefined;
}

/** A 200 to getPet of the very id asked for: that animal exists. */
function existingAnswer(x: SentExchange): boolean {
  if (x.response?.status !== 200) return false;
  const parsed = bodyJson(x.response);
  const id = parsed.ok ? petView(parsed.value)?.id : undefined;
  return id !== undefined && x.request.url.endsWith(`/pets/${id}`);
}
