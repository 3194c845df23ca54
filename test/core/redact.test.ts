import { describe, expect, it } from 'vitest';
import { redactorFor, swapCase } from '../../core/redact.js';
import { EvidenceFactory, shellQuote } from '../../suites/evidence.js';
import type { SentExchange } from '../../suites/check.js';

const KEY = 'Sekr3t-KEY-4242';

describe('redactorFor', () => {
  const r = redactorFor(KEY);
  it.each([
    `Bearer ${KEY}`,
    `Bearer ${KEY}x`,
    `Bearer ${KEY.slice(0, -1)}`,
    `Bearer ${swapCase(KEY)}`,
    `Basic ${Buffer.from(`conformance:${KEY}`).toString('base64')}`,
    `echo: {"authorization":"Bearer ${KEY}"}`,
  ])('leaves nothing of the key in %s', (text) => {
    const out = r.redact(text);
    expect(out).not.toContain(KEY);
    expect(out).not.toContain(KEY.slice(0, -1));
    expect(r.leaks(out)).toBe(false);
  });
});

describe('evidence', () => {
  const exchange = (headers: Record<string, string>, body?: string): SentExchange => ({
    seq: 1,
    request: { method: 'POST', url: 'http://127.0.0.1:8080/v1/pets', headers, ...(body ? { body: Buffer.from(body) } : {}) },
    response: { status: 400, headers: { 'content-type': 'application/json', echo: headers.authorization ?? '' }, body: Buffer.from(`{"seen":"${headers.authorization}"}`), truncated: false },
    durationMs: 1.234,
    meta: { operation: 'createPet', auth: 'valid', check: 'test' },
  });
  const factory = new EvidenceFactory(redactorFor(KEY), KEY);

  it('redacts the key in headers, echoed bodies and the curl command', () => {
    const evidence = factory.of(exchange({ authorization: `Bearer ${KEY}` }, '{"name":"x"}'));
    expect(JSON.stringify(evidence)).not.toContain(KEY);
    expect(evidence.request.headers.authorization).toBe('Bearer <API_KEY>');
    expect(evidence.curl).toContain('"authorization: Bearer ${PETSTORE_API_KEY}"');
  });

  it.each([
    [`Bearer ${KEY.slice(0, -1)}`, '${PETSTORE_API_KEY%?}'],
    [`Bearer ${swapCase(KEY)}`, '${PETSTORE_API_KEY~~}'],
    [`Basic ${Buffer.from(`conformance:${KEY}`).toString('base64')}`, "$(printf 'conformance:%s' \"${PETSTORE_API_KEY}\" | base64 -w0)"],
  ])('writes %s in curl as the shell expression %s', (authorization, expression) => {
    const evidence = factory.of(exchange({ authorization }));
    expect(evidence.curl).toContain(expression);
    expect(JSON.stringify(evidence)).not.toContain(KEY.slice(0, -1));
  });

  it('bounds body excerpts', () => {
    const evidence = factory.of(exchange({}, 'x'.repeat(100_000)));
    expect(evidence.request.body!.length).toBeLessThan(5000);
    expect(evidence.request.bodyBytes).toBe(100_000);
  });
});

describe('shellQuote', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it'\\''s'"],
    ['ñ🐾', "'ñ🐾'"],
  ])('quotes %s', (input, quoted) => expect(shellQuote(input)).toBe(quoted));

  it('writes control characters and invalid UTF-8 as exact escapes', () => {
    expect(shellQuote('a\u0000b')).toBe("$'a\\x00b'");
    expect(shellQuote(Uint8Array.from([0x7b, 0xff, 0x27]))).toBe("$'{\\xff\\x27'");
  });
});
