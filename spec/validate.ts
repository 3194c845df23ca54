/**
 * Validation against the schemas of spec/openapi.ts: ajv (JSON Schema 2020-12,
 * as OpenAPI 3.1 uses) for shape and types, plus an exact walk for `format:
 * int64`, which ajv-formats only checks on a JavaScript double (2^63 and 2^64
 * would pass it).
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type Json, exactInteger, isJsonObject, isLosslessNumber, toPlain, INT64_MAX, INT64_MIN, show } from '../core/json.js';
import { type SchemaName, openapi } from './openapi.js';

// ajv-formats is CommonJS; under nodenext its default export sits one level down.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default;

const SPEC_ID = 'https://petstore-conformance.invalid/spec/openapi.json';

/** One way a value breaks a schema. `path` is a JSON pointer into the value. */
export interface SchemaViolation {
  path: string;
  message: string;
}

type SchemaNode = {
  $ref?: string;
  type?: string;
  format?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
};

/**
 * An ajv for JSON Schema 2020-12 (as OpenAPI 3.1 and the suite's own schemas
 * use), strict, with ajv-formats. `allErrors`: collect every error instead of
 * stopping at the first. `validateSchema: false`: schemas added are not checked
 * against the meta-schema (default true).
 */
export function newAjv(options: { allErrors?: boolean; validateSchema?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: options.allErrors ?? false, validateSchema: options.validateSchema ?? true });
  addFormats(ajv);
  return ajv;
}

// Not checked against the meta-schema: that check compiles the 2020-12 meta-schema (50–130 ms of every start) and
// never looks inside `components`, so it proved nothing here. Each schema is checked when it is compiled (strict
// mode), and against the meta-schema by test/unit/spec/validate.test.ts.
const ajv = newAjv({ allErrors: true, validateSchema: false });
ajv.addVocabulary(['components']);
ajv.addSchema({ $id: SPEC_ID, components: { schemas: openapi.components.schemas } });

const schemas = openapi.components.schemas as unknown as Record<SchemaName, SchemaNode>;

/** Validates a lossless JSON value against a named schema of the interface. Empty when valid. */
export function validateSchema(name: SchemaName, value: Json): SchemaViolation[] {
  const validate = ajv.getSchema(`${SPEC_ID}#/components/schemas/${name}`);
  if (!validate) throw new Error(`schema ${name} is not registered`);
  // The exact walk below reports int64 problems with the value as written.
  const errors = validate(toPlain(value))
    ? []
    : (validate.errors ?? []).filter((error) => !(error.keyword === 'format' && error.params.format === 'int64'));
  const violations = violationsOf(errors);
  walkInt64(schemas[name], value, [], violations);
  return violations;
}

/** ajv's errors as violations (`path` a JSON pointer, `/` for the whole value), worded by {@link schemaProblem}. */
export function violationsOf(errors: readonly ErrorObject[] | null | undefined): SchemaViolation[] {
  return (errors ?? []).map(schemaProblem);
}

// One compiled validator per schema of the suite's own files, whoever asks: compiled on first use, stopping at the first error.
let fileFormats: Ajv2020 | undefined;

/** The validator of one of the suite's own file formats (report, manifest, transcript line…), by its `$id`, compiled once. */
export function validatorFor<T = unknown>(schema: { $id: string }): ValidateFunction<T> {
  fileFormats ??= newAjv();
  return (fileFormats.getSchema<T>(schema.$id) ?? fileFormats.compile<T>(schema)) as ValidateFunction<T>;
}

/** Allowed values a problem lists at most. */
const LISTED_VALUES = 8;

/**
 * One ajv error in words: the one way the suite says how a value breaks a
 * schema, whether the value is a file it reads (config, waivers, report.json,
 * a bundle's files) or a server's answer. `path` is a JSON pointer (`/` the
 * root); an unknown or missing key is pointed at itself.
 */
export function schemaProblem(error: ErrorObject): SchemaViolation {
  const at = (key: unknown) => `${error.instancePath}/${escapePointer(String(key))}`;
  const { params } = error;
  if (error.keyword === 'additionalProperties') return { path: at(params.additionalProperty), message: 'is not a known key' };
  if (error.keyword === 'required') return { path: at(params.missingProperty), message: 'is missing' };
  const path = error.instancePath || '/';
  if (error.keyword === 'const') return { path, message: `must be ${JSON.stringify(params.allowedValue)}` };
  if (Array.isArray(params.allowedValues)) {
    const values = params.allowedValues.slice(0, LISTED_VALUES).map((v) => JSON.stringify(v));
    return { path, message: `must be one of ${values.join(', ')}${params.allowedValues.length > LISTED_VALUES ? ', …' : ''}` };
  }
  return { path, message: error.message ?? 'is invalid' };
}

/** The first of a validator's errors in one line (`/only/0 must be one of …`), as every file the suite reads is refused with. */
export function schemaErrorText(errors: readonly ErrorObject[] | null | undefined): string {
  return describeViolations(violationsOf(errors?.slice(0, 1)), 1) || '/ is invalid';
}

function resolve(node: SchemaNode): SchemaNode {
  let current = node;
  for (let depth = 0; current.$ref && depth < 8; depth++) {
    const name = current.$ref.replace('#/components/schemas/', '') as SchemaName;
    current = schemas[name];
  }
  return current;
}

/** `path` holds the pointer's segments, joined only for a violation. */
function walkInt64(node: SchemaNode, value: Json, path: (string | number)[], out: SchemaViolation[]): void {
  const schema = resolve(node);
  if (schema.format === 'int64' && isLosslessNumber(value)) {
    const n = exactInteger(value);
    const pointer = () => path.map((segment) => `/${typeof segment === 'number' ? segment : escapePointer(segment)}`).join('') || '/';
    if (typeof n === 'bigint' && (n < INT64_MIN || n > INT64_MAX)) {
      out.push({ path: pointer(), message: `must be an int64 (between ${INT64_MIN} and ${INT64_MAX}), got ${value.value}` });
    } else if (n === 'huge') {
      out.push({ path: pointer(), message: `must be an int64, got ${show(value, 60)}` });
    }
    return;
  }
  if (schema.properties && isJsonObject(value)) {
    for (const [key, child] of Object.entries(schema.properties)) {
      if (Object.hasOwn(value, key)) walkInt64(child, value[key] as Json, [...path, key], out);
    }
  }
  if (schema.items && Array.isArray(value)) {
    value.forEach((item, i) => walkInt64(schema.items as SchemaNode, item, [...path, i], out));
  }
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One line for a list of violations: `/id must be integer; /name must be string`. */
export function describeViolations(violations: readonly SchemaViolation[], max = 4): string {
  const shown = violations.slice(0, max).map((v) => `${v.path} ${v.message}`);
  if (violations.length > max) shown.push(`and ${violations.length - max} more`);
  return shown.join('; ');
}
