/** fast-check arbitraries for the Animal Store Service, one file per factory. */
export { INT64_EDGES, int64 } from './int64.js';
export {
  HOSTILE_NAME_SUFFIXES,
  MAX_NAME_CODE_POINTS,
  MAX_NAME_UTF8_BYTES,
  ORDINARY_NAME_SUFFIXES,
  ordinaryCodePoint,
  ordinaryPetName,
  outsideRepertoire,
  petName,
  type NamePrefix,
  type PetNameConstraints,
} from './petName.js';
export {
  naturalName,
  naturalNames,
  type Names,
  type NameScript,
  type NaturalNamesOptions,
  PET_NAME_VOCABULARY,
  prefixedNames,
} from './names.js';
export { scalarValue } from './scalarValue.js';
export { newPet, petStatus, type NewPetConstraints, type NewPetInput } from './newPet.js';
export { listQuery, listQueryString, type ListQuery } from './listQuery.js';
export {
  invalidNewPet,
  newPetMissingField,
  otherCase,
  PLAUSIBLE_INVALID_STATUSES,
  toBody,
  type DefectiveBody,
  type DefectiveBodyConstraints,
} from './invalidNewPet.js';
