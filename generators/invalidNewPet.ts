import fc from 'fast-check';
import { INT64_MAX, INT64_MIN, LosslessNumber } from '../core/json.js';
import { PET_STATUSES } from '../spec/openapi.js';
import { type NewPetInput, newPet } from './newPet.js';
import type { NamePrefix } from './petName.js';

/** A create body with one defect, and what the defect is. */
export interface DefectiveBody {
  body: Record<string, unknown>;
  /** Short description, e.g. `categoryId is a string`. */
  defect: string;
}

/** Constraints shared by the defective-body generators. */
export interface DefectiveBodyConstraints {
  prefix: NamePrefix;
}

const notAString = fc.oneof(
  fc.integer().map((n) => ({ value: n as unknown, kind: 'a number' })),
  fc.boolean().map((b) => ({ value: b as unknown, kind: 'a boolean' })),
  fc.constant({ value: null as unknown, kind: 'null' }),
  fc.array(fc.string(), { maxLength: 2 }).map((a) => ({ value: a as unknown, kind: 'an array' })),
  fc.constant({ value: {} as unknown, kind: 'an object' }),
);

const notAnInt64 = fc.oneof(
  fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map((n) => ({ value: n.toString() as unknown, kind: 'a string of digits' })),
  fc.tuple(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), fc.integer({ min: 1, max: 99 })).map(([whole, cents]) => ({
    value: new LosslessNumber(`${whole}.${String(cents).padStart(2, '0')}`) as unknown,
    kind: 'a number with a fraction',
  })),
  fc.bigInt({ min: INT64_MAX + 1n, max: 2n ** 80n }).map((n) => ({ value: n as unknown, kind: 'above the int64 maximum' })),
  fc.bigInt({ min: -(2n ** 80n), max: INT64_MIN - 1n }).map((n) => ({ value: n as unknown, kind: 'below the int64 minimum' })),
  fc.boolean().map((b) => ({ value: b as unknown, kind: 'a boolean' })),
  fc.constant({ value: null as unknown, kind: 'null' }),
  fc.array(fc.bigInt({ min: -5n, max: 5n }), { maxLength: 2 }).map((a) => ({ value: a as unknown, kind: 'an array' })),
  fc.constant({ value: {} as unknown, kind: 'an object' }),
);

/**
 * Status words a server may have kept from an old enum or added of its own:
 * each is outside PetStatus, so a create body carrying one must be refused.
 */
export const PLAUSIBLE_INVALID_STATUSES: readonly string[] = [
  'adopted',
  'reserved',
  'unavailable',
  'deleted',
  'archived',
  'active',
  'inactive',
  'on_hold',
  'draft',
  'new',
  'available2',
  'onhold',
  'in_stock',
  'hold',
];

/**
 * Built at its first use, not as the module loads: its pattern and grapheme arbitraries take about 20 ms of CPU to
 * build, which a run would otherwise spend before its first request (issue 23).
 */
let notAPetStatusMemo: fc.Arbitrary<{ value: unknown; kind: string }> | undefined;
const notAPetStatus = (): fc.Arbitrary<{ value: unknown; kind: string }> =>
  (notAPetStatusMemo ??= fc.oneof(
    fc
      .constantFrom(...PLAUSIBLE_INVALID_STATUSES)
      .map((s) => ({ value: s as unknown, kind: `"${s}", a plausible word outside PetStatus` })),
    fc
      .stringMatching(/^[a-z][a-z_]{1,11}$/)
      .filter((s) => !(PET_STATUSES as readonly string[]).includes(s))
      .map((s) => ({ value: s as unknown, kind: `"${s}", a lowercase word outside PetStatus` })),
    fc
      .string({ unit: 'grapheme', maxLength: 12 })
      .filter((s) => !(PET_STATUSES as readonly string[]).includes(s))
      .map((s) => ({ value: s as unknown, kind: 'a string outside PetStatus' })),
    fc
      .constantFrom(...PET_STATUSES)
      .chain((s) =>
        fc
          .constantFrom(s.toUpperCase(), s[0]!.toUpperCase() + s.slice(1), ` ${s}`, `${s} `)
          .map((v) => ({ value: v as unknown, kind: `"${v}" (not exactly a PetStatus)` })),
      ),
    fc.integer({ min: 0, max: 2 }).map((n) => ({ value: n as unknown, kind: 'a number' })),
    fc.boolean().map((b) => ({ value: b as unknown, kind: 'a boolean' })),
    fc.constant({ value: [] as unknown, kind: 'an array' }),
  ));

/** Valid NewPet bodies with exactly one field given an invalid value (wrong type, outside int64, outside PetStatus). */
export function invalidNewPet({ prefix }: DefectiveBodyConstraints): fc.Arbitrary<DefectiveBody> {
  const field = fc.oneof(
    notAString.map((bad) => ({ field: 'name', ...bad })),
    notAnInt64.map((bad) => ({ field: 'categoryId', ...bad })),
    notAPetStatus().map((bad) => ({ field: 'status', ...bad })),
  );
  return fc.tuple(newPet({ prefix }), field).map(([pet, bad]) => ({
    body: { ...toBody(pet), [bad.field]: bad.value },
    defect: `${bad.field} is ${bad.kind}`,
  }));
}

/**
 * `field` spelled in another case: a member a decoder that matches names
 * case-insensitively (Go's encoding/json) takes for `field`. RFC 8259 §8.3
 * compares member names code unit by code unit, so it is not `field`.
 */
export function otherCase(field: string): fc.Arbitrary<string> {
  const letters = [...field];
  return fc
    .tuple(
      fc.constantFrom(field.toUpperCase(), field.toLowerCase(), field[0]!.toUpperCase() + field.slice(1)),
      fc.array(fc.boolean(), { minLength: letters.length, maxLength: letters.length }),
    )
    .chain(([whole, flips]) => fc.constantFrom(whole, letters.map((c, i) => (flips[i] ? c.toUpperCase() : c.toLowerCase())).join('')))
    .filter((spelling) => spelling !== field);
}

/**
 * Valid NewPet bodies with name, categoryId or both left out; sometimes the
 * missing member is there under its name spelled in another case (`NAME`,
 * `categoryid`), which is still missing ("`name` and `categoryId` are required").
 */
export function newPetMissingField({ prefix }: DefectiveBodyConstraints): fc.Arbitrary<DefectiveBody> {
  const spelling = (field: string) => fc.option(otherCase(field), { nil: undefined, freq: 2 });
  return fc
    .tuple(newPet({ prefix }), fc.constantFrom(['name'], ['categoryId'], ['name', 'categoryId']), spelling('name'), spelling('categoryId'))
    .map(([pet, missing, nameAs, categoryIdAs]) => {
      const body = toBody(pet);
      const respelt: string[] = [];
      for (const key of missing) {
        const as = key === 'name' ? nameAs : categoryIdAs;
        if (as !== undefined) {
          body[as] = body[key];
          respelt.push(`${key} given as "${as}"`);
        }
        delete body[key];
      }
      return { body, defect: `${missing.join(' and ')} missing${respelt.length ? ` (${respelt.join(', ')})` : ''}` };
    });
}

/** A NewPet as a body object, status only when set. */
export function toBody(pet: NewPetInput): Record<string, unknown> {
  return pet.status === undefined
    ? { name: pet.name, categoryId: pet.categoryId }
    : { name: pet.name, categoryId: pet.categoryId, status: pet.status };
}
