/** The differential probe's comparison of two answers (suites/compare.ts): each masking rule, each real difference. */
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../../core/json.js';
import { redactorFor } from '../../../core/redact.js';
import { type AnswerView, answerDifferences as differences, type CompareContext, sameJson } from '../../../suites/compare.js';

/** The differences as a finding shows them: server text rendered from its excerpts (no secret in these bodies). */
const redactor = redactorFor('Compare-Test~Key.Q81z');
const answerDifferences = (...args: Parameters<typeof differences>) => differences(...args).map((line) => `${redactor.redact(line)}`);

const JSON_TYPE = { 'content-type': 'application/json' };

/** An answer with a JSON body (written as text, so numbers stay exact). */
function answer(status: number, body: string | undefined, headers: Record<string, string> = JSON_TYPE): AnswerView {
  return { status, headers, ...(body === undefined ? {} : { json: parseJson(body) }), whole: true, empty: body === undefined };
}

const same = (operation: CompareContext['operation'], extra: Partial<CompareContext> = {}): CompareContext => ({
  operation,
  pairing: 'same-request',
  ...extra,
});

describe('answerDifferences: what the document explains is masked', () => {
  it('a createPet sent again: a new id', () => {
    const earlier = answer(201, '{"id":7,"name":"Rex","categoryId":1,"status":"available"}');
    const later = answer(201, '{"id":8,"name":"Rex","categoryId":1,"status":"available"}');
    expect(answerDifferences(earlier, later, same('createPet'))).toEqual([]);
  });

  it('an animal whose status moved (GAP-STATUS-TRANSITIONS), on getPet and in a listing', () => {
    expect(
      answerDifferences(
        answer(200, '{"id":7,"name":"Rex","categoryId":1,"status":"pending"}'),
        answer(200, '{"id":7,"name":"Rex","categoryId":1,"status":"sold"}'),
        same('getPet'),
      ),
    ).toEqual([]);
    expect(
      answerDifferences(
        answer(200, '[{"id":7,"name":"Rex","categoryId":1,"status":"pending"}]'),
        answer(200, '[{"id":7,"name":"Rex","categoryId":1,"status":"sold"}]'),
        same('listPets'),
      ),
    ).toEqual([]);
  });

  it("an Error's message; Content-Type parameters and case", () => {
    const earlier = answer(401, '{"code":"unauthorized","message":"missing key","status":401}', {
      'content-type': 'application/json; charset=utf-8',
      'www-authenticate': 'Bearer realm="a"',
    });
    const later = answer(401, '{"code":"unauthorized","message":"no key here","status":401}', {
      'content-type': 'Application/JSON',
      'www-authenticate': 'bearer error="invalid_token"',
    });
    expect(answerDifferences(earlier, later, same('listPets'))).toEqual([]);
  });

  it('a listing that grew: more animals later, in another order', () => {
    const earlier = answer(200, '[{"id":1,"name":"a","categoryId":1},{"id":2,"name":"b","categoryId":1}]');
    const later = answer(200, '[{"id":3,"name":"c","categoryId":1},{"id":2,"name":"b","categoryId":1},{"id":1,"name":"a","categoryId":1}]');
    expect(answerDifferences(earlier, later, same('listPets'))).toEqual([]);
  });

  it('a full page followed by another full page of other animals: the limit bounds what the later holds, even after a page past it (LIST-LIMIT-HONOURED judges that)', () => {
    const earlier = answer(
      200,
      '[{"id":1,"name":"a","categoryId":1},{"id":2,"name":"b","categoryId":1},{"id":5,"name":"e","categoryId":1}]',
    );
    const later = answer(200, '[{"id":3,"name":"c","categoryId":1},{"id":4,"name":"d","categoryId":1}]');
    expect(answerDifferences(earlier, later, same('listPets', { limit: 2 }))).toEqual([]);
  });

  it('two requests of one kind: bodies compared by their shape only', () => {
    const earlier = answer(201, '{"id":7,"name":"Rex","categoryId":1}');
    const later = answer(201, '{"id":9,"name":"Tom","categoryId":4,"status":"sold"}');
    expect(answerDifferences(earlier, later, { operation: 'createPet', pairing: 'same-class' })).toEqual([]);
  });

  it('a body not read whole is not compared', () => {
    const earlier = answer(200, '[{"id":1,"name":"a","categoryId":1}]');
    expect(answerDifferences(earlier, { ...answer(200, '[]'), whole: false }, same('listPets'))).toEqual([]);
  });

  it('numbers by their exact value', () => {
    expect(sameJson(parseJson('{"a":1.0,"b":[9223372036854775807]}'), parseJson('{"b":[9223372036854775807],"a":1}'))).toBe(true);
    expect(sameJson(parseJson('9223372036854775807'), parseJson('9223372036854775806'))).toBe(false);
  });
});

describe('answerDifferences: what the document does not explain is a difference', () => {
  it('another status', () => {
    expect(answerDifferences(answer(200, '[]'), answer(500, '{"code":"x","message":"y","status":500}'), same('listPets'))).toEqual([
      'status 200, then 500',
    ]);
  });

  it('another media type, another challenge scheme on a 401', () => {
    const earlier = answer(401, '{"code":"unauthorized","message":"m","status":401}', {
      'content-type': 'application/json',
      'www-authenticate': 'Bearer',
    });
    const later = answer(401, '{"code":"unauthorized","message":"m","status":401}', {
      'content-type': 'text/plain',
      'www-authenticate': 'Basic realm="x"',
    });
    expect(answerDifferences(earlier, later, same('createPet'))).toEqual([
      'Content-Type application/json, then text/plain',
      'WWW-Authenticate scheme bearer, then basic',
    ]);
  });

  it('a deprecation signal present for one client and not the other', () => {
    const body = '{"id":7,"name":"Rex","categoryId":1}';
    const earlier = answer(200, body, { ...JSON_TYPE, deprecation: '@1', sunset: 'x', link: '<x>' });
    const later = answer(200, body, { ...JSON_TYPE, sunset: 'x' });
    expect(answerDifferences(earlier, later, same('getPet'))).toEqual([
      'Deprecation header present, then absent',
      'Link header present, then absent',
    ]);
  });

  it('an animal with other fields (not the status), or a status that appeared', () => {
    expect(
      answerDifferences(
        answer(200, '{"id":7,"name":"Rex","categoryId":1}'),
        answer(200, '{"id":7,"name":"Rax","categoryId":1}'),
        same('getPet'),
      ),
    ).toEqual(['animal name "Rex", then "Rax"']);
    expect(
      answerDifferences(
        answer(200, '{"id":7,"name":"Rex","categoryId":1}'),
        answer(200, '{"id":7,"name":"Rex","categoryId":1,"status":"sold"}'),
        same('getPet'),
      ),
    ).toEqual(['animal status absent, then "sold"']);
  });

  it('a createPet sent again that echoes another name', () => {
    expect(
      answerDifferences(
        answer(201, '{"id":7,"name":"Rex","categoryId":1}'),
        answer(201, '{"id":8,"name":"","categoryId":1}'),
        same('createPet'),
      ),
    ).toEqual(['animal name "Rex", then ""']);
  });

  it('a listing that shrank (the store only grows), an animal listed with other fields', () => {
    const earlier = answer(200, '[{"id":1,"name":"a","categoryId":1},{"id":2,"name":"b","categoryId":1}]');
    expect(answerDifferences(earlier, answer(200, '[]'), same('listPets'))).toEqual([
      'a listing of 2 animals, then 0 (the store only grows: at least 2 expected)',
    ]);
    expect(
      answerDifferences(earlier, answer(200, '[{"id":2,"name":"B","categoryId":1},{"id":1,"name":"a","categoryId":1}]'), same('listPets')),
    ).toEqual(['animal 2 name "b", then "B"']);
  });

  it('another Error code or status', () => {
    const earlier = answer(400, '{"code":"invalid","message":"m","status":400}');
    expect(answerDifferences(earlier, answer(400, '{"code":"other","message":"m","status":400}'), same('createPet'))).toEqual([
      'Error code "invalid", then "other"',
    ]);
  });

  it('another kind of body, for two requests of one kind too', () => {
    expect(answerDifferences(answer(200, '[]'), answer(200, '{}'), { operation: 'listPets', pairing: 'same-class' })).toEqual([
      'body a JSON array, then a JSON object',
    ]);
    expect(
      answerDifferences(
        answer(401, '{"code":"u","message":"m","status":401}'),
        { ...answer(401, undefined), headers: {} },
        { operation: 'listPets', pairing: 'same-class' },
      ),
    ).toEqual(['Content-Type application/json, then absent', 'body a JSON object, then empty']);
  });
});
