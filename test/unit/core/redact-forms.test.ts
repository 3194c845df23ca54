/**
 * Every form of test/leaks.ts a server may echo a secret in, for keys of
 * every shape, alone and inside other text: the leak finder (written apart
 * from the redactor) sees it as sent, so its silence after redaction means
 * something, and nothing of it survives the redactor.
 */
import { describe, expect, it } from 'vitest';
import { redactorFor } from '../../../core/redact.js';
import { ECHO_FORMS, findLeak, WINDOW, windowsOf } from '../../leaks.js';

const KEYS: Record<string, string> = {
  ordinary: 'Sekr3t-KEY-4242',
  hostile: 'Qz7"Wx\\Rb/Tn+Vm=Hé-Üp9ß~Kd%41Ly',
  token: 'Zq9-Xkw7PvtJ-mR4yQ8nTb-Lx3',
  letterless: '1234-5678-9012',
  folding: 'ÿµ-Kéy-99Àzß',
  'like a live key': 'pk_live_9fQ2xZ7mRt4LwB8nKc3V',
};

/** Where the form sits. */
const PLACES: Record<string, (form: string) => string> = {
  inside: (form) => `before ${form} after`,
  json: (form) => JSON.stringify({ echo: form, n: 1 }),
};

describe.each(Object.entries(KEYS))('the key %s', (_name, key) => {
  const windows = windowsOf(key);
  const redactor = redactorFor(key);
  const forms = Object.entries(ECHO_FORMS).filter(([, make]) => make(key).length >= WINDOW);
  it.each(forms)('echoed as %s: seen as sent, and nothing of it left once redacted', (_form, make) => {
    // A form that is JSON already is not put in JSON once more: the finder undoes three layers of escapes.
    const places = make(key).startsWith('{') ? [PLACES.inside!] : Object.values(PLACES);
    for (const put of places) {
      const text = put(make(key));
      expect(findLeak(text, key, windows), `the finder misses ${JSON.stringify(text)}`).toBeDefined();
      const out = redactor.redact(text);
      const leak = findLeak(out, key, windows);
      expect(leak, `${JSON.stringify(text)} → ${JSON.stringify(out)}`).toBeUndefined();
    }
  });
});

// Where separators cut a key's words as words and data are cut, nothing is replaced: the boundary redacts every answer
// before it is judged (core/boundary.ts), and JSON that loses its quotes is no longer JSON.
describe.each([
  ['doggie-cat-bird', '[{"id":1,"name":"doggie","category":{"id":1,"name":"Dogs"}}]'],
  ['doggie-cat-bird', '{\n  "name": "doggie",\n  "category": "x"\n}'],
  ['my-secret-api-key', '{"kind":"secret","api_key_required":true}'],
  ['my-secret-api-key', 'baseUrl: target, apiKey: standIn'],
  ['12345678', '{"ids":[1234,5678]}'],
  ['abcd1234', '{"abcd":1234}'],
  ['VerySecretHeaderValue99', 'error: --secret-header takes "Name: value"'],
])('the key %j', (key, text) => {
  it(`leaves ${JSON.stringify(text)} as it is`, () => {
    expect(redactorFor(key).redact(text)).toBe(text);
  });
});
