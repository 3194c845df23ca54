/**
 * The differential probe's prelude (suites/probe.ts): one request of each
 * kind before anything else of the run, each as another client, paced; which
 * later request of the run each is compared with; and the draws from the seed
 * the probe makes (pauses, the order of clients, an unknown id).
 */
import type { FingerprintId } from '../../core/fingerprints.js';
import { unit } from '../../core/hash.js';
import { exactInteger, INT64_MAX, isJsonObject, isLosslessNumber, parseJson } from '../../core/json.js';
import type { Names } from '../../generators/names.js';
import type { PetStatus } from '../../spec/openapi.js';
import type { SendOptions, StoreState } from '../check.js';
import type { Pairing } from '../compare.js';
import { ordinaryNameFor } from '../judge.js';
import { createPet, getPet, listPets, listStoreOrders } from '../requests.js';

/** Pause between two prelude requests, ms: from {@link PRELUDE_PAUSE_MS}, plus up to {@link PRELUDE_JITTER_MS} drawn from the seed. */
export const PRELUDE_PAUSE_MS = 60;
/** Jitter added to each prelude pause, ms at most. */
export const PRELUDE_JITTER_MS = 140;

/** The kinds of the prelude. */
export type PreludeKind =
  'list-key' | 'list-status' | 'list-no-key' | 'create-valid' | 'get-existing' | 'get-missing' | 'create-invalid' | 'orders-no-key';

/** The kinds of the fixed prelude, in its order (runs before it was drawn; the drawn one adds `list-status`). */
export const PRELUDE: readonly PreludeKind[] = [
  'list-key',
  'list-no-key',
  'create-valid',
  'get-existing',
  'get-missing',
  'create-invalid',
  'orders-no-key',
];

/**
 * What any client of the interface does first, in this order, as one client: list (under the preflight's query,
 * drawn), create, read back, list by the status the animal was created with (it may show there: a store that starts
 * empty shows nothing otherwise). Everything else of the prelude (a missing id, no key, an invalid body) is what a
 * client rarely sends, each a tell; those come after, in an order drawn from the seed, each as another client. A
 * target that breaks what a run sent only after a tell (a filtered listing, before it was here) for everyone outside
 * a window the tell opens is caught before it.
 */
const ORDINARY: readonly PreludeKind[] = ['list-key', 'create-valid', 'get-existing', 'list-status'];
const UNUSUAL: readonly PreludeKind[] = ['get-missing', 'list-no-key', 'create-invalid', 'orders-no-key'];

/**
 * How the prelude goes: `drawn` (every run since the fixed order was found to open with a signature: a keyed listing,
 * then at once one without the key as another client, which a cheating target took to open a window in which it
 * answered everyone right, and everyone else wrong), or `fixed`, {@link PRELUDE} in its order, each kind as another
 * client (`verify` replaying a bundle certified before).
 */
export type PreludeScheme = 'drawn' | 'fixed';

/**
 * The prelude's kinds in the order they are sent, each with the index of the client (in the run's shuffled
 * fingerprints) it is sent as. Drawn: the ordinary kinds first, as the first client, so that a target breaking
 * ordinary traffic outside a window it opens on a tell is caught before any tell was sent; then the unusual kinds,
 * each as the next client.
 */
export function preludeOrder(seed: number, scheme: PreludeScheme): { kind: PreludeKind; client: number }[] {
  if (scheme === 'fixed') return PRELUDE.map((kind, i) => ({ kind, client: i }));
  const tail = [...UNUSUAL];
  for (let i = tail.length - 1; i > 0; i--) {
    const j = Math.floor(unit(seed, `prelude order ${i}`) * (i + 1));
    [tail[i], tail[j]] = [tail[j]!, tail[i]!];
  }
  return [...ORDINARY.map((kind) => ({ kind, client: 0 })), ...tail.map((kind, i) => ({ kind, client: i + 1 }))];
}

/**
 * The page size of a drawn listing: the preflight's (suites/engine.ts) of a run with a drawn prelude, or the
 * prelude's by status: its `limit` from 1 to 100, or none (the default page), drawn from the seed. A listing is what
 * clients send first; a constant one would be the signature of a run's start, whatever came after it.
 */
export function drawnLimit(seed: number, listing: 'preflight' | 'prelude status'): number | 'none' {
  return unit(seed, `${listing} none`) < 0.25 ? 'none' : 1 + Math.floor(unit(seed, `${listing} limit`) * 100);
}

/**
 * The check whose first request of a prelude kind the prelude's answer is
 * compared with. One check's requests go out one after another in a
 * certification, so its first of a kind is the same in `verify`'s replay,
 * whatever the other checks do meanwhile.
 */
export const PRELUDE_PARTNER: Readonly<Record<PreludeKind, string>> = {
  'list-key': 'preflight',
  'list-status': 'listPets.status-filter',
  'list-no-key': 'auth.missing-key',
  'create-valid': 'store.seed',
  'get-existing': 'getPet.round-trip',
  'get-missing': 'getPet.unknown-ids',
  'create-invalid': 'createPet.invalid-bodies',
  'orders-no-key': 'auth.missing-key',
};

/** The status of the prelude's animal, and of its filtered listing. */
export const PRELUDE_STATUS: PetStatus = 'available';

/** The categoryId of the prelude's animal: the first the setup phase tries when the store shows none. */
export const PRELUDE_CATEGORY = 1n;

/** What the prelude's requests depend on: the preflight's request, the run's names, the animal the prelude created (if it did), an id no animal has. */
export interface PreludeState {
  /** The run's preflight request, which the prelude's `list-key` sends as it is: compared as the same request. */
  preflight: SendOptions;
  names: Names;
  createdId: bigint | undefined;
  missingId: bigint;
  /** The page size of the prelude's listing by status, drawn from the seed (none: the default page). */
  statusLimit: number | 'none';
}

/** The prelude's request of `kind`; undefined for a getPet of the prelude's animal when none was created. */
export function preludeRequest(kind: PreludeKind, state: PreludeState): SendOptions | undefined {
  switch (kind) {
    case 'list-key':
      return state.preflight;
    case 'list-status':
      return listPets({ status: PRELUDE_STATUS, ...(state.statusLimit === 'none' ? {} : { limit: state.statusLimit }) });
    case 'list-no-key':
      return listPets({}, { auth: 'none' });
    case 'create-valid':
      return createPet({ name: ordinaryNameFor(state.names, ' prelude'), categoryId: PRELUDE_CATEGORY, status: PRELUDE_STATUS });
    case 'get-existing':
      return state.createdId === undefined ? undefined : getPet(state.createdId);
    case 'get-missing':
      return getPet(state.missingId);
    case 'create-invalid':
      // No name: "name string, required".
      return { ...createPet({ categoryId: PRELUDE_CATEGORY, status: 'available' }), refused: true };
    case 'orders-no-key':
      return listStoreOrders({ auth: 'none' });
  }
}

/** Whether `request` is of the prelude's `kind`: the same request, or one of the same kind; undefined when neither. `store` tells the suite's animals from unknown ids. */
export function preludePairing(kind: PreludeKind, request: SendOptions, prelude: SendOptions, store: StoreState): Pairing | undefined {
  const auth = request.auth ?? 'valid';
  const same =
    request.method === prelude.method &&
    request.path === prelude.path &&
    auth === (prelude.auth ?? 'valid') &&
    sameBody(request.body, prelude.body);
  const of = (match: boolean): Pairing | undefined => (!match ? undefined : same ? 'same-request' : 'same-class');
  switch (kind) {
    case 'list-key':
      return same ? 'same-request' : undefined;
    case 'list-status':
      return of(request.operation === 'listPets' && auth === 'valid' && /[?&]status=/.test(request.path));
    case 'list-no-key':
      return of(request.operation === 'listPets' && auth === 'none');
    case 'orders-no-key':
      return of(request.operation === 'listStoreOrders' && auth === 'none');
    case 'create-invalid':
      return of(request.operation === 'createPet' && auth === 'valid' && request.refused === true);
    case 'create-valid': {
      if (request.operation !== 'createPet' || auth !== 'valid' || request.refused) return undefined;
      const body = bodyObject(request.body);
      return of(
        body !== undefined &&
          isLosslessNumber(body.categoryId) &&
          exactInteger(body.categoryId) === PRELUDE_CATEGORY &&
          body.status === PRELUDE_STATUS,
      );
    }
    case 'get-existing':
    case 'get-missing': {
      if (request.operation !== 'getPet' || auth !== 'valid') return undefined;
      const id = petIdOf(request.path);
      if (id === undefined) return undefined;
      const created = store.createdWithId(id) !== undefined;
      return of(kind === 'get-existing' ? created : !created && !store.ids.has(id));
    }
  }
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
export function missingIdFor(seed: number): bigint {
  const high = BigInt(Math.floor(unit(seed, 'missing id high') * 2 ** 30));
  const low = BigInt(Math.floor(unit(seed, 'missing id low') * 2 ** 32));
  return 2n ** 40n + ((high << 32n) | low);
}

/** The fingerprints in an order drawn from the seed. */
export function shuffled(fingerprints: readonly FingerprintId[], seed: number): FingerprintId[] {
  const out = [...fingerprints];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(unit(seed, `order ${i}`) * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
