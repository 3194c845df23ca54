/**
 * The one anchor of a rule (or a load threshold) wherever it is shown: the
 * HTML report, the matrix and RULES.md, whose `## RULE-ID` headings get this
 * very id from GitHub and other Markdown renderers (lower case).
 */
export function ruleAnchor(id: string): string {
  return id.toLowerCase().replace(/[^a-z0-9_-]/g, '_');
}
