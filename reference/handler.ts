/**
 * A conforming Animal Store Service, as a pure request handler over an
 * in-memory store. It follows the interface document to the letter and takes
 * the standards' side where the document leaves room (Deprecation, Sunset,
 * WWW-Authenticate). Options select other behaviours the document allows.
 */
import { timingSafeEqual } from 'node:crypto';
import { type Json, decodeUtf8, exactInteger, INT64_MAX, INT64_MIN, isJsonObject, isLosslessNumber, parseJson } from '../core/json.js';
import { GET_PET_SUNSET, PET_STATUSES, type PetStatus } from '../spec/openapi.js';

/** A request as the handler sees it: path relative to the base path. */
export interface ApiRequest {
  method: string;
  /** Path below the base path, e.g. `/pets/5`. */
  path: string;
  query: URLSearchParams;
  /** Lower-case names. */
  headers: Record<string, string | undefined>;
  body: Uint8Array;
}

/** A response before serialisation: `body` is written as exact JSON (bigint as digits); a string or bytes are sent as they are. */
export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

export type Handler = (request: ApiRequest) => ApiResponse | Promise<ApiResponse>;

export interface StoredPet {
  id: bigint;
  name: string;
  categoryId: bigint;
  status?: PetStatus;
}

/** Options of the reference; each default is the plainest conforming choice. */
export interface ReferenceOptions {
  /** The only key accepted. */
  apiKey: string;
  /** First id assigned. Default 1. Set beyond 2^53 to exercise exact ids. */
  idStart?: bigint;
  /** Animals in the store before the first request. Default 0. */
  prefill?: number;
  /** Status given to animals created without one. Default: none. */
  defaultStatus?: PetStatus;
  /** What a limit outside 1..100 gets: a 400 Error, or clamped into range. Default `reject`. */
  outOfRangeLimit?: 'reject' | 'clamp';
  /** Content-Type of JSON answers. Default `application/json`. */
  contentType?: string;
  /** Path the interface is served under; getPet's successor link points below it. Default `/v1`. */
  basePath?: string;
  /**
   * Legitimate choices where the document says "not shown", for contract
   * fixtures: a back-office job moving `from` animals to `to` `afterMs` after
   * creation, or all of them at once after every `everyRequests` requests
   * ("Transitions: not shown").
   */
  transition?: { from: PetStatus; to: PetStatus } & ({ afterMs: number } | { everyRequests: number });
  /** Names holding C0 controls or U+007F are refused with a 400 Error (no repertoire is stated). */
  printableNamesOnly?: boolean;
  /** Only these categoryIds have a category record; others get a 400 Error ("Fields of the category record … not shown"). */
  categories?: { min: bigint; max: bigint };
  /** At most `requests` per `windowMs`; beyond, 429 with an Error body and `Retry-After: retryAfterSec` ("Rate limits … not shown"). */
  rateLimit?: { requests: number; windowMs: number; retryAfterSec: number };
  /** Pages hold at most this many animals, whatever the limit ("Maximum number of animals to return"). */
  pageCap?: number;
  /** GET /store/orders answers 503 Error, its backend being down ("Its … responses: not shown"). */
  ordersDown?: boolean;
}

/** Unix seconds at which getPet was deprecated (announced as `Deprecation: @…`), before the sunset. */
export const GET_PET_DEPRECATED_AT = 1735689600;

const REALM = 'animal-store';

/** The reference handler and its store. */
export function createReferenceHandler(options: ReferenceOptions): { handler: Handler; store: Map<bigint, StoredPet> } {
  const store = new Map<bigint, StoredPet>();
  let nextId = options.idStart ?? 1n;
  const contentType = options.contentType ?? 'application/json';
  const key = Buffer.from(options.apiKey);

  const json = (status: number, body: unknown, headers: Record<string, string> = {}): ApiResponse => ({
    status,
    headers: { 'content-type': contentType, ...headers },
    body,
  });
  const error = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
    json(status, { code, message, status }, headers);
  const insert = (pet: Omit<StoredPet, 'id'>): StoredPet => {
    const stored = { id: nextId++, ...pet };
    store.set(stored.id, stored);
    const move = options.transition;
    if (move && 'afterMs' in move && stored.status === move.from) {
      setTimeout(() => {
        if (stored.status === move.from) stored.status = move.to;
      }, move.afterMs).unref();
    }
    return stored;
  };
  let window = { started: 0, count: 0 };
  /** The rate limit, counted per key (only one key is accepted). */
  const limited = (): ApiResponse | undefined => {
    const limit = options.rateLimit;
    if (!limit) return undefined;
    const now = Date.now();
    if (now - window.started >= limit.windowMs) window = { started: now, count: 0 };
    if (++window.count <= limit.requests) return undefined;
    return error(429, 'rate_limited', `At most ${limit.requests} requests per ${limit.windowMs} ms.`, {
      'retry-after': String(limit.retryAfterSec),
    });
  };

  for (let i = 0; i < (options.prefill ?? 0); i++) {
    insert({ name: `prefilled animal ${i}`, categoryId: BigInt(i % 7), ...(i % 4 === 3 ? {} : { status: PET_STATUSES[i % 3]! }) });
  }

  /** Authentication: `Authorization: Bearer <API_KEY>`, scheme name in any case (RFC 9110 §11.1). */
  const authenticate = (header: string | undefined): ApiResponse | undefined => {
    if (header === undefined || header.trim() === '') {
      return error(401, 'unauthorized', 'An API key is required: send Authorization: Bearer <API_KEY>.', {
        'www-authenticate': `Bearer realm="${REALM}"`,
      });
    }
    const match = /^bearer ([^\s]+)$/i.exec(header);
    const token = match ? Buffer.from(match[1]!) : undefined;
    if (!token || token.length !== key.length || !timingSafeEqual(token, key)) {
      return error(401, 'unauthorized', 'The API key is invalid.', {
        'www-authenticate': `Bearer realm="${REALM}", error="invalid_token", error_description="The API key is invalid"`,
      });
    }
    return undefined;
  };

  const listPets = (query: URLSearchParams): ApiResponse => {
    let limit = 20;
    const limitText = query.get('limit');
    if (limitText !== null) {
      if (!/^-?\d+$/.test(limitText)) return error(400, 'invalid_limit', 'limit must be an integer from 1 to 100.');
      const value = BigInt(limitText);
      if (value < 1n || value > 100n) {
        if (options.outOfRangeLimit !== 'clamp') return error(400, 'invalid_limit', 'limit must be an integer from 1 to 100.');
        limit = value < 1n ? 1 : 100;
      } else {
        limit = Number(value);
      }
    }
    const status = query.get('status');
    if (status !== null && !(PET_STATUSES as readonly string[]).includes(status)) {
      return error(400, 'invalid_status', `status must be one of ${PET_STATUSES.join(', ')}.`);
    }
    const pets: StoredPet[] = [];
    if (options.pageCap !== undefined) limit = Math.min(limit, options.pageCap);
    for (const pet of store.values()) {
      if (pets.length >= limit) break;
      if (status === null || pet.status === status) pets.push(pet);
    }
    return json(200, pets.map(petBody));
  };

  const createPet = (request: ApiRequest): ApiResponse => {
    const media = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (media !== 'application/json') return error(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.');
    const text = decodeUtf8(request.body);
    if (text === undefined) return error(400, 'invalid_body', 'The body is not valid UTF-8.');
    let body: Json;
    try {
      body = parseJson(text);
    } catch {
      return error(400, 'invalid_body', 'The body is not valid JSON.');
    }
    if (!isJsonObject(body)) return error(400, 'invalid_body', 'The body must be a JSON object (NewPet).');
    if (!('name' in body) || !('categoryId' in body)) return error(400, 'missing_field', 'name and categoryId are required.');
    if (typeof body.name !== 'string') return error(400, 'invalid_field', 'name must be a string.');
    const categoryId = isLosslessNumber(body.categoryId) ? exactInteger(body.categoryId) : undefined;
    if (typeof categoryId !== 'bigint' || categoryId < INT64_MIN || categoryId > INT64_MAX)
      return error(400, 'invalid_field', 'categoryId must be an int64 integer.');
    if (options.printableNamesOnly && /[\u0000-\u001f\u007f]/.test(body.name))
      return error(400, 'invalid_field', 'name must not hold control characters.');
    const categories = options.categories;
    if (categories && (categoryId < categories.min || categoryId > categories.max))
      return error(400, 'unknown_category', `No category has id ${categoryId}.`);
    let status: PetStatus | undefined;
    if ('status' in body) {
      if (typeof body.status !== 'string' || !(PET_STATUSES as readonly string[]).includes(body.status)) {
        return error(400, 'invalid_field', `status must be one of ${PET_STATUSES.join(', ')}.`);
      }
      status = body.status as PetStatus;
    }
    status ??= options.defaultStatus;
    const pet = insert({ name: body.name, categoryId, ...(status ? { status } : {}) });
    return json(201, petBody(pet));
  };

  /** getPet is deprecated (Versioning 2): every answer says so (RFC 9745, RFC 8594, RFC 8288). */
  const signal = {
    deprecation: `@${GET_PET_DEPRECATED_AT}`,
    sunset: GET_PET_SUNSET.httpDate,
    link: `<${options.basePath ?? '/v1'}/pets>; rel="successor-version"`,
  };
  const getPet = (petIdText: string): ApiResponse => {
    const id = /^-?\d+$/.test(petIdText) ? BigInt(petIdText) : undefined;
    if (id === undefined || id < INT64_MIN || id > INT64_MAX)
      return error(400, 'invalid_pet_id', 'petId must be an int64 integer.', signal);
    const pet = store.get(id);
    if (!pet) return error(404, 'not_found', `No animal has id ${id}.`, signal);
    return json(200, petBody(pet), signal);
  };

  let served = 0;
  /** The batch job of `transition.everyRequests`: runs before every n-th request is answered. */
  const batchMove = () => {
    const move = options.transition;
    if (!move || !('everyRequests' in move) || ++served % move.everyRequests !== 0) return;
    for (const pet of store.values()) if (pet.status === move.from) pet.status = move.to;
  };

  const handler: Handler = (request) => {
    batchMove();
    const denied = authenticate(request.headers.authorization);
    if (denied) return denied;
    const slowDown = limited();
    if (slowDown) return slowDown;
    const { method, path } = request;
    if (path === '/pets') {
      if (method === 'GET') return listPets(request.query);
      if (method === 'POST') return createPet(request);
      return error(405, 'method_not_allowed', `${method} is not allowed on /pets.`, { allow: 'GET, POST' });
    }
    const petPath = /^\/pets\/([^/]+)$/.exec(path);
    if (petPath) {
      if (method !== 'GET') return error(405, 'method_not_allowed', `${method} is not allowed on /pets/{petId}.`, { allow: 'GET' });
      return getPet(petPath[1]!);
    }
    if (path === '/store/orders') {
      if (method !== 'GET') return error(405, 'method_not_allowed', `${method} is not allowed on /store/orders.`, { allow: 'GET' });
      if (options.ordersDown) return error(503, 'unavailable', 'The orders backend is down.', { 'retry-after': '120' });
      return json(200, []);
    }
    return error(404, 'not_found', `No resource at ${path}.`);
  };

  return { handler, store };
}

/** A stored animal as a Pet body: status only when it has one. */
export function petBody(pet: StoredPet): Record<string, unknown> {
  return { id: pet.id, name: pet.name, categoryId: pet.categoryId, ...(pet.status ? { status: pet.status } : {}) };
}
