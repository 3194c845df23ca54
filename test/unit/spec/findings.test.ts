import { describe, expect, it } from 'vitest';
import { excerpt, redactorFor, suiteText } from '../../../core/redact.js';
import {
  FINDING_CODES,
  type FindingArguments,
  type FindingCode,
  type FindingMessage,
  findingText,
  redactFinding,
} from '../../../spec/findings.js';

const RESPONSE = '500 (text/plain), 4 bytes: "oops"';

/** One message of each code, and its words. */
const WORDS: { [C in FindingCode]: [FindingArguments<string>[C], string] } = {
  WRONG_STATUS: [
    { status: '401', request: 'listPets without a key', received: '200' },
    'Expected 401 for listPets without a key / Received 200',
  ],
  NOT_ACCEPTED: [
    { request: 'the key under "bearer"', received: RESPONSE },
    `Expected the key under "bearer" to be accepted / Received ${RESPONSE}`,
  ],
  KEY_CHECKED_LATE: [
    { request: 'an id no animal has without a key', received: '404' },
    'Expected 401 for an id no animal has without a key: the key is checked before anything else / Received 404',
  ],
  OPERATION_MISSING: [{ operation: 'GET /store/orders', received: '404' }, 'Expected GET /store/orders to exist / Received 404'],
  SERVER_ERROR: [{ received: RESPONSE }, `Expected a listed response (200, 201, 400, 401, 404), never 5xx / Received ${RESPONSE}`],
  NOT_CREATED: [{ received: RESPONSE }, `Expected 201 with the created Pet / Received ${RESPONSE}`],
  CREATED_NOT_JSON: [{ received: RESPONSE }, `Expected 201 with the created Pet as JSON / Received ${RESPONSE}`],
  CREATED_NOT_A_PET: [
    { problem: '/id must be integer' },
    'Expected 201 with the created Pet / Received a body that is not a Pet: /id must be integer',
  ],
  VALID_BODY_REFUSED: [
    { refused: 'categoryId 7', swapped: 'categoryId 1 (accepted before)', received: '400' },
    'Expected 201 for a valid NewPet (a refusal of categoryId 7 is legitimate only if the same body with categoryId 1 (accepted before) is created) / Received 400, and 400 for that body too',
  ],
  NO_CATEGORY_ACCEPTED: [
    { categoryIds: ['1', '2'], received: '400' },
    'Expected 201 for a valid NewPet with an ordinary name and one of the categoryIds 1, 2 (categories of animals already in the store, then small positive integers) / Received 400 to each; the last: 400',
  ],
  ID_REUSED: [
    { id: '9007199254740993' },
    'Expected a new id for the created animal / Received id 9007199254740993, which another animal already has',
  ],
  ECHO_DIFFERS: [
    { differences: ['categoryId 2 for 1', 'status absent for "sold"'] },
    'Expected the created Pet to carry the name, categoryId and status sent / Received categoryId 2 for 1; status absent for "sold"',
  ],
  FETCH_FAILED: [{ id: '5', received: '404' }, 'Expected 200 with animal 5, created before, as a Pet in JSON / Received 404'],
  SEEN_THEN_MISSING: [
    { id: '5', received: '404' },
    'Expected 200 with animal 5, which an earlier 200 showed (once seen, an animal stays visible) / Received 404',
  ],
  FETCHED_NOT_A_PET: [
    { id: '5', problem: '/name is missing' },
    'Expected 200 with animal 5, created before, as a Pet in JSON / Received a body that is not a Pet: /name is missing',
  ],
  FETCHED_DIFFERS: [{ id: '5', differences: ['id 6'] }, 'Expected animal 5 as created / Received id 6'],
  UNKNOWN_ID_ANSWERED: [
    { id: '-9', received: '200 with animal 3' },
    'Expected 404 for id -9, which the suite has never seen (or 200 with that very animal) / Received 200 with animal 3',
  ],
  EVERY_ID_EXISTS: [
    { count: 18 },
    'Expected 404 for at least one of 18 random int64 ids / Received every one of them answered 200 as an existing animal',
  ],
  LIST_NOT_ARRAY: [
    { request: 'status=sold%20', received: '200, 2 bytes: "{}"' },
    'Expected a 200 answer to status=sold%20 to be a JSON array of Pet / Received 200, 2 bytes: "{}"',
  ],
  LIST_ITEM_NOT_A_PET: [
    { index: 3, problem: '/id must be integer' },
    'Expected a JSON array of Pet / Received item 3 is not a Pet: /id must be integer',
  ],
  TOO_MANY_ANIMALS: [{ bound: 'default', max: 20, count: 21 }, 'Expected at most 20 animals when limit is absent / Received 21'],
  OTHER_STATUS_LISTED: [
    { status: 'sold', count: 2, shown: ['id 1 with status "available"', 'id 2 with status null'] },
    'Expected only animals with status "sold" / Received 2 other(s): id 1 with status "available", id 2 with status null',
  ],
  PAGE_SHORT: [
    { expected: 20, limit: 20, proven: 30, items: 20, animals: 19 },
    'Expected 20 animals (limit 20; the store holds at least 30 animals) / Received 20 items, 19 distinct animals',
  ],
  PAGE_SHORT_STATUS_MOVED: [
    { limit: 5, proven: 6, status: 'sold', items: 4, animals: 4 },
    'a page of 4 for limit 5 while 6 animals last read with status "sold" were known; they may have moved to another status since (transitions are not shown)',
  ],
  LISTED_DIFFERS: [
    { id: '5', differences: ['categoryId 2 for 1'] },
    'Expected animal 5 listed as it was created / Received categoryId 2 for 1',
  ],
  LISTED_MISSING: [
    { id: '5', status: 'sold', count: 3 },
    'Expected animal 5, read with status "sold" (now too), in GET /pets?status=sold&limit=100 (3 animals, so not cut by the limit) / Received it is missing',
  ],
  MISSING_UNREADABLE: [
    { id: '5', status: 'sold' },
    'animal 5 is missing from GET /pets?status=sold and could not be read again to see its status',
  ],
  MISSING_FROM_FULL_PAGE: [
    { count: 2, status: 'sold' },
    '2 animal(s) last read with status "sold" are not on a full page of 100; the store holds too many such animals to tell whether they were dropped',
  ],
  MISSING_FROM_MIXED_PAGE: [
    { count: 2, status: 'sold' },
    '2 animal(s) last read with status "sold" are not on GET /pets?status=sold&limit=100, whose 100 animals include others than "sold" (see LIST-STATUS-FILTER): whether the filter also drops them cannot be told',
  ],
  ERROR_NOT_JSON: [
    { status: 404, received: '404, empty body' },
    'Expected an Error body (JSON object with code, message, status) on 404 / Received 404, empty body',
  ],
  ERROR_BODY_INVALID: [
    { status: 400, body: '{}', violations: '/code is missing' },
    'Expected an Error body on 400 / Received {} (/code is missing)',
  ],
  ERROR_STATUS_DIFFERS: [{ status: 400, received: '422' }, 'Expected Error.status 400, the HTTP status / Received 422'],
  NOT_LABELLED_JSON: [{}, 'Expected Content-Type: application/json on a JSON body / Received no Content-Type'],
  PET_STATUS_NULL: [
    { item: 2, body: '{"status":null}' },
    'Expected item 2 to be a Pet: an absent status is omitted, not written "status": null / Received {"status":null}',
  ],
  NOT_A_PET: [{ body: '{}', violations: '/id is missing' }, 'Expected the body to be a Pet / Received {} (/id is missing)'],
  NO_BEARER_CHALLENGE: [
    { header: 'Basic realm="x"' },
    'Expected WWW-Authenticate: Bearer … on a 401 / Received WWW-Authenticate: Basic realm="x"',
  ],
  NO_INVALID_TOKEN: [
    { header: 'Bearer' },
    'Expected error="invalid_token" in the challenge when a non-empty bearer token was sent and refused / Received WWW-Authenticate: Bearer',
  ],
  NO_DEPRECATION: [
    { sunset: 1922486400, problem: 'draft', header: 'true' },
    'Expected Deprecation: @<unix seconds> not after 1922486400 (RFC 9745) / Received Deprecation: true (the draft form that predates RFC 9745)',
  ],
  NO_SUNSET: [{ date: 'Thu, 05 Dec 2030 00:00:00 GMT' }, 'Expected Sunset: Thu, 05 Dec 2030 00:00:00 GMT / Received no Sunset header'],
  NO_SUCCESSOR_LINK: [
    { header: '</v2/pets>; rel="next"' },
    'Expected Link: <…/pets>; rel="successor-version" (or latest-version, alternate), or a rel="deprecation" link / Received Link: </v2/pets>; rel="next"',
  ],
  DEPRECATION_ELSEWHERE: [
    { operation: 'listPets', headers: ['deprecation: @1', 'sunset: x'] },
    'Expected no deprecation signal on listPets, which is not deprecated / Received deprecation: @1; sunset: x',
  ],
  NO_ANIMAL_TO_GET: [{}, 'getPet not tried: no animal could be created to ask for'],
  WIDE_CATEGORIES_REFUSED: [
    {},
    'no categoryId beyond ±2^53 was accepted (the target refused them as unknown categories, which the document leaves open), so their exact echo could not be tested',
  ],
  CLIENT_DIFFERS: [
    {
      request: 'listPets GET /pets?limit=1 with the key',
      pairing: 'same-request',
      first: 'curl',
      second: 'chrome',
      differences: ['status 200, then 500'],
    },
    'Expected the same answer to listPets GET /pets?limit=1 with the key whichever client sends it: the document tells clients apart by their API key alone / Received as curl, then as chrome: status 200, then 500',
  ],
  NOTHING_COMPARED: [
    { reason: 'the run sent no request the probe could follow' },
    'no answer could be compared across clients: the run sent no request the probe could follow',
  ],
  CUT_SHORT: [{ reason: 'still rate-limited (429)' }, 'cut short: still rate-limited (429)'],
  BODY_NOT_READ: [
    { status: 200 },
    'the body of a 200 answer is longer than the suite reads of a response (maxBodyBytes, 1 MiB unless the run set another bound), so what it holds could not be judged',
  ],
  BODY_NOT_PARSED: [
    { status: 200, tokens: 100_000 },
    'the body of a 200 answer holds more JSON than the suite parses of a response (more than 100000 brackets, commas and colons), so what it holds could not be judged',
  ],
  ERROR_STATUS_NOT_A_NUMBER: [
    { status: 404, received: '"404"' },
    'the Error body of a 404 answer has status "404", which is not a number (ERROR-SCHEMA fails it), so whether it repeats the HTTP status was not judged',
  ],
};

const messageOf = <C extends FindingCode>(code: C): FindingMessage<string> => ({ code, args: WORDS[code][0] }) as FindingMessage<string>;

describe('findingText', () => {
  it('words every code', () => {
    expect(Object.keys(WORDS).sort()).toEqual([...FINDING_CODES].sort());
    for (const code of FINDING_CODES) expect(findingText(messageOf(code)), code).toBe(WORDS[code][1]);
  });

  it.each([
    [{ bound: 'limit', max: 5, count: 6 }, 'Expected at most 5 animals for limit=5 / Received 6'],
    [
      { bound: 'maximum', max: 100, query: '?limit=500', count: 101 },
      'Expected at most 100 animals (the maximum) for ?limit=500 / Received 101',
    ],
    [
      { bound: 'default', max: 20, query: 'status=sold', count: 21 },
      'Expected at most 20 animals when limit is absent for status=sold / Received 21',
    ],
  ] as const)('words each bound of TOO_MANY_ANIMALS: %j', (args, text) => {
    expect(findingText({ code: 'TOO_MANY_ANIMALS', args })).toBe(text);
  });

  it('says where a finding was seen and what its replay showed', () => {
    const message = messageOf('TOO_MANY_ANIMALS');
    expect(findingText({ ...message, underLoad: 'busy' })).toBe(
      'Under load (busy): Expected at most 20 animals when limit is absent / Received 21',
    );
    expect(findingText({ ...message, repeat: 'intermittent' })).toBe(
      'Intermittent: Expected at most 20 animals when limit is absent / Received 21; the same input passed when replayed, but the failing answer was observed',
    );
    expect(findingText({ ...message, repeat: 'not-reproduced' })).toMatch(
      /^Not reproduced: Expected .*; the same input passed when replayed, and the judgement rested on what the suite inferred about the store$/,
    );
  });

  it('shows the message of a finding of an earlier report, which has no code', () => {
    const earlier = { message: suiteText('Expected a page / Received none') } as unknown as FindingMessage & {
      message: ReturnType<typeof suiteText>;
    };
    expect(findingText(earlier)).toBe('Expected a page / Received none');
  });
});

describe('redactFinding', () => {
  const KEY = 'sk-live-0123456789abcdef';
  const redactor = redactorFor(KEY);

  it('redacts every text argument, renders excerpts, keeps numbers', () => {
    const raw: FindingMessage<string> = {
      code: 'OTHER_STATUS_LISTED',
      args: { status: 'sold', count: 2, shown: [`id 1 with status "${KEY}"`, excerpt(`x${KEY}y`, 40, { mode: 'quote' })] },
    };
    const redacted = redactFinding(raw, (text) => redactor.redact(text));
    expect(redacted.args).toEqual({ status: 'sold', count: 2, shown: ['id 1 with status "<API_KEY>"', '"x<API_KEY>y"'] });
    expect(findingText(redacted)).toBe(
      'Expected only animals with status "sold" / Received 2 other(s): id 1 with status "<API_KEY>", "x<API_KEY>y"',
    );
    expect(JSON.stringify(redacted)).not.toContain(KEY);
  });

  it('words a redacted message as the whole raw message redacted', () => {
    const raw: FindingMessage<string> = {
      code: 'NOT_CREATED',
      args: { received: `500, 40 bytes: ${excerpt(`{"echo":"Bearer ${KEY}"}`, 120, { mode: 'quote' })}` },
    };
    expect(findingText(redactFinding(raw, (text) => redactor.redact(text)))).toBe(redactor.redact(findingText(raw)));
  });

  it('requires redacted server text in a recorded message', () => {
    // @ts-expect-error a recorded message's server text must be redacted
    const recorded: FindingMessage = { code: 'SERVER_ERROR', args: { received: 'raw text' } };
    expect(recorded.code).toBe('SERVER_ERROR');
  });
});
