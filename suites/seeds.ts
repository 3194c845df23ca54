/**
 * What a run's seed alone determines besides the requests' order: each
 * check's seed, and the names of the run's animals (never holding a form of
 * the key, so redacting it never rewrites what the suite sent).
 */
import type { Disguise } from '../core/clients.js';
import { UsageError } from '../core/errors.js';
import { redactorFor } from '../core/redact.js';
import { type Names, naturalNames } from '../generators/names.js';

/**
 * The name prefix of a run's animals, from its seed alone (a seed fully
 * determines the requests): `pctest-` and four hex digits, or another stem when
 * the key would occur in it, so redacting the key never rewrites what the suite sent.
 */
export function namePrefixFor(seed: number, apiKey: string): string {
  // Every form the redactor finds (case-folded, pieces): a prefix holding one would be withheld from every request.
  const holdsKey = redactorFor(apiKey);
  for (let salt = 0; salt < 64; salt++) {
    const hex = (checkSeed(seed, `name-prefix ${salt}`) >>> 0).toString(16).padStart(8, '0').slice(0, 4);
    const stem = ['pctest-', 'pc-', 'petconf-', 'suite-'][salt % 4]!;
    const prefix = `${stem}${hex} `;
    if (!prefix.toLowerCase().includes(apiKey.toLowerCase()) && !holdsKey.leaks(prefix)) return prefix;
  }
  throw new UsageError('the API key is so short that it occurs in every name the suite could give its animals; use a real key');
}

/**
 * The names of a certification run (generators/names.ts `naturalNames`), from
 * its seed alone; a name that would hold a form of the key is drawn again, as
 * {@link namePrefixFor} does, so redacting the key never rewrites what the suite sent.
 */
export function naturalNamesFor(seed: number, apiKey: string, disguise: Disguise = 'drawn'): Names {
  const holdsKey = redactorFor(apiKey);
  return naturalNames({
    coined: disguise === 'drawn',
    seedOf: (purpose) => checkSeed(seed, `name ${purpose}`),
    accept: (name) => !name.toLowerCase().includes(apiKey.toLowerCase()) && !holdsKey.leaks(name),
  });
}

/** A 32-bit seed for one check, from the run seed and the check id: filtering checks does not change what another generates. */
export function checkSeed(runSeed: number, checkId: string): number {
  let hash = 0x811c9dc5 ^ runSeed;
  for (const ch of checkId) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193);
  return hash | 0;
}
