/**
 * What a rule of the catalog (spec/rules.ts) is: its severity, its group, and
 * the fields every rule states.
 */

/** MUST: what the document states; SHOULD: what HTTP standards add to it. */
export type Severity = 'MUST' | 'SHOULD';

/** Rule groups, in report order. */
export const RULE_GROUPS = ['resources', 'listPets', 'createPet', 'getPet', 'storeOrders', 'auth', 'errors', 'deprecation'] as const;
/** One of {@link RULE_GROUPS}. */
export type RuleGroup = (typeof RULE_GROUPS)[number];

/** One rule of the catalog: what it is called and where the document states it. */
export interface RuleDefinition {
  id: string;
  title: string;
  severity: Severity;
  group: RuleGroup;
  /** Section of the interface document, as its headings read (`Endpoints › listPets`). */
  section: string;
  /** The sentence or table row the rule comes from, quoted. */
  statement: string;
  /** How the document's words become a check, where that needs saying. */
  interpretation?: string;
  /** Standards a SHOULD rule rests on. */
  references?: readonly string[];
}

/** A rule as written in the catalog, its literal types kept (RuleId is derived from them). */
export const rule = <const R extends RuleDefinition>(r: R): R => r;
