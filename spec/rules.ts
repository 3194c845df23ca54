/**
 * The rule catalog: every rule the interface document states, as typed data.
 * Checks name rules by id; the id is also the `--only`/`--skip` value, the
 * report key, the JUnit testcase name and the RULES.md heading.
 *
 * Severity:
 * - MUST: what the document states. One failure makes the run non-conformant.
 * - SHOULD: what HTTP standards add to the document. A failure is a warning;
 *   `--strict` makes warnings fail the run.
 *
 * The rules themselves are data modules of their own, in catalog order:
 * spec/rules/operations.ts (resources and operations), spec/rules/protocol.ts
 * (authentication, errors, deprecation, media type); what a rule is,
 * spec/rules/definition.ts.
 */
import type { RuleDefinition } from './rules/definition.js';
import { operationRules } from './rules/operations.js';
import { protocolRules } from './rules/protocol.js';

export { RULE_GROUPS, type RuleDefinition, type RuleGroup, type Severity } from './rules/definition.js';

/** Every rule of the catalog, in report order. */
export const rules = [...operationRules, ...protocolRules] as const satisfies readonly RuleDefinition[];

/** A rule of the catalog, with its literal types. */
export type Rule = (typeof rules)[number];
/** The id of a rule of the catalog. */
export type RuleId = Rule['id'];

const byId = new Map<string, Rule>(rules.map((r) => [r.id, r]));

/** The rule with this id. Throws for an unknown id (a programming error). */
export function ruleById(id: RuleId): Rule {
  const found = byId.get(id);
  if (!found) throw new Error(`unknown rule ${id}`);
  return found;
}

/** True when `id` names a rule of the catalog. */
export function isRuleId(id: string): id is RuleId {
  return byId.has(id);
}

/**
 * Statements of the document that no behaviour of a server can show, listed so
 * that every sentence of the document is accounted for.
 */
export const untestableStatements = [
  {
    section: 'What the service does',
    statement: 'All operations are grouped under the tag `animals`.',
    reason: 'A documentation grouping; recorded in spec/openapi.json.',
  },
  {
    section: 'Versioning, item 1',
    statement: 'The interface version is 1.0.0; the version segment `/v1` is part of {base_url}.',
    reason: 'Describes the address, which the user supplies; the suite appends paths to it as given.',
  },
  {
    section: 'Versioning, item 3',
    statement: 'Some endpoints may carry a stability marker (`experimental` or `beta`) … none is marked for them.',
    reason: 'The document does not say how a marker would appear on the wire.',
  },
  {
    section: 'Endpoints',
    statement: 'A staging environment exists at {staging_base_url}, with the same paths.',
    reason: 'Deployment fact; point the base URL at either.',
  },
] as const;
