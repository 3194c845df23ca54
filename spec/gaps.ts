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
    id: 'GAP-ORDERS-PAYLOAD',
    title: 'What GET /store/orders returns',
    section: 'Endpoints › Other endpoints',
    accepted: 'Anything but 404, 405 and 5xx; errors still as Error bodies.',
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
    accepted: 'A 429 is waited out (Retry-After honoured up to 5 s, else 250 ms doubling), up to 4 times per request, before the answer is judged.',
  }),
  gap({
    id: 'GAP-NULL-STATUS',
    title: 'An absent status written as null',
    section: 'Resources and their fields › Pet (status not required)',
    accepted: 'Read as an absent status.',
  }),
] as const satisfies readonly GapDefinition[];

export type Gap = (typeof gaps)[number];
export type GapId = Gap['id'];
