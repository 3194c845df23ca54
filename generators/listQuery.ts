import fc from 'fast-check';
import type { PetStatus } from '../spec/openapi.js';
import { petStatus } from './newPet.js';

/** A valid listPets query. */
export interface ListQuery {
  limit?: number;
  status?: PetStatus;
}

/** Valid listPets queries: limit in 1..100 or absent, status a PetStatus or absent. */
export function listQuery(): fc.Arbitrary<ListQuery> {
  return fc.record({ limit: fc.integer({ min: 1, max: 100 }), status: petStatus() }, { requiredKeys: [] });
}

/** The query string of a listPets query (`?limit=5&status=sold`, or empty). */
export function listQueryString(query: ListQuery): string {
  const params = new URLSearchParams();
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  if (query.status !== undefined) params.set('status', query.status);
  const text = params.toString();
  return text ? `?${text}` : '';
}
