/**
 * `rules`: the rule catalog as text, with the checks that verify each rule.
 * The checks per rule are read from spec/rule-checks.json, which cli/generated.ts
 * writes from the registry: importing the checks themselves would load
 * fast-check, ajv and the engine's judges to print a list.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../core/version.js';
import { gaps } from '../spec/gaps.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import { rules } from '../spec/rules.js';

/** Path, relative to the package root, of the check ids per rule id. */
export const RULE_CHECKS_FILE = 'spec/rule-checks.json';

/** The rule catalog as text, with the checks that verify each rule. `ruleChecks` defaults to {@link RULE_CHECKS_FILE}. */
export function renderRules(
  ruleChecks: Record<string, readonly string[]> = JSON.parse(readFileSync(join(PACKAGE_ROOT, RULE_CHECKS_FILE), 'utf8')),
): string {
  const lines = [`Rules of the Animal Store Service interface ${INTERFACE_VERSION} (${rules.length}):`, ''];
  for (const rule of rules) {
    lines.push(
      `${rule.id}  ${rule.severity}  ${rule.title}`,
      `    section: ${rule.section}`,
      `    checks:  ${(ruleChecks[rule.id] ?? []).join(', ')}`,
    );
  }
  lines.push('', `Gaps (never failed; observed): ${gaps.map((g) => g.id).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** `rules --json`: the catalog and the gaps. */
export function renderRulesJson(): string {
  return `${JSON.stringify({ rules, gaps }, null, 2)}\n`;
}
