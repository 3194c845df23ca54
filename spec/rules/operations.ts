/**
 * The rules of the catalog (spec/rules.ts) about the resources and each
 * operation: the Pet resource, listPets, createPet, getPet, listStoreOrders.
 */
import { rule, type RuleDefinition } from './definition.js';

/** The resource and operation rules, in catalog order. */
export const operationRules = [
  rule({
    id: 'PET-SCHEMA',
    title: 'Every animal returned is a valid Pet',
    severity: 'MUST',
    group: 'resources',
    section: 'Resources and their fields › Pet, PetStatus',
    statement:
      'Pet: all fields of NewPet (name string, categoryId integer int64, status PetStatus, not required), plus id integer int64, required. PetStatus: exactly available, pending, sold.',
    interpretation:
      'Checked on every Pet in listPets, createPet and getPet responses; int64 ranges on the exact digits. status is "string, enum PetStatus" and not required: an absent status is an omitted field, so `"status": null` is not a Pet (omit the field instead).',
  }),
  rule({
    id: 'LIST-RESPONSE',
    title: 'listPets answers 200 with a JSON array (Pets)',
    severity: 'MUST',
    group: 'listPets',
    section: 'Endpoints › listPets: GET /pets',
    statement: 'Responses: 200 — JSON array of Pet (Pets).',
    interpretation:
      'For every valid request (limit 1..100 or absent, status a PetStatus or absent) with the key: a 200 whose body is empty, not JSON or not an array fails; a body longer than the read bound fails when what was read cannot begin an array, and is otherwise inconclusive (sizes are not shown). A listed animal the suite created carries its name and categoryId as created; its status may have moved to another PetStatus since (transitions are not shown: observed as GAP-STATUS-TRANSITIONS). Lists sent while creates are in flight are judged too: every animal shown is a Pet with its id (the new ones may be shown or not yet; no read-after-write order is stated).',
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
    interpretation:
      'limit=1 and limit=100 are within the constraints and answered 200. Outside them the answer is not shown (a 400 Error and a clamped 200 list are both accepted and recorded as observations), but a 200 list never holds more than 100 animals.',
  }),
  rule({
    id: 'LIST-PAGE-FULL',
    title: 'A page is full when the store holds enough matching animals',
    severity: 'SHOULD',
    group: 'listPets',
    section: 'What the service does, item 1; Endpoints › listPets',
    statement: 'list animals, with a page-size limit … Returns a paginated list of animals. limit: Maximum number of animals to return.',
    interpretation:
      'The document bounds a page from above only ("at most", "Maximum number"), so a shorter page is no MUST failure; but a page-size limit reads as the size of a page. When the store provably holds at least n matching animals (distinct ids seen and created; for a status filter, animals whose status was read back as that status just before), a request with limit n (default 20) should return n of them. A status-filtered page that comes back short is re-read first: animals that moved to another status no longer count.',
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
    interpretation:
      'An animal created with status s appears in GET /pets?status=s&limit=100 whenever that page is not full. A full page (100 distinct animals, every one with status s) answers the filter completely: limit caps the page, and neither an order nor paging beyond limit is stated (GAP-PAGINATION), so any 100 of them are a right answer and no client can be shown the others; the animals of s it leaves out are recorded as an observation, and the rule is met by that page; so a store that already holds 100 or more animals of every status is still judged. A page of 100 that repeats an animal has room; one whose 100 include other statuses fails LIST-STATUS-FILTER, and whether it also drops animals of s cannot be told (inconclusive). An animal missing from the list is fetched again first: if its status changed (transitions are not shown), it no longer has to be listed under s (an observation, GAP-STATUS-TRANSITIONS). No read-after-write guarantee is stated: an animal left out within the visibility window after its 201 (2 s by default), never seen before the page was sent, is waited for and the page asked for again (GAP-READ-AFTER-WRITE).',
  }),
  rule({
    id: 'CREATE-RESPONSE',
    title: 'createPet answers 201 with the created Pet for a valid NewPet',
    severity: 'MUST',
    group: 'createPet',
    section: 'Endpoints › createPet: POST /pets',
    statement: 'Responses: 201 — Pet (the created animal, including the assigned id).',
    interpretation:
      'Valid bodies use names of at most 32 code points (maximum lengths are not shown, so longer names are only observed) and any int64 categoryId. The 201 body must be a Pet in JSON: empty, not JSON or cut at the read bound fails. Two refusals are legitimate, because the document leaves them open, and are observed, not failed: a 400 Error for a name holding characters outside ordinary printable text (controls, format characters, noncharacters, unassigned code points, surrounding whitespace; GAP-NAME-REPERTOIRE), and a 400 Error for a categoryId whose category record the target does not have (GAP-CATEGORY-RECORDS). The suite proves either by sending the same body again with an ordinary name and a categoryId the target accepted before: if that is created, the refusal stands as an observation; if it is refused too, CREATE-RESPONSE fails. Refusing a short name of ordinary printable characters of any script fails.',
  }),
  rule({
    id: 'CREATE-ECHO',
    title: 'The created Pet carries exactly the name, categoryId and status sent',
    severity: 'MUST',
    group: 'createPet',
    section: 'Resources and their fields › Pet',
    statement: 'Pet: all fields of NewPet, plus id.',
    interpretation:
      'name compared code unit for code unit, categoryId digit for digit (int64 beyond 2^53 included), status when one was sent. An omitted status may come back as any PetStatus or absent (default not shown). A name returned in another Unicode normalisation form of the same text (canonically equivalent, NFC/NFD) is an observation (GAP-NAME-NORMALISATION); any other difference fails, and the message shows the differing code points. Where the target refuses every categoryId beyond 2^53 as an unknown category, the exact echo of such ids is inconclusive.',
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
    interpretation:
      "A member is its exact name (RFC 8259 §8.3: member names compare code unit by code unit): a body giving `name` or `categoryId` only in another case (`NAME`, `Name`, `categoryid`, `CategoryID`, generated spellings) misses it, and is refused with 400 (a decoder that matches names case-insensitively, as Go's encoding/json does, takes it for the member).",
  }),
  rule({
    id: 'CREATE-REJECT-INVALID',
    title: 'A body with an invalid value is answered 400',
    severity: 'MUST',
    group: 'createPet',
    section: 'Endpoints › createPet; Resources › NewPet; Errors',
    statement: '400 — Error (body … containing invalid values). name string; categoryId integer int64; status one of PetStatus.',
    interpretation:
      'Wrong JSON types, a categoryId that is not an integer or lies outside int64, a status outside PetStatus, plausible words included (adopted, reserved, deleted, archived…, which a server may have kept from an old enum). `"status": null` in a request is not counted as invalid (a server may read it as absent; observed as GAP-NULL-STATUS). Each generated body is judged on the exact bytes sent: one that is in fact valid is not used.',
  }),
  rule({
    id: 'CREATE-REJECT-MALFORMED',
    title: 'A body that is not a JSON object is answered 400',
    severity: 'MUST',
    group: 'createPet',
    section: 'Endpoints › createPet; Errors',
    statement: 'Payload sent: required JSON body of shape NewPet. 400 — Error (body missing required fields or containing invalid values).',
    interpretation:
      'Malformed JSON, an empty body, JSON that is not an object (array, string, number, null), and a valid object followed by anything but whitespace (`{…} x`, `{…}{…}`, `{…}]`, a NUL) all fail to be one JSON body of shape NewPet (RFC 8259 §2: "A JSON text is a serialized value"). A leading UTF-8 byte order mark is only observed (RFC 8259 §8.1 lets a parser ignore it).',
  }),
  rule({
    id: 'GET-RESPONSE',
    title: 'getPet answers 200 with the animal as created',
    severity: 'MUST',
    group: 'getPet',
    section: 'Endpoints › getPet: GET /pets/{petId}',
    statement: 'Responses: 200 — Pet. petId: Identifier of the animal to retrieve.',
    interpretation:
      'For each animal the suite created: 200 with a Pet in JSON (empty, not JSON or not a Pet fails; a body longer than the read bound fails when what was read cannot begin a Pet, and is otherwise inconclusive), same id, name and categoryId. Its status may have moved from the status it was created with to another PetStatus (transitions are not shown: observed as GAP-STATUS-TRANSITIONS); a name returned in another normalisation form of the same text is observed as GAP-NAME-NORMALISATION. No read-after-write guarantee is stated: a 404 within the visibility window after the 201 (2 s by default) is asked again with backoff and the lag observed (GAP-READ-AFTER-WRITE); once a 200 (getPet or a listing) has shown the animal, a 404 for it fails at once.',
  }),
  rule({
    id: 'GET-NOT-FOUND',
    title: 'getPet answers 404 for an id no animal has',
    severity: 'MUST',
    group: 'getPet',
    section: 'Endpoints › getPet; Errors',
    statement: '404 — Error (the requested animal cannot be found).',
    interpretation:
      'Ids drawn at random from the int64 range (and its ends) that the suite has never seen. An id that turns out to exist (200 with that very animal) is set aside; if every one of them exists, no store plausibly holds them and the rule fails.',
  }),
  rule({
    id: 'ORDERS-EXISTS',
    title: 'GET /store/orders exists',
    severity: 'MUST',
    group: 'storeOrders',
    section: 'Endpoints › Other endpoints',
    statement: '`GET /store/orders` exists. Its parameters, payloads and responses: not shown.',
    interpretation:
      'With the key, it is not answered 404, 405 or 501. Only what the document states is judged: it exists, it requires the key (AUTH-REQUIRED, AUTH-INVALID-KEY, AUTH-SCHEME) and its error responses are Error bodies (ERROR-SCHEMA). Everything else it answers, a 5xx included, is an observation (GAP-ORDERS-RESPONSES).',
  }),
] as const satisfies readonly RuleDefinition[];
