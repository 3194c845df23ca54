/**
 * waivers.json: known, tracked deviations for release gating. Each waiver names
 * a rule (and optionally an operation), why, the tracking issue and the last day
 * it holds. The engine applies them (suites/engine.ts `applyWaivers`).
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { UsageError } from '../core/errors.js';
import { rules } from '../spec/rules.js';
import { newAjv, schemaErrorText } from '../spec/validate.js';
import type { Waiver } from '../result/model.js';
import { FILE_LIMITS, readBoundedFile } from './files.js';

const waiver = {
  type: 'object',
  required: ['rule', 'reason', 'issue', 'expires'],
  additionalProperties: false,
  properties: {
    rule: { enum: rules.map((r) => r.id) },
    operation: { enum: ['listPets', 'createPet', 'getPet', 'listStoreOrders'] },
    reason: { type: 'string', minLength: 1 },
    issue: { type: 'string', format: 'uri' },
    expires: { type: 'string', format: 'date' },
  },
} as const;

const schema = {
  oneOf: [
    { type: 'array', items: waiver },
    {
      type: 'object',
      required: ['waivers'],
      additionalProperties: false,
      properties: { $schema: { type: 'string' }, waivers: { type: 'array', items: waiver } },
    },
  ],
} as const;

let ajv: Ajv2020 | undefined;
let validator: ValidateFunction<Waiver[] | { waivers: Waiver[] }> | undefined;

/** Reads a waivers file: an array of waivers, or `{ "waivers": [...] }`. Throws `UsageError` naming the file and the offending key. */
export async function loadWaivers(path: string): Promise<Waiver[]> {
  const text = (await readBoundedFile(path, FILE_LIMITS.waivers, `the waivers file ${path}`)).toString('utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  // Compiled on first use: a run without waivers does not pay for it at start.
  ajv ??= newAjv();
  validator ??= ajv.compile<Waiver[] | { waivers: Waiver[] }>(schema);
  if (validator(data)) return Array.isArray(data) ? data : data.waivers;
  // The array branch says the most about a list of waivers; report its first complaint.
  const branch = Array.isArray(data) ? [...schema.oneOf][0] : [...schema.oneOf][1];
  const detail = ajv.compile(branch);
  detail(data);
  throw new UsageError(`${path}: ${schemaErrorText(detail.errors)}`);
}
