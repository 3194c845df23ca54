import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ruleAnchor } from '../../../spec/anchor.js';
import { rules } from '../../../spec/rules.js';

/** GitHub's heading id: lower case, spaces to hyphens, other punctuation dropped. */
const githubSlug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

describe('one anchor per rule', () => {
  it("is the id RULES.md's heading of the rule gets from a Markdown renderer", () => {
    const headings = [...readFileSync(new URL('../../../RULES.md', import.meta.url), 'utf8').matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    for (const rule of rules) {
      expect(headings, rule.id).toContain(rule.id);
      expect(ruleAnchor(rule.id)).toBe(githubSlug(rule.id));
    }
  });

  it('is a lower-case HTML id for a threshold id too, and for any text', () => {
    expect(ruleAnchor('LOAD-SMOKE-ALL-P99')).toBe('load-smoke-all-p99');
    expect(ruleAnchor('A B"<x>')).toMatch(/^[a-z0-9_-]+$/);
  });
});
