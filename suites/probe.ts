/**
 * The differential probe (CLIENT-INDEPENDENT): does every client get the
 * answers the suite gets? Run when the run speaks as two client fingerprints
 * or more (core/fingerprints.ts; certification speaks as all of them), in two
 * parts, each request through the run's session (so every answer also passes
 * the run's response checks) on a new connection of its own:
 *
 * - the **prelude**, before anything else of the run: one request of each kind
 *   ({@link PRELUDE}), each as another client, paced like an ordinary client
 *   (a pause of a few hundred ms with jitter between them). A server that
 *   learns from, or rate-limits, the suite's traffic has seen nothing
 *   suite-like yet, so these answers are the ones any client gets; each is
 *   compared with the run's first later answer of its kind;
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
 * `answerDifferences` (suites/compare.ts).
 */
import { fingerprintOfHeaders, type FingerprintId, TOOL_FINGERPRINT } from '../core/fingerprints.js';
import { exactInteger, INT64_MAX, isJsonObject, isLosslessNumber, parseJson } from '../core/json.js';
import { bodyJson } from '../core/http.js';
import { sha256 } from '../core/hash.js';
import type { Asserter, DifferentialCheck, SendOptions, SentExchange, StoreState } from './check.js';
import { type AnswerView, answerDifferences, type Pairing } from './compare.js';
import { ordinaryNameFor, petView } from './judge.js';
import type { OperationId } from '../result/model.js';
import { createPet, getPet, listPets, listStoreOrders } from './requests.js';
import { TargetLost } from '../result/reasons.js';
import { NotJudged, RateLimited } from './session.js';
import type { Names } from '../generators/names.js';

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

/** Pause between two prelude requests, ms: from {@link PRELUDE_PAUSE_MS}, plus up to {@link PRELUDE_JITTER_MS} drawn from the seed. */
export const PRELUDE_PAUSE_MS = 60;
/** Jitter added to each prelude pause, ms at most. */
export const PRELUDE_JITTER_MS = 140;

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

/** The kinds of the prelude, in the order they are sent. */
export type PreludeKind = 'list-key' | 'list-no-key' | 'create-valid' | 'get-existing' | 'get-missing' | 'create-invalid' | 'orders-no-key';

/** The prelude's kinds: every operation, success and error, with and without the key. */
export const PRELUDE: readonly PreludeKind[] = ['list-key', 'list-no-key', 'create-valid', 'get-existing', 'get-missing', 'create-invalid', 'orders-no-key'];

/**
 * The check whose first request of a prelude kind the prelude's answer is
 * compared with. One check's requests go out one after another in a
 * certification, so its first of a kind is the same in `verify`'s replay,
 * whatever the other checks do meanwhile.
 */
export const PRELUDE_PARTNER: Readonly<Record<PreludeKind, string>> = {
  'list-key': 'preflight',
  'list-no-key': 'auth.missing-key',
  'create-valid': 'store.seed',
  'get-existing': 'getPet.round-trip',
  'get-missing': 'getPet.unknown-ids',
  'create-invalid': 'createPet.invalid-bodies',
  'orders-no-key': 'auth.missing-key',
};

/** The categoryId of the prelude's animal: the first the setup phase tries when the store shows none. */
const PRELUDE_CATEGORY = 1n;

/** What the probe is given by the engine. */
export interface ProbeOptions {
  /** The run's fingerprints, two or more. */
  fingerprints: readonly FingerprintId[];
  seed: number;
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

  constructor(options: ProbeOptions) {
    this.#options = options;
    this.#missingId = missingIdFor(options.seed);
  }

  /** Pairs compared so far. */
  get compared(): number {
    return this.#compared;
  }

  /**
   * The prelude: one request of each kind, each as another client (the run's
   * fingerprints in an order drawn from the seed), on a new connection, paced.
   */
  async prelude(): Promise<void> {
    const order = shuffled(this.#options.fingerprints, this.#options.seed);
    for (const [i, kind] of PRELUDE.entries()) {
      if (i > 0 && this.#options.sleep) await this.#options.sleep(PRELUDE_PAUSE_MS + Math.floor(unit(this.#options.seed, `pause ${i}`) * PRELUDE_JITTER_MS));
      const request = this.#preludeRequest(kind);
      if (!request) continue;
      const x = await this.#options.send({ ...request, fingerprint: order[i % order.length]!, fresh: true }, { watch: false });
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
    const reason = this.#preludeStopped ?? (this.#seen === 0 ? 'the run sent no request the probe could follow' : `none of the prelude's answers met a later answer of its kind, and none of the run's ${this.#seen} answered requests was sent again`);
    this.#options.asserter('listPets').inconclusive('CLIENT-INDEPENDENT', { code: 'NOTHING_COMPARED', args: { reason } });
  }

  #preludeRequest(kind: PreludeKind): SendOptions | undefined {
    switch (kind) {
      case 'list-key':
        return listPets({ limit: 1 });
      case 'list-no-key':
        return listPets({}, { auth: 'none' });
      case 'create-valid':
        return createPet({ name: ordinaryNameFor(this.#options.names, ' prelude'), categoryId: PRELUDE_CATEGORY, status: 'available' });
      case 'get-existing':
        return this.#preludeId === undefined ? undefined : getPet(this.#preludeId);
      case 'get-missing':
        return getPet(this.#missingId);
      case 'create-invalid':
        // No name: "name string, required".
        return { ...createPet({ categoryId: PRELUDE_CATEGORY, status: 'available' }), refused: true };
      case 'orders-no-key':
        return listStoreOrders({ auth: 'none' });
    }
  }

  /** The first later request of a prelude kind is compared with the prelude's answer of that kind. */
  #matchPrelude(check: string, request: SendOptions, x: SentExchange): void {
    for (const [kind, earlier] of this.#pending) {
      if (PRELUDE_PARTNER[kind] !== check) continue;
      const pairing = this.#kindOf(kind, request, earlier.request);
      if (!pairing) continue;
      this.#pending.delete(kind);
      if (kind === 'get-existing' && earlier.x.response?.status === 404) continue; // No read-after-write guarantee is stated.
      if (kind === 'get-missing' && (existingAnswer(earlier.x) || existingAnswer(x))) continue; // The id may be an animal's after all.
      this.#compare(request, earlier, { request, x }, pairing);
    }
  }

  /** Whether `request` is of the prelude's `kind`: the same request, or one of the same kind; undefined when neither. */
  #kindOf(kind: PreludeKind, request: SendOptions, prelude: SendOptions): Pairing | undefined {
    const auth = request.auth ?? 'valid';
    const same = request.method === prelude.method && request.path === prelude.path && auth === (prelude.auth ?? 'valid') && sameBody(request.body, prelude.body);
    const of = (match: boolean): Pairing | undefined => (!match ? undefined : same ? 'same-request' : 'same-class');
    switch (kind) {
      case 'list-key':
        return same ? 'same-request' : undefined;
      case 'list-no-key':
        return of(request.operation === 'listPets' && auth === 'none');
      case 'orders-no-key':
        return of(request.operation === 'listStoreOrders' && auth === 'none');
      case 'create-invalid':
        return of(request.operation === 'createPet' && auth === 'valid' && request.refused === true);
      case 'create-valid': {
        if (request.operation !== 'createPet' || auth !== 'valid' || request.refused) return undefined;
        const body = bodyObject(request.body);
        return of(body !== undefined && isLosslessNumber(body.categoryId) && exactInteger(body.categoryId) === PRELUDE_CATEGORY && body.status === 'available');
      }
      case 'get-existing':
      case 'get-missing': {
        if (request.operation !== 'getPet' || auth !== 'valid') return undefined;
        const id = petIdOf(request.path);
        if (id === undefined) return undefined;
        const created = this.#options.store.createdWithId(id) !== undefined;
        return of(kind === 'get-existing' ? created : !created && !this.#options.store.ids.has(id));
      }
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
    const differences = answerDifferences(viewOf(earlier.x), viewOf(later.x), { operation: request.operation, pairing, ...limitOf(request) });
    this.#compared++;
    const assert = this.#options.asserter(request.operation);
    if (differences.length === 0) return assert.pass('CLIENT-INDEPENDENT');
    const [first, second] = [clientOf(earlier), clientOf(later)];
    assert.fail('CLIENT-INDEPENDENT', { code: 'CLIENT_DIFFERS', args: { request: describe(request), pairing, first, second, differences } }, [earlier.x, later.x], `${request.operation} ${first} ${second}`, {
      kind: 'none',
      why: 'it compares the answers two clients got to the same request; the re-run command sends both again',
    });
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

function petIdOf(path: string): bigint | undefined {
  const match = /^\/pets\/(-?\d{1,19})$/.exec(path);
  if (!match) return undefined;
  const id = BigInt(match[1]!);
  return id <= INT64_MAX && id >= -INT64_MAX - 1n ? id : undefined;
}

function bodyObject(body: SendOptions['body']) {
  if (body === undefined) return undefined;
  try {
    const value = parseJson(typeof body === 'string' ? body : new TextDecoder().decode(body));
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function bodyText(body: SendOptions['body']): string | undefined {
  return body === undefined ? undefined : typeof body === 'string' ? body : new TextDecoder().decode(body);
}

function sameBody(a: SendOptions['body'], b: SendOptions['body']): boolean {
  return bodyText(a) === bodyText(b);
}

/** An id no animal is likely to have, from the seed: magnitude between 2^40 and 2^62 (the getPet check's unknown ids are above 2^32 too). */
function missingIdFor(seed: number): bigint {
  const high = BigInt(Math.floor(unit(seed, 'missing id high') * 2 ** 30));
  const low = BigInt(Math.floor(unit(seed, 'missing id low') * 2 ** 32));
  return 2n ** 40n + ((high << 32n) | low);
}

/** A number in [0, 1) from the seed and a label (FNV-1a, then a 32-bit mix). */
function unit(seed: number, label: string): number {
  let hash = 0x811c9dc5 ^ seed;
  for (const ch of label) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x45d9f3b);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 2 ** 32;
}

/** The fingerprints in an order drawn from the seed. */
function shuffled(fingerprints: readonly FingerprintId[], seed: number): FingerprintId[] {
  const out = [...fingerprints];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(unit(seed, `order ${i}`) * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
