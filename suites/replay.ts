/**
 * Judging one answer again, alone: what `petstore-conformance replay` does with
 * a failure's recorded request after sending it again. It uses the same
 * judgements as the run, on a fresh, empty view of the store.
 */
import { int64Of, isJsonObject, parseJson } from '../core/json.js';
import type { NewPetInput } from '../generators/newPet.js';
import { findingText } from '../spec/findings.js';
import type { PetStatus } from '../spec/openapi.js';
import type { RuleId } from '../spec/rules.js';
import { type Asserter, type Observer, type SentExchange, StoreState } from './check.js';
import { responseChecks } from './checks/responses.js';
import { describeResponse, judgeCreated, judgeFetched, judgeList } from './judge.js';
import type { Judgement } from '../result/model.js';

export interface Rejudged {
  /** `not-judged`: the judgement needs the run's state, or no longer applies to this answer. */
  verdict: 'pass' | 'fail' | 'not-judged';
  /** Failure messages, or why it was not judged. */
  messages: string[];
  /** Rules that passed and failed. */
  passed: RuleId[];
  failed: RuleId[];
}

/**
 * Judges `x` as `judge` says. `sameTarget`: the answer comes from the target the
 * failure was recorded against; otherwise what the run knew of that store (how
 * many animals it provably held) does not apply.
 */
export function rejudge(judge: Judgement, x: SentExchange, sameTarget: boolean): Rejudged {
  const passed: RuleId[] = [];
  const failed: RuleId[] = [];
  const messages: string[] = [];
  const a: Asserter & Observer = {
    observe: () => {},
    pass: (rule) => void passed.push(rule),
    fail: (rule, message) => {
      failed.push(rule);
      messages.push(`${rule}: ${findingText(message)}`);
    },
    inconclusive: (rule, message) => void messages.push(`${rule} inconclusive: ${findingText(message)}`),
  };
  switch (judge.kind) {
    case 'none':
      return { verdict: 'not-judged', messages: [judge.why], passed, failed };
    case 'response': {
      const check = responseChecks.find((c) => c.id === judge.check);
      if (!check) return { verdict: 'not-judged', messages: [`this version has no check ${judge.check}`], passed, failed };
      check.inspect(x, a);
      break;
    }
    case 'status':
    case 'not-status': {
      const status = x.response?.status;
      const ok =
        judge.kind === 'status'
          ? status !== undefined && judge.expected.includes(status)
          : status !== undefined && !judge.refused.includes(status);
      const wanted = judge.kind === 'status' ? judge.expected.join(' or ') : `anything but ${judge.refused.join(', ')}`;
      if (ok) a.pass(judge.rule);
      else a.fail(judge.rule, { code: 'WRONG_STATUS', args: { status: wanted, request: judge.what, received: describeResponse(x) } }, [x]);
      break;
    }
    case 'list':
      judgeList(a, x, judge.query as { limit?: number; status?: PetStatus }, new StoreState(), sameTarget ? judge.proven : 0);
      break;
    case 'create': {
      const sent = newPetOf(x.request.body ? Buffer.from(x.request.body).toString('utf8') : '');
      if (!sent) return { verdict: 'not-judged', messages: ['the recorded body is not a valid NewPet'], passed, failed };
      judgeCreated(a, x, sent, new StoreState());
      break;
    }
    case 'fetch': {
      const sent = newPetOf(judge.sent);
      if (!sent) return { verdict: 'not-judged', messages: ['the recorded animal is not a valid NewPet'], passed, failed };
      judgeFetched(a, x, sent, BigInt(judge.id), x);
      break;
    }
  }
  if (failed.length > 0) return { verdict: 'fail', messages, passed, failed };
  if (passed.length > 0) return { verdict: 'pass', messages, passed, failed };
  return { verdict: 'not-judged', messages: messages.length ? messages : ['the judgement does not apply to this answer'], passed, failed };
}

/** A NewPet from JSON text, exact; undefined when it is not one. */
function newPetOf(text: string): NewPetInput | undefined {
  let value;
  try {
    value = parseJson(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value) || typeof value.name !== 'string') return undefined;
  const categoryId = int64Of(value.categoryId);
  if (categoryId === undefined) return undefined;
  return { name: value.name, categoryId, ...(typeof value.status === 'string' ? { status: value.status as PetStatus } : {}) };
}
