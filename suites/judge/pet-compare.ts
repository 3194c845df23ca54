/**
 * How a Pet compares with what it should carry, for the shared judgements
 * (suites/judge.ts, suites/judge/list.ts): real differences, and differences
 * the document leaves open (observed, never failed), with the words for names.
 */
import { excerpt } from '../../core/excerpt.js';
import { show } from '../../core/json.js';
import type { NewPetInput } from '../../generators/newPet.js';
import { PET_STATUSES } from '../../spec/openapi.js';
import type { Asserter, Observer, PetView, SentExchange } from '../check.js';

/** Gaps the shared judgements observe; a check that calls them declares these. */
export const JUDGE_GAPS = ['GAP-NAME-NORMALISATION', 'GAP-STATUS-TRANSITIONS'] as const;

/** What the shared judgements record into: assertions, and observations where the document leaves things open. */
export type Judge = Asserter & Observer;

/** A string shown exactly, escapes and all, for messages about names. */
export function showString(value: string): string {
  return show(value, 120);
}

/** Code points as `U+0065 U+0301`, at most `max` of them. */
export function codePoints(text: string, max = 8): string {
  return excerpt(text, max, { mode: 'codepoints' });
}

/**
 * Where two names part, in code points, so that names that look alike are told
 * apart. Both names go in whole: the difference is found once they are redacted.
 */
export function nameDifference(received: string, sent: string): string {
  return excerpt(JSON.stringify([received, sent]), 8, { mode: 'difference' });
}

/** How a Pet compares with what it should carry: real differences, and differences the document leaves open. */
export interface Comparison {
  /** `field received for expected`, one per field; empty when it matches. */
  wrong: string[];
  /** Canonically equivalent names, statuses that moved: observations, not failures. */
  notes: { gap: (typeof JUDGE_GAPS)[number]; text: string }[];
}

/**
 * Compares a Pet with what it should carry: name and categoryId exactly (a
 * name in another normalisation form of the same text is a note), status when
 * one is expected (an omitted status may come back as anything; with
 * `statusMayMove`, another PetStatus is a note: transitions are not shown).
 */
export function comparePet(pet: PetView, want: NewPetInput, statusMayMove: boolean): Comparison {
  const result: Comparison = { wrong: [], notes: [] };
  if (pet.name !== want.name) {
    if (pet.name.normalize('NFC') === want.name.normalize('NFC'))
      result.notes.push({
        gap: 'GAP-NAME-NORMALISATION',
        text: `a name returned in another normalisation form of the same text (${nameDifference(pet.name, want.name)})`,
      });
    else result.wrong.push(`name ${showString(pet.name)} for ${showString(want.name)} (${nameDifference(pet.name, want.name)})`);
  }
  if (pet.categoryId !== want.categoryId) result.wrong.push(`categoryId ${pet.categoryId} for ${want.categoryId}`);
  if (want.status !== undefined && pet.status !== want.status) {
    if (statusMayMove && pet.status !== undefined && (PET_STATUSES as readonly string[]).includes(pet.status))
      result.notes.push({ gap: 'GAP-STATUS-TRANSITIONS', text: `an animal created as "${want.status}" read later as "${pet.status}"` });
    else result.wrong.push(`status ${pet.status === undefined ? 'absent' : JSON.stringify(pet.status)} for ${JSON.stringify(want.status)}`);
  }
  return result;
}

/** Records a comparison's notes as observations. */
export function noteAll(a: Judge, operation: 'createPet' | 'getPet' | 'listPets', comparison: Comparison, exchange: SentExchange): void {
  for (const note of comparison.notes) a.observe(note.gap, operation, note.text, exchange);
}
