/** createAndJudge's proof that a refusal of a valid body is legitimate, against a stub sender: no server. */
import { describe, expect, it } from 'vitest';
import { redactExchange } from '../../../core/boundary.js';
import { Redactor } from '../../../core/redact.js';
import { prefixedNames } from '../../../generators/names.js';
import type { NewPetInput } from '../../../generators/newPet.js';
import { findingText, type FindingMessage } from '../../../spec/findings.js';
import { type SendOptions, type SentExchange, StoreState } from '../../../suites/check.js';
import { createAndJudge, type Judge } from '../../../suites/judge.js';

/** A target that refuses every create with a 400 Error. */
const refuseAll = async (request: SendOptions): Promise<SentExchange> => ({
  ...redactExchange(
    {
      seq: 1,
      request: { method: 'POST', url: 'http://127.0.0.1:1/v1/pets', headers: {} },
      response: {
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: new TextEncoder().encode('{"code":"invalid","message":"no","status":400}'),
        truncated: false,
      },
      durationMs: 1,
    },
    new Redactor(),
  ),
  meta: { operation: request.operation, auth: 'valid', check: 'test' },
});

async function refusal(sent: NewPetInput): Promise<string> {
  const failures: FindingMessage<string>[] = [];
  const judge: Judge = { pass: () => {}, inconclusive: () => {}, observe: () => {}, fail: (_rule, message) => void failures.push(message) };
  const store = new StoreState();
  store.noteCategory(1n);
  await createAndJudge(judge, refuseAll, sent, store, prefixedNames('pctest '));
  expect(failures.map((f) => f.code)).toEqual(['VALID_BODY_REFUSED']);
  return findingText(failures[0]!);
}

describe('a valid body refused twice', () => {
  it('says what the body sent again changed: only the categoryId, when the name was ordinary', async () => {
    const text = await refusal({ name: 'pctest Rex', categoryId: 7n });
    expect(text).toContain('the same body with categoryId 1 (accepted before) is created');
    expect(text).not.toContain('ordinary name');
  });

  it('only the name, when the categoryId was accepted before', async () => {
    const text = await refusal({ name: 'pctest tab\there', categoryId: 1n });
    expect(text).toContain('the same body with an ordinary name is created');
    expect(text).not.toContain('categoryId 1');
  });

  it('both, when both were open', async () => {
    expect(await refusal({ name: 'pctest tab\there', categoryId: 7n })).toContain(
      'the same body with an ordinary name and categoryId 1 (accepted before) is created',
    );
  });
});
