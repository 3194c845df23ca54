/**
 * The rule catalog: every rule the interface document states, as typed data.
 * Checks name rules by id; the id is also the `--only`/`--skip` value, the
 * report key, the JUnit testcase name and the RULES.md heading.
 *
 * Severity:
 * - MUST: what the document states. One failure makes the run non-conformant.
 * - SHOULD: what HTTP standards add to the document. A failure is a warning;
 *   `--strict` makes warnings fail the run.
 */

export type Severity = 'MUST' | 'SHOULD';

/** Rule groups, in report order. */
export const RULE_GROUPS = ['resources', 'listPets', 'createPet', 'getPet', 'storeOrders', 'auth', 'errors', 'deprecation'] as const;
export type RuleGroup = (typeof RULE_GROUPS)[number];

export interface RuleDefinition {
  id: string;
  title: string;
  severity: Severity;
  group: RuleGroup;
  /** Section of the interface document, as its headings read (`Endpoints › listPets`). */
  section: string;
  /** The sentence or table row the rule comes from, quoted. */
  statement: string;
  /** How the document's words become a check, where that needs saying. */
  interpretation?: string;
  /** Standards a SHOULD rule rests on. */
  references?: readonly string[];
}

const rule = <const R extends RuleDefinition>(r: R): R => r;

export const rules = [
  rule({
    id: 'PET-SCHEMA',
    title: 'Every animal returned is a valid Pet',
    severity: 'MUST',
    group: 'resources',
    section: 'Resources and their fields › Pet, PetStatus',
    statement: 'Pet: all fields of NewPet (name string, categoryId integer int64, status PetStatus, not required), plus id integer int64, required. PetStatus: exactly available, pending, sold.',
    interpretation: 'Checked on every Pet in listPets, createPet and getPet responses; int64 ranges on the exact digits. status is "string, enum PetStatus" and not required: an absent status is an omitted field, so `"status": null` is not a Pet (omit the field instead).',
  }),
  rule({
    id: 'LIST-RESPONSE',
    title: 'listPets answers 200 with a JSON array (Pets)',
    severity: 'MUST',
    group: 'listPets',
    section: 'Endpoints › listPets: GET /pets',
    statement: 'Responses: 200 — JSON array of Pet (Pets).',
    interpretation: 'For every valid request (limit 1..100 or absent, status a PetStatus or absent) with the key: a 200 whose body is empty, not JSON or not an array fails; a body longer than the read bound fails when what was read cannot begin an array, and is otherwise inconclusive (sizes are not shown). A listed animal the suite created carries its name and categoryId as created; its status may have moved to another PetStatus since (transitions are not shown: observed as GAP-STATUS-TRANSITIONS). Lists sent while creates are in flight are judged too: every animal shown is a Pet with its id (the new ones may be shown or not yet; no read-after-write order is stated).',
  }),
  rule({
    id: 'LIST-LIMIT-DEFAULT',
    title: 'Without limit, at most 20 animals are returned',
    severity: 'MUST',
    group: 'listPets',
    section: 'Endpoints › listPets, rule 1; Limits',
    statement: 'When `limit` is absent, at most 20 animals are returned. (`limit` default 20.)',
  }),
  rule({
    id: 'LIST-LIMIT-HONOURED',
    title: 'With limit n (1..100), at most n animals are returned',
    severity: 'MUST',
    group: 'listPets',
    section: 'Endpoints › listPets: GET /pets (query parameter limit)',
    statement: 'limit: Maximum number of animals to return.',
  }),
  rule({
    id: 'LIST-LIMIT-BOUNDS',
    title: 'limit 1 and 100 are accepted; no list ever holds more than 100 animals',
    severity: 'MUST',
    group: 'listPets',
    section: 'Endpoints › listPets (limit: minimum 1, maximum 100); Limits',
    statement: '`limit` query parameter minimum 1, maximum 100.',
    interpretation: 'limit=1 and limit=100 are within the constraints and answered 200. Outside them the answer is not shown (a 400 Error and a clamped 200 list are both accepted and recorded as observations), but a 200 list never holds more than 100 animals.',
  }),
  rule({
    id: 'LIST-PAGE-FULL',
    title: 'A page is full when the store holds enough matching animals',
    severity: 'SHOULD',
    group: 'listPets',
    section: 'What the service does, item 1; Endpoints › listPets',
    statement: 'list animals, with a page-size limit … Returns a paginated list of animals. limit: Maximum number of animals to return.',
    interpretation: 'The document bounds a page from above only ("at most", "Maximum number"), so a shorter page is no MUST failure; but a page-size limit reads as the size of a page. When the store provably holds at least n matching animals (distinct ids seen and created; for a status filter, animals whose status was read back as that status just before), a request with limit n (default 20) should return n of them. A status-filtered page that comes back short is re-read first: animals that moved to another status no longer count.',
  }),
  rule({
    id: 'LIST-STATUS-FILTER',
    title: 'With status, only animals with that status are returned',
    severity: 'MUST',
    group: 'listPets',
    section: 'Endpoints › listPets, rule 2; States and transitions',
    statement: 'When `status` is given, only animals with that status are returned.',
  }),
  rule({
    id: 'LIST-STATUS-COMPLETE',
    title: 'The status filter does not drop matching animals',
    severity: 'MUST',
    group: 'listPets',
    section: 'Endpoints › listPets, rule 2; States and transitions',
    statement: 'The `status` query filter of the list operation selects animals by these values.',
    interpretation: 'An animal created with status s appears in GET /pets?status=s&limit=100 whenever that page is not full. When it is full (the store holds 100 or more such animals), the suite cannot tell and says inconclusive. An animal missing from the list is fetched again first: if its status changed (transitions are not shown), it no longer has to be listed under s (an observation, GAP-STATUS-TRANSITIONS). No read-after-write guarantee is stated: an animal left out within the visibility window after its 201 (2 s by default), never seen before the page was sent, is waited for and the page asked for again (GAP-READ-AFTER-WRITE).',
  }),
  rule({
    id: 'CREATE-RESPONSE',
    title: 'createPet answers 201 with the created Pet for a valid NewPet',
    severity: 'MUST',
    group: 'createPet',
    section: 'Endpoints › createPet: POST /pets',
    statement: 'Responses: 201 — Pet (the created animal, including the assigned id).',
    interpretation: 'Valid bodies use names of at most 32 code points (maximum lengths are not shown, so longer names are only observed) and any int64 categoryId. The 201 body must be a Pet in JSON: empty, not JSON or cut at the read bound fails. Two refusals are legitimate, because the document leaves them open, and are observed, not failed: a 400 Error for a name holding characters outside ordinary printable text (controls, format characters, noncharacters, unassigned code points, surrounding whitespace; GAP-NAME-REPERTOIRE), and a 400 Error for a categoryId whose category record the target does not have (GAP-CATEGORY-RECORDS). The suite proves either by sending the same body again with an ordinary name and a categoryId the target accepted before: if that is created, the refusal stands as an observation; if it is refused too, CREATE-RESPONSE fails. Refusing a short name of ordinary printable characters of any script fails.',
  }),
  rule({
    id: 'CREATE-ECHO',
    title: 'The created Pet carries exactly the name, categoryId and status sent',
    severity: 'MUST',
    group: 'createPet',
    section: 'Resources and their fields › Pet',
    statement: 'Pet: all fields of NewPet, plus id.',
    interpretation: 'name compared code unit for code unit, categoryId digit for digit (int64 beyond 2^53 included), status when one was sent. An omitted status may come back as any PetStatus or absent (default not shown). A name returned in another Unicode normalisation form of the same text (canonically equivalent, NFC/NFD) is an observation (GAP-NAME-NORMALISATION); any other difference fails, and the message shows the differing code points. Where the target refuses every categoryId beyond 2^53 as an unknown category, the exact echo of such ids is inconclusive.',
  }),
  rule({
    id: 'CREATE-ID-UNIQUE',
    title: 'Each created animal gets an id no other animal has',
    severity: 'MUST',
    group: 'createPet',
    section: 'Resources and their fields › Pet (id)',
    statement: 'id: Unique identifier assigned by the service on creation.',
  }),
  rule({
    id: 'CREATE-REJECT-MISSING',
    title: 'A body missing name or categoryId is answered 400',
    severity: 'MUST',
    group: 'createPet',
    section: 'Endpoints › createPet; Errors',
    statement: '400 — Error (body missing required fields …); `name` and `categoryId` are required.',
    interpretation: 'A member is its exact name (RFC 8259 §8.3: member names compare code unit by code unit): a body giving `name` or `categoryId` only in another case (`NAME`, `Name`, `categoryid`, `CategoryID`, generated spellings) misses it, and is refused with 400 (a decoder that matches names case-insensitively, as Go\'s encoding/json does, takes it for the member).',
  }),
  rule({
    id: 'CREATE-REJECT-INVALID',
    title: 'A body with an invalid value is answered 400',
    severity: 'MUST',
    group: 'createPet',
    section: 'Endpoints › createPet; Resources › NewPet; Errors',
    statement: '400 — Error (body … containing invalid values). name string; categoryId integer int64; status one of PetStatus.',
    interpretation: 'Wrong JSON types, a categoryId that is not an integer or lies outside int64, a status outside PetStatus, plausible words included (adopted, reserved, deleted, archived…, which a server may have kept from an old enum). `"status": null` in a request is not counted as invalid (a server may read it as absent; observed as GAP-NULL-STATUS). Each generated body is judged on the exact bytes sent: one that is in fact valid is not used.',
  }),
  rule({
    id: 'CREATE-REJECT-MALFORMED',
    title: 'A body that is not a JSON object is answered 400',
    severity: 'MUST',
    group: 'createPet',
    section: 'Endpoints › createPet; Errors',
    statement: 'Payload sent: required JSON body of shape NewPet. 400 — Error (body missing required fields or containing invalid values).',
    interpretation: 'Malformed JSON, an empty body, JSON that is not an object (array, string, number, null), and a valid object followed by anything but whitespace (`{…} x`, `{…}{…}`, `{…}]`, a NUL) all fail to be one JSON body of shape NewPet (RFC 8259 §2: "A JSON text is a serialized value"). A leading UTF-8 byte order mark is only observed (RFC 8259 §8.1 lets a parser ignore it).',
  }),
  rule({
    id: 'GET-RESPONSE',
    title: 'getPet answers 200 with the animal as created',
    severity: 'MUST',
    group: 'getPet',
    section: 'Endpoints › getPet: GET /pets/{petId}',
    statement: 'Responses: 200 — Pet. petId: Identifier of the animal to retrieve.',
    interpretation: 'For each animal the suite created: 200 with a Pet in JSON (empty, not JSON or not a Pet fails; a body longer than the read bound fails when what was read cannot begin a Pet, and is otherwise inconclusive), same id, name and categoryId. Its status may have moved from the status it was created with to another PetStatus (transitions are not shown: observed as GAP-STATUS-TRANSITIONS); a name returned in another normalisation form of the same text is observed as GAP-NAME-NORMALISATION. No read-after-write guarantee is stated: a 404 within the visibility window after the 201 (2 s by default) is asked again with backoff and the lag observed (GAP-READ-AFTER-WRITE); once a 200 (getPet or a listing) has shown the animal, a 404 for it fails at once.',
  }),
  rule({
    id: 'GET-NOT-FOUND',
    title: 'getPet answers 404 for an id no animal has',
    severity: 'MUST',
    group: 'getPet',
    section: 'Endpoints › getPet; Errors',
    statement: '404 — Error (the requested animal cannot be found).',
    interpretation: 'Ids drawn at random from the int64 range (and its ends) that the suite has never seen. An id that turns out to exist (200 with that very animal) is set aside; if every one of them exists, no store plausibly holds them and the rule fails.',
  }),
  rule({
    id: 'ORDERS-EXISTS',
    title: 'GET /store/orders exists',
    severity: 'MUST',
    group: 'storeOrders',
    section: 'Endpoints › Other endpoints',
    statement: '`GET /store/orders` exists. Its parameters, payloads and responses: not shown.',
    interpretation: 'With the key, it is not answered 404, 405 or 501. Only what the document states is judged: it exists, it requires the key (AUTH-REQUIRED, AUTH-INVALID-KEY, AUTH-SCHEME) and its error responses are Error bodies (ERROR-SCHEMA). Everything else it answers, a 5xx included, is an observation (GAP-ORDERS-RESPONSES).',
  }),
  rule({
    id: 'AUTH-VALID-KEY',
    title: 'The API key sent as a bearer token is accepted by every operation',
    severity: 'MUST',
    group: 'auth',
    section: 'Authentication, item 1',
    statement: 'The client sends its API key as a bearer token in the `Authorization` header, in the form `Authorization: Bearer <API_KEY>`.',
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
    interpretation: 'A random token, the key with a character added or removed, the key with its letter case swapped, and an empty token, on every operation.',
  }),
  rule({
    id: 'AUTH-SCHEME',
    title: 'The key under any other scheme than Bearer is answered 401',
    severity: 'MUST',
    group: 'auth',
    section: 'Authentication, item 1',
    statement: 'Scheme: HTTP bearer (`bearerAuth`) … in the form `Authorization: Bearer <API_KEY>`.',
    interpretation: 'The right key sent as Basic credentials, under a `Token` scheme, bare without a scheme, or glued to `Bearer` without a space.',
  }),
  rule({
    id: 'ERROR-SCHEMA',
    title: 'Every error response has an Error body',
    severity: 'MUST',
    group: 'errors',
    section: 'Errors; Resources and their fields › Error',
    statement: 'All error responses use the JSON body Error (`code`, `message`, `status`). code string, message string, status integer — all required.',
    interpretation: 'Every 4xx and 5xx response the suite receives, including the ones to requests whose handling is not shown, temporary answers (429, and 503 with Retry-After) waited out before the request was sent again, the 5xx of GET /store/orders, and, under load, every 4xx/5xx answer, shed ones (429, 503, 504) included.',
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
    interpretation: 'Whatever the request to listPets, createPet or getPet, including those whose handling is not shown: a server error is never one of the listed responses. A 503 that carries Retry-After is a temporary answer, not judged here (RFC 9110 §15.6.4: "a temporary overload or scheduled maintenance, which will likely be alleviated after some delay"; §10.2.3: "When sent with a 503 (Service Unavailable) response, Retry-After indicates how long the service is expected to be unavailable"): it is waited out within the wait budget and the request sent again; a 503 without Retry-After fails. Under load, 503 and 504 are load shedding, measured by the thresholds. GET /store/orders is not judged here: its responses are not shown (observed as GAP-ORDERS-RESPONSES).',
  }),
  rule({
    id: 'GET-DEPRECATION-HEADER',
    title: 'getPet responses carry a Deprecation header',
    severity: 'SHOULD',
    group: 'deprecation',
    section: 'Versioning, item 2',
    statement: '`GET /pets/{petId}` is deprecated and is to be removed on 5 December 2030.',
    interpretation: 'On 200 responses: `Deprecation: @<unix-seconds>` (RFC 9745), not later than the sunset. The draft form `Deprecation: true` predates the RFC and is a warning.',
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
    interpretation: 'A Link header (RFC 8288) that points to the replacement, with rel="successor-version" or "latest-version" (RFC 5829 §3: "this link points to a resource containing the successor version", "… the latest (e.g., current) version") or "alternate" (link relation registry), whose target path ends in /pets; or a rel="deprecation" link (RFC 9745: "the deprecation link relation can be used to link to a resource that provides further information about planned or existing deprecation"), whatever its target.',
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
    interpretation: 'Every 401 carries `WWW-Authenticate: Bearer …` (RFC 6750 §3: "the resource server MUST include the HTTP \"WWW-Authenticate\" response header field"). When a non-empty bearer token was sent and refused, the challenge should carry error="invalid_token" (§3.1: "The access token provided is expired, revoked, malformed, or invalid for other reasons"; invalid_request is accepted too). For no credentials, another scheme, or `Bearer ` with an empty token, the error code is not judged (§3.1: "If the request lacks any authentication information (e.g., the client was unaware that authentication is necessary or attempted using an unsupported authentication method), the resource server SHOULD NOT include an error code or other error information"; a malformed request may get invalid_request).',
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
    interpretation: 'The rule is unconditional: whatever else is wrong with the request. Every kind of invalid input (each kind of invalid create body, a bad limit, a bad status filter, an unknown or malformed petId) sent without a key, with a wrong key and under another scheme, on every operation, is answered 401; a 400, 404 or 422 there fails.',
  }),
  rule({
    id: 'CLIENT-INDEPENDENT',
    title: 'Every client gets the same answers: only the API key tells clients apart',
    severity: 'MUST',
    group: 'auth',
    section: 'What the service does; Authentication, items 1 and 2',
    statement: 'Clients can: 1. list animals … 2. add an animal … 3. fetch one animal by its identifier … The client sends its API key as a bearer token in the `Authorization` header, in the form `Authorization: Bearer <API_KEY>`. The scheme applies to every operation.',
    interpretation:
      'The operations are offered to clients without distinction, and the document tells clients apart by their API key alone: a request answered differently when sent by another ordinary client (its User-Agent, its headers, their order and casing, its connection habit) breaks it. Run when the run speaks as two client fingerprints or more (certification speaks as all of them): before anything else, one request of each kind (listPets with and without the key, a valid and an invalid createPet, getPet of that animal and of an id no animal has, GET /store/orders without the key) is sent paced, each as another client, and compared with the run\'s first answer of its kind; during the run a sample of the run\'s requests, drawn from the seed (every operation, success and error, with and without the key), is sent again right after under each other client, on a new connection. Compared: the status, the media type of Content-Type, the challenge\'s scheme on a 401, the presence of Deprecation, Sunset (and Link on getPet), and the body once what the document explains is masked: a new id for a createPet sent again, a status that moved (GAP-STATUS-TRANSITIONS), an Error\'s message, and a listing that grew (the store only grows: a later page holds at least as many animals as the earlier, up to its limit, and an animal on both is the same apart from its status).',
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

export type Rule = (typeof rules)[number];
export type RuleId = Rule['id'];

const byId = new Map<string, Rule>(rules.map((r) => [r.id, r]));

/** The rule with this id. Throws for an unknown id (a programming error). */
export function ruleById(id: RuleId): Rule {
  const found = byId.get(id);
  if (!found) throw new Error(`unknown rule ${id}`);
  return found;
}

/** True when `id` names a rule of the catalog. */
export function isRuleId(id: string): id is RuleId {
  return byId.has(id);
}

/**
 * Statements of the document that no behaviour of a server can show, listed so
 * that every sentence of the document is accounted for.
 */
export const untestableStatements = [
  { section: 'What the service does', statement: 'All operations are grouped under the tag `animals`.', reason: 'A documentation grouping; recorded in spec/openapi.json.' },
  { section: 'Versioning, item 1', statement: 'The interface version is 1.0.0; the version segment `/v1` is part of {base_url}.', reason: 'Describes the address, which the user supplies; the suite appends paths to it as given.' },
  { section: 'Versioning, item 3', statement: 'Some endpoints may carry a stability marker (`experimental` or `beta`) … none is marked for them.', reason: 'The document does not say how a marker would appear on the wire.' },
  { section: 'Endpoints', statement: 'A staging environment exists at {staging_base_url}, with the same paths.', reason: 'Deployment fact; point the base URL at either.' },
] as const;
