import fc from 'fast-check';
import { PET_STATUSES, type PetStatus } from '../spec/openapi.js';
import { int64 } from './int64.js';
import { type NamePrefix, ordinaryPetName, petName } from './petName.js';

/** A valid NewPet, with categoryId exact. */
export interface NewPetInput {
  name: string;
  categoryId: bigint;
  status?: PetStatus;
}

/** Constraints of {@link newPet}. */
export interface NewPetConstraints {
  /** What every name follows: the run's prefix, or natural names drawn with each (generators/names.ts). */
  prefix: NamePrefix;
  /** Whether status may be left out. Default true. */
  optionalStatus?: boolean;
  /** `any` (default): hostile names, any Unicode scalar value; `ordinary`: ordinary printable names every target must accept. */
  names?: 'any' | 'ordinary';
  /** categoryIds to draw from (ones the target accepted). Default: all of int64. */
  categoryIds?: readonly bigint[];
}

/** Any PetStatus. */
export function petStatus(): fc.Arbitrary<PetStatus> {
  return fc.constantFrom(...PET_STATUSES);
}

/** Valid NewPet bodies: hostile (or ordinary) names, categoryIds across all of int64 (or from a given set), status present or not. */
export function newPet({ prefix, optionalStatus = true, names = 'any', categoryIds }: NewPetConstraints): fc.Arbitrary<NewPetInput> {
  if (categoryIds !== undefined && categoryIds.length === 0) throw new RangeError('newPet: categoryIds, when given, must not be empty');
  return fc.record(
    {
      name: names === 'ordinary' ? ordinaryName(prefix) : petName({ prefix }),
      categoryId: categoryIds ? fc.constantFrom(...categoryIds) : int64(),
      status: petStatus(),
    },
    { requiredKeys: optionalStatus ? ['name', 'categoryId'] : ['name', 'categoryId', 'status'] },
  );
}

/**
 * Ordinary names after `prefix`. Drawn stems (a certification's natural names
 * and a space) are mostly sent alone, as the animal names they are, and now
 * and then with generated ordinary characters after them, for the repertoire.
 */
function ordinaryName(prefix: NamePrefix): fc.Arbitrary<string> {
  if (typeof prefix === 'string') return ordinaryPetName({ prefix });
  return fc.oneof({ weight: 3, arbitrary: prefix.map((stem) => stem.trimEnd()) }, { weight: 1, arbitrary: ordinaryPetName({ prefix }) });
}
