/**
 * Checks applied to every response of the run, whichever check sent the request:
 * the rules the document states for all responses, and the headers HTTP
 * standards add.
 */
import { exactInteger, isJsonObject, isLosslessNumber, show } from '../../core/json.js';
import { httpDate } from '../../core/http-date.js';
import { GET_PET_SUNSET } from '../../spec/openapi.js';
import { describeViolations, validateSchema } from '../../spec/validate.js';
import { defineResponseCheck } from '../check.js';
import { bodyNotRead, describeResponse, jsonOf, petViolations } from '../judge.js';
import { isTemporary } from '../pacing.js';

/**
 * Endpoints › responses of each operation; Errors: no listed response is a
 * server error. GET /store/orders: "Its parameters, payloads and responses:
 * not shown", so its 5xx answers are observed, not judged. A 503 with
 * Retry-After is a temporary answer (suites/pacing.ts `isTemporary`, RFC 9110
 * §15.6.4 and §10.2.3): waited out and sent again, never a failure here; its
 * body is still an Error (ERROR-SCHEMA).
 */
export const noServerErrors = defineResponseCheck({
  id: 'responses.no-5xx',
  title: 'No listPets, createPet or getPet response has a 5xx status',
  rules: ['RESPONSE-NO-5XX'],
  gaps: ['GAP-ORDERS-RESPONSES'],
  inspect(x, a) {
    const status = x.response?.status;
    if (status === undefined) return;
    if (x.meta.operation === 'listStoreOrders') {
      if (status >= 500) a.observe('GAP-ORDERS-RESPONSES', 'listStoreOrders', `${status} (a server error; its responses are not shown)`, x);
      return;
    }
    if (isTemporary(x.response)) return;
    if (status >= 500)
      a.fail('RESPONSE-NO-5XX', { code: 'SERVER_ERROR', args: { received: describeResponse(x) } }, [x], `${x.meta.operation} ${status}`);
    else a.pass('RESPONSE-NO-5XX');
  },
});

/**
 * Errors: "All error responses use the JSON body Error (`code`, `message`,
 * `status`); `status` repeats the HTTP status code."
 */
export const errorBodies = defineResponseCheck({
  id: 'responses.error-body',
  title: 'Every 4xx/5xx response has an Error body whose status repeats the HTTP status',
  rules: ['ERROR-SCHEMA', 'ERROR-STATUS-MATCHES'],
  gaps: ['GAP-ERROR-CODES'],
  inspect(x, a) {
    const status = x.response?.status;
    if (status === undefined || status < 400 || bodyNotRead(a, ['ERROR-SCHEMA', 'ERROR-STATUS-MATCHES'], x, 'object')) return;
    const body = jsonOf(x);
    if (body === undefined) {
      a.fail('ERROR-SCHEMA', { code: 'ERROR_NOT_JSON', args: { status, received: describeResponse(x) } }, [x], `${status} not JSON`);
      return;
    }
    const violations = validateSchema('Error', body);
    if (violations.length > 0)
      a.fail(
        'ERROR-SCHEMA',
        { code: 'ERROR_BODY_INVALID', args: { status, body: show(body, 160), violations: describeViolations(violations) } },
        [x],
        `${status} ${violations.map((v) => v.path + v.message).join('|')}`,
      );
    else a.pass('ERROR-SCHEMA');
    if (isJsonObject(body) && typeof body.code === 'string')
      a.observe('GAP-ERROR-CODES', x.meta.operation, `${status}: code ${JSON.stringify(body.code)}`);
    if (isJsonObject(body) && isLosslessNumber(body.status)) {
      const repeated = exactInteger(body.status);
      if (repeated === BigInt(status)) a.pass('ERROR-STATUS-MATCHES');
      else
        a.fail(
          'ERROR-STATUS-MATCHES',
          { code: 'ERROR_STATUS_DIFFERS', args: { status, received: body.status.value } },
          [x],
          `${status} vs ${body.status.value}`,
        );
    } else if (isJsonObject(body) && body.status !== undefined) {
      a.inconclusive('ERROR-STATUS-MATCHES', { code: 'ERROR_STATUS_NOT_A_NUMBER', args: { status, received: show(body.status, 80) } }, [x]);
    }
  },
});

/** @see RFC 8259 §11 (application/json), RFC 9110 §8.3 (Content-Type). */
export const jsonContentType = defineResponseCheck({
  id: 'responses.content-type',
  title: 'JSON bodies are labelled application/json',
  rules: ['RESPONSE-CONTENT-TYPE-JSON'],
  inspect(x, a) {
    if (!x.response) return;
    const type = x.response.headers['content-type'];
    const media = type?.split(';')[0]?.trim().toLowerCase();
    // A body not read to its end may or may not be JSON: only the JSON label is right for it either way.
    if (x.response.truncated && media === 'application/json') return a.pass('RESPONSE-CONTENT-TYPE-JSON');
    if (bodyNotRead(a, ['RESPONSE-CONTENT-TYPE-JSON'], x, 'json') || jsonOf(x) === undefined) return;
    if (media === 'application/json') a.pass('RESPONSE-CONTENT-TYPE-JSON');
    else
      a.fail(
        'RESPONSE-CONTENT-TYPE-JSON',
        { code: 'NOT_LABELLED_JSON', args: type === undefined ? {} : { contentType: type } },
        [x],
        `${x.meta.operation} ${media ?? 'none'}`,
      );
  },
});

/** Resources and their fields › Pet: every Pet the service returns. */
export const petBodies = defineResponseCheck({
  id: 'responses.pet-schema',
  title: 'Every Pet in a listPets, createPet or getPet answer is valid',
  rules: ['PET-SCHEMA'],
  inspect(x, a) {
    const { operation } = x.meta;
    const status = x.response?.status;
    const carriesPets =
      (operation === 'listPets' && status === 200) ||
      (operation === 'createPet' && status === 201) ||
      (operation === 'getPet' && status === 200);
    if (!carriesPets || bodyNotRead(a, ['PET-SCHEMA'], x, operation === 'listPets' ? 'array' : 'object')) return;
    const body = jsonOf(x);
    if (body === undefined) return; // the operation's own rule reports a missing body
    const pets = operation === 'listPets' ? (Array.isArray(body) ? body : []) : [body];
    for (const [index, item] of pets.entries()) {
      const where = operation === 'listPets' ? { item: index } : {};
      if (isJsonObject(item) && item.status === null) {
        // status is "string, enum PetStatus", not required: an absent status is an omitted field.
        a.fail('PET-SCHEMA', { code: 'PET_STATUS_NULL', args: { ...where, body: show(item, 160) } }, [x], `${operation} status null`);
        continue;
      }
      const violations = petViolations(item);
      if (violations.length > 0)
        a.fail(
          'PET-SCHEMA',
          { code: 'NOT_A_PET', args: { ...where, body: show(item, 160), violations: describeViolations(violations) } },
          [x],
          `${operation} ${violations.map((v) => v.path.replace(/^\/\d+/, '/*') + v.message.replace(/got .*/, '')).join('|')}`,
        );
      else a.pass('PET-SCHEMA');
    }
  },
});

/** Limits: "`limit` query parameter maximum 100": whatever the query, no list holds more than 100 animals. */
export const listMaximum = defineResponseCheck({
  id: 'responses.list-maximum',
  title: 'No listPets answer holds more than 100 animals',
  rules: ['LIST-LIMIT-BOUNDS'],
  inspect(x, a) {
    if (x.meta.operation !== 'listPets' || x.response?.status !== 200 || bodyNotRead(a, ['LIST-LIMIT-BOUNDS'], x, 'array')) return;
    const body = jsonOf(x);
    if (!Array.isArray(body)) return; // LIST-RESPONSE's business
    const query = new URL(x.request.url).search || '(no query)';
    if (body.length > 100)
      a.fail(
        'LIST-LIMIT-BOUNDS',
        { code: 'TOO_MANY_ANIMALS', args: { bound: 'maximum', max: 100, query, count: body.length } },
        [x],
        `over 100 for ${query}`,
      );
    else a.pass('LIST-LIMIT-BOUNDS');
  },
});

/** Authentication, item 1: the key in the documented form is accepted. */
export const validKeyAccepted = defineResponseCheck({
  id: 'responses.valid-key-accepted',
  title: 'No request with the key as a bearer token is answered 401',
  rules: ['AUTH-VALID-KEY'],
  inspect(x, a) {
    if (x.meta.auth !== 'valid' || !x.response) return;
    if (x.response.status === 401)
      a.fail(
        'AUTH-VALID-KEY',
        { code: 'NOT_ACCEPTED', args: { request: 'the key sent as "Authorization: Bearer <key>"', received: describeResponse(x) } },
        [x],
        `${x.meta.operation} 401`,
      );
    else a.pass('AUTH-VALID-KEY');
  },
});

/**
 * @see RFC 6750 §3: a 401 carries `WWW-Authenticate: Bearer`; with
 * error="invalid_token" when a non-empty token was sent but refused (§3.1).
 * Without credentials, under another scheme or with an empty token the error
 * code is the server's choice within §3.1 (none, or invalid_request), so it is
 * not judged there.
 */
export const bearerChallenge = defineResponseCheck({
  id: 'responses.bearer-challenge',
  title: '401 responses carry a Bearer challenge',
  rules: ['AUTH-CHALLENGE'],
  inspect(x, a) {
    if (x.response?.status !== 401) return;
    const header = x.response.headers['www-authenticate'];
    const bearer = header === undefined ? undefined : /(?:^|,)\s*bearer(?=$|[\s,])(.*)$/i.exec(header);
    if (!bearer) {
      a.fail('AUTH-CHALLENGE', { code: 'NO_BEARER_CHALLENGE', args: header === undefined ? {} : { header } }, [x], `no bearer challenge`);
      return;
    }
    const error = /(?:^|[\s,])error\s*=\s*"?([A-Za-z_]+)"?/.exec(bearer[1] ?? '')?.[1];
    if (x.meta.auth === 'invalid-token' && error !== 'invalid_token' && error !== 'invalid_request') {
      a.fail('AUTH-CHALLENGE', { code: 'NO_INVALID_TOKEN', args: { header: header! } }, [x], 'no invalid_token');
    } else {
      a.pass('AUTH-CHALLENGE');
    }
  },
});

/** The Deprecation value RFC 9745 §2.1 defines: a structured-field date, `@<seconds>`. */
const DEPRECATION_DATE = /^@(-?\d{1,15})$/;

/**
 * Versioning, item 2: getPet is deprecated, removed on 5 December 2030, replaced
 * by GET /pets.
 * @see RFC 9745 (Deprecation), RFC 8594 (Sunset), RFC 8288 (Link)
 */
export const deprecationHeaders = defineResponseCheck({
  id: 'responses.get-pet-deprecation',
  title: 'getPet answers announce the deprecation, the sunset and the replacement',
  rules: ['GET-DEPRECATION-HEADER', 'GET-SUNSET-HEADER', 'GET-SUCCESSOR-LINK'],
  inspect(x, a) {
    if (x.meta.operation !== 'getPet' || x.response?.status !== 200) return;
    const { headers } = x.response;
    const deprecation = headers['deprecation']?.trim();
    const date = deprecation === undefined ? undefined : DEPRECATION_DATE.exec(deprecation);
    if (date && Number(date[1]) <= GET_PET_SUNSET.unixSeconds) a.pass('GET-DEPRECATION-HEADER');
    else {
      const problem =
        deprecation === undefined ? 'missing' : deprecation.toLowerCase() === 'true' ? 'draft' : date ? 'after-sunset' : 'malformed';
      a.fail(
        'GET-DEPRECATION-HEADER',
        {
          code: 'NO_DEPRECATION',
          args: { sunset: GET_PET_SUNSET.unixSeconds, problem, ...(deprecation === undefined ? {} : { header: deprecation }) },
        },
        [x],
        deprecation === undefined ? 'no Deprecation header' : 'Deprecation',
      );
    }
    const sunset = headers['sunset'];
    if (sunset !== undefined && httpDate(sunset) === GET_PET_SUNSET.unixSeconds * 1000) a.pass('GET-SUNSET-HEADER');
    else
      a.fail(
        'GET-SUNSET-HEADER',
        { code: 'NO_SUNSET', args: { date: GET_PET_SUNSET.httpDate, ...(sunset === undefined ? {} : { header: sunset }) } },
        [x],
        sunset === undefined ? 'missing' : 'other date',
      );
    const link = headers['link'];
    if (link !== undefined && linksToReplacement(link, x.request.url)) a.pass('GET-SUCCESSOR-LINK');
    else
      a.fail(
        'GET-SUCCESSOR-LINK',
        { code: 'NO_SUCCESSOR_LINK', args: link === undefined ? {} : { header: link } },
        [x],
        link === undefined ? 'missing' : 'no successor',
      );
  },
});

/** Relations that point to a replacement (RFC 5829 §3; the link relation registry's `alternate`). */
const REPLACEMENT_RELATIONS = ['successor-version', 'latest-version', 'alternate'];

/**
 * True when a Link header (RFC 8288) points to the replacement: a
 * successor-version, latest-version or alternate link whose path ends in
 * /pets, or a `deprecation` link (RFC 9745) to information about the
 * deprecation, wherever it points.
 */
export function linksToReplacement(header: string, requestUrl: string): boolean {
  for (const entry of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(entry);
    if (!match) continue;
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(match[2] ?? '');
    const rels = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (rels.includes('deprecation')) return true;
    if (!rels.some((r) => REPLACEMENT_RELATIONS.includes(r))) continue;
    try {
      if (new URL(match[1] ?? '', requestUrl).pathname.replace(/\/+$/, '').endsWith('/pets')) return true;
    } catch {
      continue;
    }
  }
  return false;
}

/** Versioning, items 2 and 3: only getPet is deprecated. @see RFC 9745 §2, RFC 8594 §3 */
export const noDeprecationElsewhere = defineResponseCheck({
  id: 'responses.no-deprecation-elsewhere',
  title: 'Operations that are not deprecated carry no Deprecation or Sunset header',
  rules: ['DEPRECATION-ONLY-DEPRECATED'],
  inspect(x, a) {
    if (x.meta.operation === 'getPet' || !x.response) return;
    const found = ['deprecation', 'sunset'].filter((h) => x.response?.headers[h] !== undefined);
    if (found.length === 0) a.pass('DEPRECATION-ONLY-DEPRECATED');
    else
      a.fail(
        'DEPRECATION-ONLY-DEPRECATED',
        {
          code: 'DEPRECATION_ELSEWHERE',
          args: { operation: x.meta.operation, headers: found.map((h) => `${h}: ${x.response?.headers[h]}`) },
        },
        [x],
        `${x.meta.operation} ${found.join(',')}`,
      );
  },
});

export const responseChecks = [
  noServerErrors,
  errorBodies,
  jsonContentType,
  petBodies,
  listMaximum,
  validKeyAccepted,
  bearerChallenge,
  deprecationHeaders,
  noDeprecationElsewhere,
] as const;
