/**
 * The document's gaps: behaviours it leaves open ("not shown"). The suite never
 * fails a target for what it does here; it records what it saw as an
 * observation. Rules that hold everywhere (Error bodies, no 5xx, at most 100
 * animals) still apply to these requests.
 */

export interface GapDefinition {
  id: string;
  title: string;
  section: string;
  /** What the suite accepts here. */
  accepted: string;
}

const gap = <const G extends GapDefinition>(g: G): G => g;

export const gaps = [
  gap({
    id: 'GAP-LIMIT-OUT-OF-RANGE',
    title: 'limit below 1 or above 100',
    section: 'Endpoints › listPets (limit constraints); Limits',
    accepted: 'A 4xx Error, or a 200 list of at most 100 valid Pets.',
  }),
  gap({
    id: 'GAP-LIMIT-MALFORMED',
    title: 'limit that is not an integer',
    section: 'Endpoints › listPets (limit: integer)',
    accepted: 'A 4xx Error, or a 200 list of at most 20 valid Pets (the default applies when limit is not understood) or at most 100.',
  }),
  gap({
    id: 'GAP-STATUS-FILTER-VALUE',
    title: 'status filter outside PetStatus',
    section: 'Endpoints › listPets (status: one of available, pending, sold)',
    accepted: 'A 4xx Error, or a 200 list of valid Pets (at most 20, limit being absent).',
  }),
  gap({
    id: 'GAP-PAGINATION',
    title: 'Pagination controls other than limit',
    section: 'Endpoints › listPets, rule 3',
    accepted: 'Anything; paging headers seen are recorded.',
  }),
  gap({
    id: 'GAP-DEFAULT-STATUS',
    title: 'Default status of an animal created without one',
    section: 'Resources and their fields › Gaps in resources',
    accepted: 'Any PetStatus, or no status.',
  }),
  gap({
    id: 'GAP-NAME-LENGTH',
    title: 'Maximum and minimum name length',
    section: 'Limits (maximum field lengths: not shown)',
    accepted: 'A 4xx Error, or 201 with the name echoed exactly.',
  }),
  gap({
    id: 'GAP-EXTRA-FIELDS',
    title: 'Fields beyond NewPet in a create body',
    section: 'Resources and their fields › NewPet',
    accepted: 'A 4xx Error, or 201 with name, categoryId and status echoed exactly.',
  }),
  gap({
    id: 'GAP-REQUEST-ENCODING',
    title: 'Create bodies with another Content-Type, or not valid UTF-8',
    section: 'Endpoints › createPet (Content-Type: application/json)',
    accepted: 'A 4xx Error, or 201 with a valid Pet.',
  }),
  gap({
    id: 'GAP-PET-ID-FORMAT',
    title: 'petId that is not an int64',
    section: 'Endpoints › getPet (petId: integer int64)',
    accepted: 'A 4xx Error.',
  }),
  gap({
    id: 'GAP-ORDERS-RESPONSES',
    title: 'What GET /store/orders answers',
    section: 'Endpoints › Other endpoints ("Its parameters, payloads and responses: not shown")',
    accepted:
      'Anything but 404, 405 and 501 with the key (a 5xx included, recorded here); 401 with an Error body without it; every error response an Error body.',
  }),
  gap({
    id: 'GAP-ERROR-CODES',
    title: 'The set of Error.code values',
    section: 'Errors',
    accepted: 'Any string; the values seen are recorded per status.',
  }),
  gap({
    id: 'GAP-RATE-LIMITS',
    title: 'Rate limits and quotas',
    section: 'Limits (rate limits, quotas: not shown)',
    accepted:
      'A 429 is never a conformance failure (its body must still be an Error). It is waited out, Retry-After honoured (delta-seconds or an HTTP-date; without one, 1 s doubling), within a run-wide wait budget; a request still limited after the budget makes what depended on it inconclusive.',
  }),
  gap({
    id: 'GAP-NULL-STATUS',
    title: 'A create body with "status": null',
    section: 'Resources and their fields › NewPet (status not required)',
    accepted:
      'A 400 Error, or 201 with the status absent or any PetStatus (the request may be read as omitting it). In a response, "status": null is not a Pet (PET-SCHEMA).',
  }),
  gap({
    id: 'GAP-STATUS-TRANSITIONS',
    title: "An animal's status changing after creation",
    section: 'States and transitions ("Transitions: not shown")',
    accepted: 'The 201 answer carries the status sent; later reads may show any PetStatus.',
  }),
  gap({
    id: 'GAP-NAME-REPERTOIRE',
    title: 'Characters a name may hold',
    section: 'Resources and their fields › NewPet (name: string; no repertoire stated)',
    accepted:
      'A 400 Error for a name holding anything but ordinary printable text: control, format or private-use characters (U+0000–U+001F and U+007F among them), noncharacters, escaped unpaired surrogates, spaces other than U+0020, code points unassigned or assigned after Unicode 6.0 (2010, which an older Unicode database may not know), a space at either end. A short name of letters, marks, digits, punctuation and symbols of any script, emoji and inner spaces included, must be accepted.',
  }),
  gap({
    id: 'GAP-NAME-NORMALISATION',
    title: 'Unicode normalisation of names',
    section: 'Resources and their fields › Pet (the created animal is returned; nothing on normalisation)',
    accepted:
      'A name returned in another normalisation form of the same text (canonically equivalent: the same NFC form). Any other difference fails.',
  }),
  gap({
    id: 'GAP-CATEGORY-RECORDS',
    title: 'Which categoryIds name a category',
    section: 'Resources and their fields › Gaps in resources ("Fields of the category record … not shown")',
    accepted:
      'A 400 Error for a categoryId the target has no category for, when the same body with a categoryId it accepted before is created. A 5xx for any categoryId still fails.',
  }),
  gap({
    id: 'GAP-REQUEST-BOM',
    title: 'A create body starting with a UTF-8 byte order mark',
    section:
      'Endpoints › createPet (JSON body); RFC 8259 §8.1 ("implementations that parse JSON texts MAY ignore the presence of a byte order mark")',
    accepted: 'A 400 Error, or 201 with the animal as sent.',
  }),
  gap({
    id: 'GAP-READ-AFTER-WRITE',
    title: 'When a created animal becomes readable',
    section: 'What the service does ("The service keeps a store of animals"; nothing on when an animal added is readable)',
    accepted:
      'An animal created may be missing (getPet 404, absent from a listing it belongs on) for up to the visibility window after its 201 (2 s by default); it is asked for again with backoff, and the lag is recorded. Once a 200 has shown it, it must stay visible: a 404 then fails GET-RESPONSE. Past the window, a missing animal fails as it would at once.',
  }),
] as const satisfies readonly GapDefinition[];

export type Gap = (typeof gaps)[number];
export type GapId = Gap['id'];
