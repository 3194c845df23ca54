/**
 * The rules of the catalog (spec/rules.ts) that hold across operations:
 * authentication, error responses, deprecation and the media type.
 */
import { rule, type RuleDefinition } from './definition.js';

/** The authentication, error, deprecation and media-type rules, in catalog order. */
export const protocolRules = [
  rule({
    id: 'AUTH-VALID-KEY',
    title: 'The API key sent as a bearer token is accepted by every operation',
    severity: 'MUST',
    group: 'auth',
    section: 'Authentication, item 1',
    statement:
      'The client sends its API key as a bearer token in the `Authorization` header, in the form `Authorization: Bearer <API_KEY>`.',
    interpretation: 'No request carrying the key in that form is answered 401.',
  }),
  rule({
    id: 'AUTH-REQUIRED',
    title: 'Without a key every operation answers 401',
    severity: 'MUST',
    group: 'auth',
    section: 'Authentication, items 2 and 3; Endpoints',
    statement: 'The scheme applies to every operation. When the key is missing or invalid, the response is 401 with an Error body.',
    interpretation: 'listPets, createPet, getPet (of an existing animal) and GET /store/orders, with no Authorization header.',
  }),
  rule({
    id: 'AUTH-INVALID-KEY',
    title: 'With a wrong key every operation answers 401',
    severity: 'MUST',
    group: 'auth',
    section: 'Authentication, item 3',
    statement: 'When the key is missing or invalid, the response is 401 with an Error body.',
    interpretation:
      'A random token, the key with a character added or removed, the key with its letter case swapped, and an empty token, on every operation.',
  }),
  rule({
    id: 'AUTH-SCHEME',
    title: 'The key under any other scheme than Bearer is answered 401',
    severity: 'MUST',
    group: 'auth',
    section: 'Authentication, item 1',
    statement: 'Scheme: HTTP bearer (`bearerAuth`) … in the form `Authorization: Bearer <API_KEY>`.',
    interpretation:
      'The right key sent as Basic credentials, under a `Token` scheme, bare without a scheme, or glued to `Bearer` without a space.',
  }),
  rule({
    id: 'ERROR-SCHEMA',
    title: 'Every error response has an Error body',
    severity: 'MUST',
    group: 'errors',
    section: 'Errors; Resources and their fields › Error',
    statement:
      'All error responses use the JSON body Error (`code`, `message`, `status`). code string, message string, status integer — all required.',
    interpretation:
      'Every 4xx and 5xx response the suite receives, including the ones to requests whose handling is not shown, temporary answers (429, and 503 with Retry-After) waited out before the request was sent again, the 5xx of GET /store/orders, and, under load, every 4xx/5xx answer, shed ones (429, 503, 504) included.',
  }),
  rule({
    id: 'ERROR-STATUS-MATCHES',
    title: 'Error.status repeats the HTTP status code',
    severity: 'MUST',
    group: 'errors',
    section: 'Errors; Resources and their fields › Error (status)',
    statement: '`status` repeats the HTTP status code.',
  }),
  rule({
    id: 'RESPONSE-NO-5XX',
    title: 'No request is answered with a 5xx status',
    severity: 'MUST',
    group: 'errors',
    section: 'Endpoints (responses of each operation); Errors',
    statement: 'The responses of each operation are 200/201, 400, 401 and 404 as listed; the Errors table lists 400, 401 and 404 only.',
    interpretation:
      'Whatever the request to listPets, createPet or getPet, including those whose handling is not shown: a server error is never one of the listed responses. A 503 that carries Retry-After is a temporary answer, not judged here (RFC 9110 §15.6.4: "a temporary overload or scheduled maintenance, which will likely be alleviated after some delay"; §10.2.3: "When sent with a 503 (Service Unavailable) response, Retry-After indicates how long the service is expected to be unavailable"): it is waited out within the wait budget and the request sent again; a 503 without Retry-After fails. Under load, 503 and 504 are load shedding, measured by the thresholds. GET /store/orders is not judged here: its responses are not shown (observed as GAP-ORDERS-RESPONSES).',
  }),
  rule({
    id: 'GET-DEPRECATION-HEADER',
    title: 'getPet responses carry a Deprecation header',
    severity: 'SHOULD',
    group: 'deprecation',
    section: 'Versioning, item 2',
    statement: '`GET /pets/{petId}` is deprecated and is to be removed on 5 December 2030.',
    interpretation:
      'On 200 responses: `Deprecation: @<unix-seconds>` (RFC 9745), not later than the sunset. The draft form `Deprecation: true` predates the RFC and is a warning.',
    references: ['RFC 9745 §2'],
  }),
  rule({
    id: 'GET-SUNSET-HEADER',
    title: 'getPet responses carry Sunset: Thu, 05 Dec 2030 00:00:00 GMT',
    severity: 'SHOULD',
    group: 'deprecation',
    section: 'Versioning, item 2',
    statement: 'is to be removed on 5 December 2030.',
    references: ['RFC 8594 §3'],
  }),
  rule({
    id: 'GET-SUCCESSOR-LINK',
    title: 'getPet responses link to their replacement, GET /pets',
    severity: 'SHOULD',
    group: 'deprecation',
    section: 'Versioning, item 2',
    statement: 'Its replacement is `GET /pets` with the `status` filter.',
    interpretation:
      'A Link header (RFC 8288) that points to the replacement, with rel="successor-version" or "latest-version" (RFC 5829 §3: "this link points to a resource containing the successor version", "… the latest (e.g., current) version") or "alternate" (link relation registry), whose target path ends in /pets; or a rel="deprecation" link (RFC 9745: "the deprecation link relation can be used to link to a resource that provides further information about planned or existing deprecation"), whatever its target.',
    references: ['RFC 8288 §3', 'RFC 5829 §3', 'RFC 9745 §3'],
  }),
  rule({
    id: 'DEPRECATION-ONLY-DEPRECATED',
    title: 'Operations that are not deprecated carry no deprecation signal',
    severity: 'SHOULD',
    group: 'deprecation',
    section: 'Versioning, items 2 and 3',
    statement: 'Only `GET /pets/{petId}` is deprecated.',
    interpretation: 'listPets and createPet responses carry neither Deprecation nor Sunset.',
    references: ['RFC 9745 §2', 'RFC 8594 §3'],
  }),
  rule({
    id: 'AUTH-CHALLENGE',
    title: '401 responses carry a Bearer challenge',
    severity: 'SHOULD',
    group: 'auth',
    section: 'Authentication, item 3',
    statement: 'When the key is missing or invalid, the response is 401.',
    interpretation:
      'Every 401 carries `WWW-Authenticate: Bearer …` (RFC 6750 §3: "the resource server MUST include the HTTP \"WWW-Authenticate\" response header field"). When a non-empty bearer token was sent and refused, the challenge should carry error="invalid_token" (§3.1: "The access token provided is expired, revoked, malformed, or invalid for other reasons"; invalid_request is accepted too). For no credentials, another scheme, or `Bearer ` with an empty token, the error code is not judged (§3.1: "If the request lacks any authentication information (e.g., the client was unaware that authentication is necessary or attempted using an unsupported authentication method), the resource server SHOULD NOT include an error code or other error information"; a malformed request may get invalid_request).',
    references: ['RFC 6750 §3, §3.1', 'RFC 9110 §11.6.1'],
  }),
  rule({
    id: 'AUTH-SCHEME-CASE',
    title: 'The Bearer scheme name is matched case-insensitively',
    severity: 'SHOULD',
    group: 'auth',
    section: 'Authentication, item 1',
    statement: 'Scheme: HTTP bearer.',
    interpretation: '`bearer <key>` and `BEARER <key>` are accepted.',
    references: ['RFC 9110 §11.1'],
  }),
  rule({
    id: 'AUTH-BEFORE-VALIDATION',
    title: 'Authentication is checked before the request is validated',
    severity: 'MUST',
    group: 'auth',
    section: 'Authentication, items 2 and 3',
    statement: 'The scheme applies to every operation. When the key is missing or invalid, the response is 401 with an Error body.',
    interpretation:
      'The rule is unconditional: whatever else is wrong with the request. Every kind of invalid input (each kind of invalid create body, a bad limit, a bad status filter, an unknown or malformed petId) sent without a key, with a wrong key and under another scheme, on every operation, is answered 401; a 400, 404 or 422 there fails.',
  }),
  rule({
    id: 'CLIENT-INDEPENDENT',
    title: 'Every client gets the same answers: only the API key tells clients apart',
    severity: 'MUST',
    group: 'auth',
    section: 'What the service does; Authentication, items 1 and 2',
    statement:
      'Clients can: 1. list animals … 2. add an animal … 3. fetch one animal by its identifier … The client sends its API key as a bearer token in the `Authorization` header, in the form `Authorization: Bearer <API_KEY>`. The scheme applies to every operation.',
    interpretation:
      "The operations are offered to clients without distinction, and the document tells clients apart by their API key alone: a request answered differently when sent by another ordinary client (its User-Agent, its headers, their order and casing, its connection habit) breaks it. Run when the run speaks as two client fingerprints or more (certification speaks as all of them): before anything else, one request of each kind (listPets with and without the key, a valid and an invalid createPet, getPet of that animal and of an id no animal has, GET /store/orders without the key) is sent paced, each as another client, and compared with the run's first answer of its kind; during the run a sample of the run's requests, drawn from the seed (every operation, success and error, with and without the key), is sent again right after under each other client, on a new connection. Compared: the status, the media type of Content-Type, the challenge's scheme on a 401, the presence of Deprecation, Sunset (and Link on getPet), and the body once what the document explains is masked: a new id for a createPet sent again, a status that moved (GAP-STATUS-TRANSITIONS), an Error's message, and a listing that grew (the store only grows: a later page holds at least as many animals as the earlier, up to its limit, and an animal on both is the same apart from its status).",
  }),
  rule({
    id: 'RESPONSE-CONTENT-TYPE-JSON',
    title: 'JSON bodies are labelled Content-Type: application/json',
    severity: 'SHOULD',
    group: 'errors',
    section: 'Data is exchanged as JSON over HTTP (introduction)',
    statement: 'Data is exchanged as JSON over HTTP.',
    interpretation: 'Media type application/json, any parameters (charset) and any letter case.',
    references: ['RFC 8259 §11', 'RFC 9110 §8.3'],
  }),
] as const satisfies readonly RuleDefinition[];
