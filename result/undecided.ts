/**
 * Rules decided on no case at all, and why: computed here once (as data) and
 * worded here once. The verdict policy (result/policy.ts) turns a selected,
 * unwaived MUST rule among them into an `inconclusive` verdict; every report
 * names them with the phrase of {@link undecidedText}, which points at the rule
 * to look at.
 */
import type { RuleId } from '../spec/rules.js';
import type { AnswerCount } from './reasons.js';
import type { RuleResult, UndecidedRule } from './model.js';

/**
 * The answers a rule's judgement reads, and the rule that judges those answers
 * first: GET-RESPONSE reads back the animals createPet made, so when
 * createPet never answered 201 there is nothing to read back, and
 * CREATE-RESPONSE is the rule to look at.
 */
const READS: Partial<Record<RuleId, RuleId>> = {
  'CREATE-ECHO': 'CREATE-RESPONSE',
  'CREATE-ID-UNIQUE': 'CREATE-RESPONSE',
  'GET-RESPONSE': 'CREATE-RESPONSE',
  'LIST-STATUS-COMPLETE': 'CREATE-RESPONSE',
  'LIST-PAGE-FULL': 'CREATE-RESPONSE',
  'GET-DEPRECATION-HEADER': 'GET-RESPONSE',
  'GET-SUNSET-HEADER': 'GET-RESPONSE',
  'GET-SUCCESSOR-LINK': 'GET-RESPONSE',
};

/** What the upstream rule's operation answers when it holds, for "createPet never answered 201". */
const ANSWER_OF: Partial<Record<RuleId, { operation: string; answer: string }>> = {
  'CREATE-RESPONSE': { operation: 'createPet', answer: '201' },
  'GET-RESPONSE': { operation: 'getPet', answer: '200 with the Pet' },
};

/**
 * Every rule decided on no case (outcome `inconclusive`), in catalog order,
 * with its cause: the upstream rule that failed or was waived when the answers
 * it reads depend on it ({@link READS}, followed through rules themselves
 * undecided), else what its own checks were answered.
 */
export function undecidedRules(rules: readonly RuleResult[]): UndecidedRule[] {
  const byId = new Map(rules.map((r) => [r.id, r]));
  return rules
    .filter((r) => r.outcome === 'inconclusive')
    .map((rule): UndecidedRule => {
      const seen = new Set<RuleId>([rule.id]);
      for (let up = READS[rule.id]; up && !seen.has(up); up = READS[up]) {
        seen.add(up);
        const upstream = byId.get(up);
        if (!upstream) break;
        if (upstream.outcome === 'fail' || upstream.outcome === 'waived') {
          const never = upstream.checks.every((c) => c.passed === 0);
          return withText({ rule: rule.id, see: up, why: { code: 'upstream', upstream: up, outcome: upstream.outcome, never } });
        }
        if (upstream.outcome !== 'inconclusive') break;
      }
      const answers = new Map<string, number>();
      for (const c of rule.checks)
        if (c.why?.code === 'nothing-judged') for (const a of c.why.answers) answers.set(a.label, (answers.get(a.label) ?? 0) + a.count);
      return withText({
        rule: rule.id,
        see: rule.id,
        why: { code: 'answers', answers: [...answers].map(([label, count]): AnswerCount => ({ label, count })) },
      });
    });
}

function withText(u: Omit<UndecidedRule, 'cause'>): UndecidedRule {
  return { ...u, cause: causeText(u.why) };
}

/** The cause in a few words: `createPet never answered 201`. */
function causeText(why: UndecidedRule['why']): string {
  if (why.code === 'upstream') {
    const answer = ANSWER_OF[why.upstream];
    if (why.never && answer)
      return `${answer.operation} never answered ${answer.answer}${why.outcome === 'waived' ? ` (${why.upstream} waived)` : ''}`;
    return `the answers it reads failed ${why.upstream}${why.outcome === 'waived' ? ' (waived)' : ''}`;
  }
  const total = why.answers.reduce((n, a) => n + a.count, 0);
  if (total === 0) return 'its checks sent no request that could show it';
  const most = [...why.answers].sort((a, b) => b.count - a.count || a.label.localeCompare(b.label)).slice(0, 3);
  return `none of its ${total} answers could be judged (${most.map((a) => `${a.label} ×${a.count}`).join(', ')}${why.answers.length > 3 ? ', …' : ''})`;
}

/** The one phrase every report shows: `not judged: createPet never answered 201; see CREATE-RESPONSE`. */
export function undecidedText(u: Pick<UndecidedRule, 'cause' | 'see'>): string {
  return `not judged: ${u.cause}; see ${u.see}`;
}
