import { describe, expect, it } from 'vitest';
import { parseJson } from '../../../core/json.js';
import { openapi, type SchemaName } from '../../../spec/openapi.js';
import { newAjv, schemaErrorText, validateSchema } from '../../../spec/validate.js';

const pet = (fields: string) => parseJson(`{"id":1,"name":"a","categoryId":2${fields}}`);

describe('validateSchema', () => {
  it.each([
    ['a plain Pet', pet('')],
    ['a Pet with a status', pet(',"status":"sold"')],
    ['a Pet with extra fields (not forbidden by the document)', pet(',"tags":[]')],
    ['ids at the ends of int64', parseJson('{"id":-9223372036854775808,"name":"","categoryId":9223372036854775807}')],
  ])('accepts %s', (_label, value) => expect(validateSchema('Pet', value)).toEqual([]));

  it.each([
    ['id one past int64', parseJson('{"id":9223372036854775808,"name":"a","categoryId":1}'), '/id'],
    ['categoryId 2^64', parseJson('{"id":1,"name":"a","categoryId":18446744073709551616}'), '/categoryId'],
    ['categoryId 1e400', parseJson('{"id":1,"name":"a","categoryId":1e400}'), '/categoryId'],
    ['a fractional id', parseJson('{"id":1.5,"name":"a","categoryId":1}'), '/id'],
    ['an id as a string', parseJson('{"id":"1","name":"a","categoryId":1}'), '/id'],
    ['a status outside PetStatus', pet(',"status":"Sold"'), '/status'],
    ['a missing name', parseJson('{"id":1,"categoryId":1}'), '/name'],
  ])('rejects %s at %s', (_label, value, path) => {
    const violations = validateSchema('Pet', value);
    expect(violations.map((v) => v.path)).toContain(path);
  });

  it('checks Error bodies: status must be an integer', () => {
    expect(validateSchema('Error', parseJson('{"code":"x","message":"y","status":400}'))).toEqual([]);
    expect(validateSchema('Error', parseJson('{"code":"x","message":"y","status":"400"}')).map((v) => v.path)).toEqual(['/status']);
  });
});

describe("the interface's schemas", () => {
  // spec/validate.ts skips the meta-schema check at start (it costs start-up time): it is made here, once.
  it.each(Object.keys(openapi.components.schemas))('%s is valid JSON Schema 2020-12 and compiles', (name) => {
    const ajv = newAjv();
    expect(ajv.validateSchema(openapi.components.schemas[name as SchemaName]), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => validateSchema(name as SchemaName, parseJson('null'))).not.toThrow();
  });
});

describe('schemaErrorText', () => {
  const validate = newAjv().compile({
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { type: 'string' },
      'a/b': { const: 1 },
      rules: { type: 'array', items: { enum: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I'] } },
      kind: { enum: ['x', 'y'] },
    },
  });
  const text = (value: unknown) => (validate(value) ? 'valid' : schemaErrorText(validate.errors));

  it.each([
    [[], '/ must be object'],
    [{}, '/name is missing'],
    [{ name: 'n', bogus: 1 }, '/bogus is not a known key'],
    [{ name: 1 }, '/name must be string'],
    [{ name: 'n', 'a/b': 2 }, '/a~1b must be 1'],
    [{ name: 'n', kind: 'z' }, '/kind must be one of "x", "y"'],
    [{ name: 'n', rules: ['Z'] }, '/rules/0 must be one of "A", "B", "C", "D", "E", "F", "G", "H", …'],
  ])('%j: %s', (value, expected) => expect(text(value)).toBe(expected));

  it('words the violations of a server body alike', () => {
    expect(validateSchema('Pet', pet(',"status":"Sold"'))).toEqual([
      { path: '/status', message: 'must be one of "available", "pending", "sold"' },
    ]);
  });
});
