/**
 * Two answers to one request (or to two requests of one kind) compared the way
 * the differential probe (suites/probe.ts) compares them across client
 * fingerprints: the status, the headers the rules read, and the body once what
 * legitimately differs is masked. Pure: no socket, no clock.
 *
 * What the document explains, so is masked:
 * - a createPet sent again creates another animal: its `id` is new;
 * - an animal's status may move ("Transitions: not shown", GAP-STATUS-TRANSITIONS);
 * - an Error's `message` is free text (only its `code` and `status` are compared);
 * - the store only grows (there is no delete operation), so a later listing of
 *   the same query may hold more animals, never fewer than the earlier one
 *   held (up to its limit), and an animal on both is the same apart from its status.
 */
import { exactInteger, isJsonObject, isLosslessNumber, type Json } from '../core/json.js';
import { show } from '../core/json.js';
import type { OperationId } from '../result/model.js';

/** The default page size (Endpoints › listPets: "`limit` default 20"). */
const DEFAULT_LIMIT = 20;

/** What the comparison reads of one answer. */
export interface AnswerView {
  status: number;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string>>;
  /** The parsed body, when it is complete, well-formed JSON. */
  json?: Json;
  /** The body was read and parsed whole (false: longer than the read bound, or past the parse bound): it is not compared. */
  whole: boolean;
  /** The body is empty. */
  empty: boolean;
}

/**
 * How the two answers are paired: `same-request`, one request sent twice
 * (the probe's re-sends, a prelude request the run sent again); `same-class`,
 * two requests of one kind (a prelude request and the run's first of its
 * kind), whose bodies differ by construction, so only the shape of the body is compared.
 */
export type Pairing = 'same-request' | 'same-class';

/** What the comparison needs to know of the request. */
export interface CompareContext {
  operation: OperationId;
  pairing: Pairing;
  /** The listing's `limit` (default 20), for a listPets request. */
  limit?: number;
}

/**
 * The differences the document does not explain between `earlier` and
 * `later` (answered in that order), each in a few words (`status 500, then
 * 200`); empty when they agree. Server text goes in as excerpts
 * (core/json.ts `show`), redacted when a finding is.
 */
export function answerDifferences(earlier: AnswerView, later: AnswerView, context: CompareContext): string[] {
  const out: string[] = [];
  if (earlier.status !== later.status) out.push(`status ${earlier.status}, then ${later.status}`);
  out.push(...headerDifferences(earlier, later, context.operation));
  // Bodies of different statuses differ by construction; one read in part cannot be compared.
  if (earlier.status !== later.status || !earlier.whole || !later.whole) return out;
  const [a, b] = [kindOf(earlier), kindOf(later)];
  if (a !== b) {
    out.push(`body ${a}, then ${b}`);
    return out;
  }
  if (context.pairing === 'same-class' || earlier.json === undefined || later.json === undefined) return out;
  out.push(...bodyDifferences(earlier.json, later.json, earlier.status, context));
  return out;
}

/** Media type of a Content-Type value, lower case, without parameters. */
export function mediaType(value: string | undefined): string | undefined {
  return value?.split(';')[0]!.trim().toLowerCase();
}

/** The auth-scheme of a WWW-Authenticate challenge, lower case (RFC 9110 §11.6.1: case-insensitive). */
export function challengeScheme(value: string | undefined): string | undefined {
  return value?.trim().split(/[\s,]/)[0]?.toLowerCase();
}

/** The headers rules judge: Content-Type (its media type), the challenge on a 401, the deprecation signals (RFC 9745, RFC 8594). */
function headerDifferences(earlier: AnswerView, later: AnswerView, operation: OperationId): string[] {
  const out: string[] = [];
  const differ = (what: string, pick: (a: AnswerView) => string | undefined) => {
    const [a, b] = [pick(earlier), pick(later)];
    if (a !== b) out.push(`${what} ${a ?? 'absent'}, then ${b ?? 'absent'}`);
  };
  const present = (name: string) => (a: AnswerView) => (a.headers[name] === undefined ? undefined : 'present');
  if (!earlier.empty || !later.empty) differ('Content-Type', (a) => mediaType(a.headers['content-type']));
  if (earlier.status === 401 && later.status === 401)
    differ('WWW-Authenticate scheme', (a) => challengeScheme(a.headers['www-authenticate']));
  differ('Deprecation header', present('deprecation'));
  differ('Sunset header', present('sunset'));
  if (operation === 'getPet') differ('Link header', present('link'));
  return out;
}

type BodyKind = 'empty' | 'a JSON array' | 'a JSON object' | 'other JSON' | 'not JSON';

function kindOf(answer: AnswerView): BodyKind {
  if (answer.empty) return 'empty';
  const json = answer.json;
  if (json === undefined) return 'not JSON';
  if (Array.isArray(json)) return 'a JSON array';
  return isJsonObject(json) ? 'a JSON object' : 'other JSON';
}

function bodyDifferences(a: Json, b: Json, status: number, context: CompareContext): string[] {
  if (status >= 400) return errorDifferences(a, b);
  if (context.operation === 'listPets' && Array.isArray(a) && Array.isArray(b))
    return listingDifferences(a, b, context.limit ?? DEFAULT_LIMIT);
  if (context.operation === 'createPet' || context.operation === 'getPet')
    return petDifferences(a, b, context.operation === 'createPet' ? ['id', 'status'] : ['status']);
  // GET /store/orders: "Its parameters, payloads and responses: not shown"; the kind of body was compared.
  return [];
}

/** An Error's `code` and `status`; its `message` is free text. */
function errorDifferences(a: Json, b: Json): string[] {
  if (!isJsonObject(a) || !isJsonObject(b)) return [];
  return (['code', 'status'] as const)
    .filter((name) => !sameJson(a[name], b[name]))
    .map((name) => `Error ${name} ${showMember(a[name])}, then ${showMember(b[name])}`);
}

/** Two animals, member by member, `masked` members left out (a new id, a status that moved). */
function petDifferences(a: Json, b: Json, masked: readonly string[], label = 'animal'): string[] {
  if (!isJsonObject(a) || !isJsonObject(b)) return sameJson(a, b) ? [] : [`${label} ${show(a, 80)}, then ${show(b, 80)}`];
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((name) => !masked.includes(name));
  // A status may move, but only to another PetStatus: its presence is still compared.
  if (masked.includes('status') && (a.status === undefined) !== (b.status === undefined)) names.push('status');
  return names
    .filter((name) => !sameJson(a[name], b[name]))
    .map((name) => `${label} ${name} ${showMember(a[name])}, then ${showMember(b[name])}`);
}

/**
 * A later page of the same query holds at least as many animals as the
 * earlier (up to the limit: a full earlier page may be followed by another
 * full page of other animals), and an animal on both carries the same fields
 * apart from its status.
 */
function listingDifferences(a: readonly Json[], b: readonly Json[], limit: number): string[] {
  const out: string[] = [];
  const least = Math.min(a.length, limit);
  if (b.length < least) out.push(`a listing of ${a.length} animals, then ${b.length} (the store only grows: at least ${least} expected)`);
  const later = new Map<string, Json>();
  for (const item of b) {
    const id = idOf(item);
    if (id !== undefined) later.set(id, item);
  }
  for (const item of a) {
    const id = idOf(item);
    const again = id === undefined ? undefined : later.get(id);
    if (again !== undefined) out.push(...petDifferences(item, again, ['status'], `animal ${id}`));
  }
  return out;
}

function idOf(item: Json): string | undefined {
  if (!isJsonObject(item) || !isLosslessNumber(item.id)) return undefined;
  const n = exactInteger(item.id);
  return typeof n === 'bigint' ? n.toString() : item.id.value;
}

function showMember(value: Json | undefined): string {
  return value === undefined ? 'absent' : show(value, 80);
}

/** Deep equality of parsed JSON, numbers by their exact value (`1.0` and `1` are one number), object members in any order. */
export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (isLosslessNumber(a) || isLosslessNumber(b)) {
    if (!isLosslessNumber(a) || !isLosslessNumber(b)) return false;
    const [x, y] = [exactInteger(a), exactInteger(b)];
    return x !== undefined && x !== 'huge' && y !== undefined && y !== 'huge'
      ? x === y
      : Number(a.value) === Number(b.value) && (a.value === b.value || Number.isFinite(Number(a.value)));
  }
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (isJsonObject(a) || isJsonObject(b)) {
    if (!isJsonObject(a) || !isJsonObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]));
  }
  return a === b;
}
