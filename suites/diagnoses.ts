/**
 * Diagnoses: a known cause named on a failing rule, only when every kept
 * failing finding of the rule shows its pattern (certain, never a guess). Each
 * pattern reads the differences the judgements record (suites/judge.ts
 * `comparePet` and `judgeFetched`: `categoryId A for B`, `id A` for the id
 * asked, `name "A" for "B" (…)`), computed and worded here once.
 */
import type { Diagnosis, Finding, RuleResult } from '../result/model.js';

const TWO_53 = 2n ** 53n;
const INT32_MAX = 2n ** 31n - 1n;
const INT32_MIN = -(2n ** 31n);

/** One difference: a number answered for another, or a name. */
type Difference =
  | { kind: 'number'; field: 'id' | 'categoryId'; got: bigint; want: bigint }
  | { kind: 'name'; got: string; want: string }
  | { kind: 'other' };

const integer = (text: string | undefined): bigint | undefined => (text !== undefined && /^-?\d+$/.test(text) ? BigInt(text) : undefined);

function differencesOf(finding: Finding): Difference[] | undefined {
  const args = finding.args as { differences?: unknown; id?: unknown; received?: unknown };
  // A 404 for an animal seen before is the same lookup, when its answer names the rounded id.
  if (finding.code === 'FETCH_FAILED' || finding.code === 'SEEN_THEN_MISSING')
    return fetchFailed(integer(typeof args.id === 'string' ? args.id : undefined), String(args.received ?? ''));
  if (!Array.isArray(args.differences)) return undefined;
  return args.differences.map((d): Difference => {
    const text = String(d);
    const number = /^(categoryId) (-?\d+) for (-?\d+)$/.exec(text);
    if (number) return { kind: 'number', field: 'categoryId', got: BigInt(number[2]!), want: BigInt(number[3]!) };
    const id = /^id (-?\d+)$/.exec(text);
    const asked = integer(typeof args.id === 'string' ? args.id : undefined);
    if (id && asked !== undefined) return { kind: 'number', field: 'id', got: BigInt(id[1]!), want: asked };
    const name = /^name ("(?:[^"\\]|\\.)*") for ("(?:[^"\\]|\\.)*") \(/.exec(text);
    if (name) {
      try {
        return { kind: 'name', got: JSON.parse(name[1]!) as string, want: JSON.parse(name[2]!) as string };
      } catch {
        return { kind: 'other' };
      }
    }
    return { kind: 'other' };
  });
}

/**
 * A getPet that found nothing shows the rounding only when its answer names
 * the id asked for as its nearest double (`No animal has id 9007199254740992.`
 * for 9007199254740993, written as {@link asDouble} says): the id the server looked up.
 */
function fetchFailed(asked: bigint | undefined, received: string): Difference[] | undefined {
  if (asked === undefined) return undefined;
  // Digits are read with the sign of the id asked for: a message may put a dash before a number ("id-9007199254740992").
  const sign = asked < 0n ? -1n : 1n;
  const named = [...received.matchAll(/[0-9]+/g)].map((m) => sign * BigInt(m[0])).find((n) => n !== asked && asDouble(n, asked));
  return named === undefined ? undefined : [{ kind: 'number', field: 'id', got: named, want: asked }];
}

const abs = (n: bigint) => (n < 0n ? -n : n);
/**
 * Whether `got` is `want` as a server holding it in an IEEE double writes it back: the nearest double (ties to even,
 * what `Number()` does), written with all its digits (9007199254740992) or with the fewest that read back to it, as
 * JavaScript and Python print a double (-7149901668071186000 for -7149901668071186432).
 */
const asDouble = (got: bigint, want: bigint): boolean => {
  const d = Number(want);
  return Number.isFinite(d) && (got === BigInt(d) || `${got}` === String(d));
};

/** A pattern: whether one finding's differences show it, and its words. */
interface Pattern {
  code: Diagnosis['code'];
  /** The finding shows the pattern: the field it was seen on, or undefined. */
  shows: (differences: readonly Difference[]) => string | undefined;
  /** Its words, for the fields it was seen on (`ids`, `categoryIds`). */
  text: (fields: string) => string;
}

/** A numeric pattern holds when the finding has such a difference and any id difference among them has it too (another animal's name follows from the wrong id). */
function numeric(code: Diagnosis['code'], holds: (got: bigint, want: bigint) => boolean, text: (fields: string) => string): Pattern {
  return {
    code,
    text,
    shows(differences) {
      const numbers = differences.filter((d) => d.kind === 'number');
      if (numbers.length === 0) return undefined;
      const id = numbers.find((d) => d.field === 'id');
      // A wrong id makes every other difference that animal's: the id alone decides. Otherwise every difference must show it.
      const decisive = id ? [id] : differences;
      if (!decisive.every((d) => d.kind === 'number' && holds(d.got, d.want))) return undefined;
      return (id ?? numbers[0]!).field;
    },
  };
}

const PATTERNS: readonly Pattern[] = [
  numeric(
    'ids-as-doubles',
    (got, want) => abs(want) > TWO_53 && got !== want && asDouble(got, want),
    (fields) => `${fields} above 2^53 lose precision: the server handles them as IEEE doubles`,
  ),
  numeric(
    'int32-clamp',
    (got, want) => (want > INT32_MAX && got === INT32_MAX) || (want < INT32_MIN && got === INT32_MIN),
    (fields) => `${fields} beyond 32 bits are clamped to ±2^31-1: the server stores them as 32-bit integers`,
  ),
  numeric(
    'int32-wrap',
    (got, want) => (want > INT32_MAX || want < INT32_MIN) && got !== want && BigInt.asIntN(32, want) === got,
    (fields) => `${fields} beyond 32 bits wrap around (mod 2^32): the server stores them as 32-bit integers`,
  ),
  {
    code: 'names-trimmed',
    text: () => 'names lose their leading or trailing white space: the server trims them',
    shows: (differences) =>
      differences.length > 0 && differences.every((d) => d.kind === 'name' && d.got !== d.want && d.got === d.want.trim())
        ? 'name'
        : undefined,
  },
];

/**
 * The diagnoses of a failing rule: each pattern that every kept failing
 * finding of it shows (on whichever of its fields). None for a rule that did not fail,
 * nor when one finding does not fit.
 */
export function diagnose(rule: Pick<RuleResult, 'outcome' | 'checks'>): Diagnosis[] {
  if (rule.outcome !== 'fail' && rule.outcome !== 'waived') return [];
  const findings = rule.checks.flatMap((c) => c.findings).filter((f) => f.outcome === 'fail');
  if (findings.length === 0) return [];
  const all = findings.map(differencesOf);
  if (all.some((d) => d === undefined)) return [];
  const diagnoses: Diagnosis[] = [];
  for (const pattern of PATTERNS) {
    const fields = all.map((d) => pattern.shows(d!));
    if (fields.every((f) => f !== undefined))
      diagnoses.push({
        code: pattern.code,
        text: pattern.text(
          [...new Set(fields)]
            .sort((a, b) => a.length - b.length)
            .map((f) => `${f}s`)
            .join(' and '),
        ),
      });
  }
  return diagnoses;
}

/** The rules with their diagnoses attached where one is certain. */
export function withDiagnoses<R extends RuleResult>(rules: readonly R[]): R[] {
  return rules.map((rule) => {
    const diagnoses = diagnose(rule);
    return diagnoses.length > 0 ? { ...rule, diagnoses } : rule;
  });
}
