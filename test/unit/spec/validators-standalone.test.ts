/**
 * The interface's validators are compiled at build time (scripts/build-validators.js → spec/validators.generated.ts,
 * ajv standalone code). They must be what ajv compiles at run time from spec/openapi.ts with the options
 * spec/validate.ts always used: same verdict and the same errors, error for error, on valid and invalid documents
 * alike; and the file must come from today's schemas, not from a stale spec/openapi.json.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Json, parseJson, toPlain } from '../../../core/json.js';
import { openapi, type SchemaName } from '../../../spec/openapi.js';
import { newAjv, validateSchema } from '../../../spec/validate.js';
import * as generated from '../../../spec/validators.generated.js';

/** The `$id` spec/validate.ts always registered the interface's schemas under. */
const SPEC_ID = 'https://petstore-conformance.invalid/spec/openapi.json';
const NAMES = Object.keys(openapi.components.schemas) as SchemaName[];

type Validator = ((data: unknown) => boolean) & { errors?: unknown };
const standalone = generated as unknown as Record<SchemaName, Validator> & { SCHEMAS_SHA256: string };

// What spec/validate.ts did before the build compiled them: the same ajv, compiled now, from the typed source.
const ajv = newAjv({ allErrors: true, validateSchema: false });
ajv.addVocabulary(['components']);
ajv.addSchema({ $id: SPEC_ID, components: { schemas: openapi.components.schemas } });
const runtime = (name: SchemaName) => ajv.getSchema(`${SPEC_ID}#/components/schemas/${name}`) as unknown as Validator;

/** Both validators' verdict and errors on `value` (as validateSchema passes it: plain, numbers as doubles). */
function both(name: SchemaName, value: unknown) {
  const a = standalone[name];
  const b = runtime(name);
  return [
    { valid: a(value), errors: a.errors ?? null },
    { valid: b(value), errors: b.errors ?? null },
  ];
}

// Documents as a target writes them: parsed losslessly, then made plain as validateSchema does.
const DOCUMENTS = [
  '{"id":1,"name":"Rex","categoryId":2,"status":"available"}',
  '{"id":1,"name":"Rex","categoryId":2}',
  '{"id":9223372036854775807,"name":"Rex","categoryId":-9223372036854775808,"status":"sold"}',
  '{"id":9223372036854775808,"name":"Rex","categoryId":18446744073709551616}',
  '{"id":1e400,"name":"Rex","categoryId":2}',
  '{"id":1.5,"name":"","categoryId":"2","status":"Sold"}',
  '{"id":"1","name":7,"categoryId":null,"status":null,"extra":true}',
  '{"name":"Rex"}',
  '{}',
  '[]',
  '[{"id":1,"name":"Rex","categoryId":2},{"id":"x"},3]',
  '{"code":"x","message":"y","status":400}',
  '{"code":"x","message":"y","status":"400"}',
  '{"code":1,"message":null}',
  '"available"',
  '"AVAILABLE"',
  'null',
  '0',
  'true',
  '{"__proto__":{"id":1},"name":"Rex","categoryId":2}',
];

describe('standalone validators (built by scripts/build-validators.js)', () => {
  it('are compiled from the schemas of spec/openapi.ts as they are now', () => {
    const hash = createHash('sha256').update(JSON.stringify(openapi.components.schemas)).digest('hex');
    expect(standalone.SCHEMAS_SHA256, 'run npm run gen, then npm run build').toBe(hash);
    expect(NAMES.filter((name) => typeof standalone[name] !== 'function')).toEqual([]);
  });

  it.each(NAMES)('%s: the same verdict and errors as ajv compiling at run time, on written documents', (name) => {
    for (const text of DOCUMENTS) {
      const [built, compiled] = both(name, toPlain(parseJson(text)));
      expect(built, `${name} on ${text}`).toEqual(compiled);
    }
  });

  it.each(NAMES)('%s: the same verdict and errors on generated documents', (name) => {
    const scalar = fc.oneof(
      fc.integer(),
      fc.double(),
      fc.string({ maxLength: 4 }),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom('available', 'pending', 'sold', 'Sold', ''),
    );
    const field = fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 3 }), scalar, { maxKeys: 2 }));
    const petLike = fc.record(
      { id: field, name: field, categoryId: field, status: field, code: field, message: field, extra: field },
      { requiredKeys: [] },
    );
    const value = fc.oneof(petLike, fc.array(petLike, { maxLength: 3 }), field, fc.jsonValue({ maxDepth: 2 }));
    fc.assert(
      fc.property(value, (v) => {
        const [built, compiled] = both(name, v);
        expect(built).toEqual(compiled);
      }),
      { numRuns: 300, seed: 23 },
    );
  });

  it('validateSchema reads them: int64 judged exactly, the rest as ajv says', () => {
    expect(validateSchema('Pet', parseJson(DOCUMENTS[0]!) as Json)).toEqual([]);
    expect(validateSchema('Pet', parseJson(DOCUMENTS[3]!) as Json).map((v) => v.path)).toEqual(['/id', '/categoryId']);
    expect(validateSchema('Pet', parseJson(DOCUMENTS[5]!) as Json).map((v) => v.path)).toEqual(['/id', '/categoryId', '/status']);
  });
});
