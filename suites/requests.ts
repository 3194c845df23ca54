/**
 * Requests of the interface, built in one place. Paths are relative to the base
 * URL (Endpoints: "Every path is relative to {base_url}").
 */
import { stringifyJson } from '../core/json.js';
import { type ListQuery, listQueryString } from '../generators/listQuery.js';
import type { AuthKind, SendOptions } from './check.js';

type Auth = { auth?: AuthKind; authorization?: string };

/** GET /pets with a query (listPets). */
export function listPets(query: ListQuery | string = {}, auth: Auth = {}): SendOptions {
  if (typeof query === 'string') return { method: 'GET', path: `/pets${query}`, operation: 'listPets', ...auth };
  const search = listQueryString(query);
  const params = [...new URLSearchParams(search)];
  return {
    method: 'GET',
    path: `/pets${search}`,
    operation: 'listPets',
    ...(params.length > 1 ? { written: { query: params } } : {}),
    ...auth,
  };
}

/**
 * The preflight's page size (suites/engine.ts): a full page, so that its answer is also the setup's first look at the
 * store (suites/checks/store.ts), one request where two went one after the other.
 */
export const PREFLIGHT_LIMIT = 100;

/** POST /pets (createPet): an object is sent as exact JSON, a string or bytes as they are. */
export function createPet(
  body: Record<string, unknown> | string | Uint8Array | undefined,
  auth: Auth = {},
  contentType: string | null = 'application/json',
): SendOptions {
  const bytes = body === undefined || typeof body === 'string' || body instanceof Uint8Array ? body : stringifyJson(body);
  return {
    method: 'POST',
    path: '/pets',
    operation: 'createPet',
    ...(contentType === null ? {} : { headers: { 'content-type': contentType } }),
    ...(bytes === undefined ? {} : { body: bytes }),
    // A value, not text the check wrote: a client's application may write it its own way.
    ...(bytes === body ? {} : { written: { json: body } }),
    ...auth,
  };
}

/** GET /pets/{petId} (getPet). `petId` is written as given: ids are exact. */
export function getPet(petId: bigint | string, auth: Auth = {}): SendOptions {
  return { method: 'GET', path: `/pets/${typeof petId === 'bigint' ? petId.toString() : petId}`, operation: 'getPet', ...auth };
}

/** GET /store/orders. */
export function listStoreOrders(auth: Auth = {}): SendOptions {
  return { method: 'GET', path: '/store/orders', operation: 'listStoreOrders', ...auth };
}
