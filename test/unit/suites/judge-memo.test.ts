/**
 * A page of animals is validated once, item by item, however many judgements
 * read it (suites/judge/answer.ts `petViolations`), and never judged on what
 * another exchange held: stub exchanges, no server.
 */
import { describe, expect, it } from 'vitest';
import { redactExchange } from '../../../core/boundary.js';
import { Redactor } from '../../../core/redact.js';
import { type SentExchange, StoreState } from '../../../suites/check.js';
import { petBodies } from '../../../suites/checks/responses.js';
import { type Judge, judgeList } from '../../../suites/judge.js';
import { petValidationCount } from '../../../suites/judge/answer.js';

/** A listPets answer holding `body`; every one has the same seq and URL, as two runs' exchanges may. */
const page = (body: string): SentExchange => ({
  ...redactExchange(
    {
      seq: 1,
      request: { method: 'GET', url: 'http://127.0.0.1:1/v1/pets?limit=5', headers: {} },
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(body), truncated: false },
      durationMs: 1,
    },
    new Redactor(),
  ),
  meta: { operation: 'listPets', auth: 'valid', check: 'test' },
});

/** Every judgement of a page the run makes: the listing's own, and PET-SCHEMA's; the outcomes, as `rule code`. */
function judgeAll(x: SentExchange): string[] {
  const outcomes: string[] = [];
  const judge: Judge = {
    pass: (rule) => void outcomes.push(`${rule} pass`),
    fail: (rule, message) => void outcomes.push(`${rule} ${message.code}`),
    inconclusive: (rule, message) => void outcomes.push(`${rule} ${message.code}`),
    observe: () => {},
  };
  judgeList(judge, x, { limit: 5 }, new StoreState(), 0);
  petBodies.inspect(x, judge);
  return outcomes;
}

/** Pet validations made while `during` ran (vitest shares modules between files: no mock, a count). */
function petValidations(during: () => void): number {
  const before = petValidationCount();
  during();
  return petValidationCount() - before;
}

const REX = '{"id":5,"name":"Rex","categoryId":1,"status":"available"}';
const NOT_A_PET = '{"id":5,"name":42,"categoryId":1}';

describe('validating a page once', () => {
  it('validates each item of a page once, however many judgements read it', () => {
    expect(petValidations(() => judgeAll(page(`[${REX},${REX.replace('5', '6')},${REX.replace('5', '7')}]`)))).toBe(3);
  });

  it('validates two exchanges with equal bodies each, and judges them alike', () => {
    const body = `[${REX},${NOT_A_PET}]`;
    let first: string[] = [];
    let second: string[] = [];
    expect(
      petValidations(() => {
        first = judgeAll(page(body));
        second = judgeAll(page(body));
      }),
    ).toBe(4);
    expect(second).toEqual(first);
    expect(first).toContain('LIST-RESPONSE LIST_ITEM_NOT_A_PET');
  });

  it('never judges an item on what another item or exchange held, whatever their ids', () => {
    // The same id, the same place, the same seq and URL: only the item itself tells them apart.
    expect(judgeAll(page(`[${REX}]`))).toEqual(['LIST-RESPONSE pass', 'LIST-LIMIT-HONOURED pass', 'PET-SCHEMA pass']);
    expect(judgeAll(page(`[${NOT_A_PET}]`))).toEqual([
      'LIST-RESPONSE LIST_ITEM_NOT_A_PET',
      'LIST-LIMIT-HONOURED pass',
      'PET-SCHEMA NOT_A_PET',
    ]);
    expect(judgeAll(page(`[${REX},${NOT_A_PET}]`))).toEqual([
      'LIST-RESPONSE LIST_ITEM_NOT_A_PET',
      'LIST-LIMIT-HONOURED pass',
      'PET-SCHEMA pass',
      'PET-SCHEMA NOT_A_PET',
    ]);
  });
});
