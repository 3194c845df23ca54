import fc from 'fast-check';
import { PET_STATUSES, type PetStatus } from '../spec/openapi.js';
import { int64 } from './int64.js';
import { petName } from './petName.js';

/** A valid NewPet, with categoryId exact. */
export interface NewPetInput {
  name: string;
  categoryId: bigint;
  status?: PetStatus;
}

/** Constraints of {@link newPet}. */
export interface NewPetConstraints {
  /** Name prefix of every animal the suite creates. */
  prefix: string;
  /** Whether status may be left out. Default true. */
  optionalStatus?: boolean;
}

/** Any PetStatus. */
export function petStatus(): fc.Arbitrary<PetStatus> {
  return fc.constantFrom(...PET_STATUSES);
}

/** Valid NewPet bodies: hostile names, categoryIds across all of int64, status present or not. */
export function newPet({ prefix, optionalStatus = true }: NewPetConstraints): fc.Arbitrary<NewPetInput> {
  return fc.record(
    { name: petName({ prefix }), categoryId: int64(), status: petStatus() },
    { requiredKeys: optionalStatus ? ['name', 'categoryId'] : ['name', 'categoryId', 'status'] },
  );
}
