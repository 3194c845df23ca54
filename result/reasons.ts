/**
 * Why a run stopped and why a check or phase did not run, as data, and their
 * one wording. The engine and the session speak in these; the result carries
 * both the data (`why`) and this wording (`reason`), rendered once here.
 */
import type { RuleId } from '../spec/rules.js';

/** The signals that stop a run (the shell's 130, 143 and 129: Ctrl-C, a stop asked for, the terminal gone). */
export const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type InterruptSignal = (typeof INTERRUPT_SIGNALS)[number];

/** Why the run stopped sending before its end. */
export type StopReason =
  /** Requests in a row got no response at all (suites/silence.ts); `detail`: the last transport error. */
  | { code: 'target-silent'; detail: string }
  /**
   * Requests in a row got no response, the last because the proxy failed its
   * tunnel (refused, reset, closed; core/tunnel.ts): they did not reach the
   * target. `detail`: that failure.
   */
  | { code: 'proxy-failed'; detail: string }
  /**
   * A request's deadline came due while the suite's own event loop was
   * stalled (`ms` the last time), `times` in a row (suites/session.ts): the
   * run could not tell whether the target answered.
   */
  | { code: 'suite-stalled'; ms: number; times: number }
  | { code: 'time-bound'; seconds: number }
  | { code: 'max-failures'; failing: number; limit: number }
  | { code: 'interrupted'; signal: InterruptSignal }
  /** The preflight showed the target cannot be tested (`code`: a `PC_ERR_…` code). */
  | { code: 'preflight'; error: { code: string; message: string } };

/** Why a check, a rule of it, or a phase has no verdict of its own. */
export type SkipReason =
  /** Its rules are left out by the run's selection (`only`/`skip`). */
  | { code: 'not-selected' }
  /**
   * Its rule needs what the run was not asked to do: CLIENT-INDEPENDENT
   * compares answers across client fingerprints, and the run spoke as one
   * client. Never undecided: the run did not ask the question.
   */
  | { code: 'not-asked'; needs: string }
  /** The run stopped before it started. */
  | { code: 'not-run'; stop: StopReason }
  /** The run stopped while it ran: what it judged before stands. */
  | { code: 'cut-short'; stop: StopReason }
  /**
   * It ran but judged nothing for `rule`: what its own requests were answered
   * (`scope: 'check'`), or, for a response check, what every answer of the run was.
   */
  | { code: 'nothing-judged'; rule: RuleId; scope: 'check' | 'run'; answers: AnswerCount[] }
  | { code: 'crashed'; detail: string }
  | { code: 'load-none' }
  /** The load profile was not started against a target that does not authenticate as the document requires. */
  | { code: 'load-refused'; failed: RuleId[] }
  | { code: 'load-not-started'; stop: StopReason }
  /** The run stopped while the profile created its animals. */
  | { code: 'load-not-run'; stop: StopReason };

/** How many answers had one label: a status (`503`) or `no response (PC_ERR_TIMEOUT)`. */
export interface AnswerCount {
  label: string;
  count: number;
}

/** Thrown into checks once the run must stop sending: what was measured stays, the rest is reported as not run. */
export class TargetLost extends Error {
  constructor(readonly reason: StopReason) {
    super(stopText(reason));
  }
}

export function stopText(stop: StopReason): string {
  switch (stop.code) {
    case 'target-silent':
      return `the target stopped answering (${stop.detail})`;
    case 'proxy-failed':
      return `requests stopped reaching the target through the proxy (${stop.detail}); the target is not blamed`;
    case 'suite-stalled':
      return `the suite's own event loop stalled (for ${stop.ms} ms the last time) when a request's deadline came due, ${stop.times} times in a row, so whether the target answered in time is unknown; the target is not blamed (the machine was too busy for the run, or an answer too costly to handle)`;
    case 'time-bound':
      return `the run reached its time bound (${stop.seconds} s)`;
    case 'max-failures':
      return `stopped after ${stop.failing} failing rule${stop.failing === 1 ? '' : 's'} (the run's limit: ${stop.limit})`;
    case 'interrupted':
      return `interrupted by ${stop.signal}`;
    case 'preflight':
      return stop.error.message;
  }
}

export function skipText(why: SkipReason): string {
  switch (why.code) {
    case 'not-selected':
      return 'not among the rules selected to run';
    case 'not-asked':
      return `not asked: it needs ${why.needs}`;
    case 'not-run':
      return `not run: ${stopText(why.stop)}`;
    case 'cut-short':
      return `cut short: ${stopText(why.stop)}`;
    case 'nothing-judged':
      return nothingJudgedText(why);
    case 'crashed':
      return `check crashed: ${why.detail}`;
    case 'load-none':
      return 'load profile "none"';
    case 'load-refused':
      return `load not started: the target does not authenticate as the document requires (${why.failed.join(', ')} failed)`;
    case 'load-not-started':
      return `load not started: ${stopText(why.stop)}`;
    case 'load-not-run':
      return `load not run: ${stopText(why.stop)}`;
  }
}

function nothingJudgedText({ rule, scope, answers }: Extract<SkipReason, { code: 'nothing-judged' }>): string {
  const total = answers.reduce((sum, a) => sum + a.count, 0);
  if (scope === 'run') {
    return total === 0
      ? `no response came back in the whole run, so there was nothing for this check to judge for ${rule}`
      : `none of the run's ${total} answers was one this check judges for ${rule}: they were ${tally(answers)}`;
  }
  if (total === 0) return `this check sent no request that could show ${rule} (what it needed from earlier phases was not there)`;
  return `this check sent ${total} request${total === 1 ? '' : 's'}, answered ${tally(answers)}: none of the answers was one it could judge ${rule} on`;
}

/** Answers by count, most frequent first: `503 ×40, 401 ×12, no response (PC_ERR_TIMEOUT) ×2`. */
function tally(answers: readonly AnswerCount[], most = 6): string {
  const sorted = [...answers].sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
  const shown = sorted.slice(0, most).map((a) => `${a.label} ×${a.count}`);
  return `${shown.join(', ')}${sorted.length > most ? `, ${sorted.length - most} other kinds` : ''}`;
}
