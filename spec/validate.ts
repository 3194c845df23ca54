/**
 * Validation against the schemas of spec/openapi.ts: ajv (JSON Schema 2020-12,
 * as OpenAPI 3.1 uses) for shape and types, plus an exact walk for `format:
 * int64`, which ajv-formats only checks on a JavaScript double (2^63 and 2^64
 * would pass it).
 *
 * The interface's schemas are compiled at build time (scripts/build-validators.js,
 * ajv's standalone code in spec/validators.generated.ts): a run judges answers
 * without loading ajv or compiling anything. ajv itself is loaded only by
 * {@link newAjv}, for the suite's own files (config, waivers, reports, bundles).
 */
import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { type Json, exactInteger, isJsonObject, isLosslessNumber, toPlain, INT64_MAX, INT64_MIN, show } from '../core/json.js';
import { type SchemaName, openapi } from './openapi.js';
import * as standalone from './validators.generated.js';

// ajv and ajv-formats are CommonJS: required on first use, so that a command that reads none of the suite's files
// never loads them.
const require = createRequire(import.meta.url);

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
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const addFormats = (require('ajv-formats') as { default: (ajv: Ajv2020) => Ajv2020 }).default;
  const ajv = new Ajv2020({ strict: true, allErrors: options.allErrors ?? false, validateSchema: options.validateSchema ?? true });
  addFormats(ajv);
  return ajv;
}

// The interface's schemas are compiled by scripts/build-validators.js as `newAjv({ allErrors: true, validateSchema:
// false })` with the `components` vocabulary would compile them at run time (test/unit/spec/validators-standalone.test.ts
// compares the two). Not checked against the meta-schema: that never looks inside `components`, so it proved nothing
// here; each schema is checked when it is compiled (strict mode), and against the meta-schema by
// test/unit/spec/validate.test.ts.

/** The build's validators, by schema name: copied out of the module namespace, whose every property read is a getter's. */
const interfaceValidators = { ...standalone } as unknown as Record<SchemaName, ValidateFunction>;

const schemas = openapi.components.schemas as unknown as Record<SchemaName, SchemaNode>;

/** Validates a lossless JSON value against a named schema of the interface. Empty when valid. */
export function validateSchema(name: SchemaName, value: Json): SchemaViolation[] {
  const validate = interfaceValidators[name];
  if (typeof validate !== 'function') throw new Error(`schema ${name} is not registered`);
  // The exact walk below reports int64 problems with the value as written.
  const errors = validate(toPlain(value))
    ? []
    : (validate.errors ?? []).filter((error) => !(error.keyword === 'format' && error.params.format === 'int64'));
  const violations = violationsOf(errors);
  walkInt64(schemas[name], value, [], violations);
  return violations;
}

/** An integer written plainly with at most 18 digits: below 10^18, within int64 whatever it is (no BigInt needed). */
const SHORT_INTEGER = /^-?(?:0|[1-9]\d{0,17})$/;

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

/** What {@link walkInt64} reads of a schema node, its `$ref`s followed: worked out once per node, not per value walked. */
interface WalkPlan {
  int64: boolean;
  properties: readonly (readonly [string, SchemaNode])[];
  items: SchemaNode | undefined;
}

const walkPlans = new WeakMap<SchemaNode, WalkPlan>();

function walkPlan(node: SchemaNode): WalkPlan {
  let plan = walkPlans.get(node);
  if (!plan) {
    const schema = resolve(node);
    plan = { int64: schema.format === 'int64', properties: Object.entries(schema.properties ?? {}), items: schema.items };
    walkPlans.set(node, plan);
  }
  return plan;
}

/** `path` holds the pointer's segments, joined only for a violation. */
function walkInt64(node: SchemaNode, value: Json, path: (string | number)[], out: SchemaViolation[]): void {
  const schema = walkPlan(node);
  if (schema.int64 && isLosslessNumber(value)) {
    if (SHORT_INTEGER.test(value.value)) return;
    const n = exactInteger(value);
    const pointer = () => path.map((segment) => `/${typeof segment === 'number' ? segment : escapePointer(segment)}`).join('') || '/';
    if (typeof n === 'bigint' && (n < INT64_MIN || n > INT64_MAX)) {
      out.push({ path: pointer(), message: `must be an int64 (between ${INT64_MIN} and ${INT64_MAX}), got ${value.value}` });
    } else if (n === 'huge') {
      out.push({ path: pointer(), message: `must be an int64, got ${show(value, 60)}` });
    }
    return;
  }
  // One path array, each segment pushed while its member is walked: a page of Pets is walked without copying it per member.
  if (schema.properties.length > 0 && isJsonObject(value)) {
    for (const [key, child] of schema.properties) {
      if (!Object.hasOwn(value, key)) continue;
      path.push(key);
      walkInt64(child, value[key] as Json, path, out);
      path.pop();
    }
  }
  if (schema.items && Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      walkInt64(schema.items, value[i] as Json, path, out);
      path.pop();
    }
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
