/**
 * The key's one table (core/key.ts AUTH_FORMS) and its views agree: what the
 * auth checks send (authVariants), what replay puts back (authorizationForms)
 * and what the redactor registers (keySecret) are read from it, and every
 * Authorization value the suite sends is found and labelled by the redactor
 * as it is and in every letter case a server or HTTP may fold it to,
 * as a header value and as a header name.
 */
import { describe, expect, it } from 'vitest';
import {
  AUTH_FORMS,
  authorizationForms,
  bearer,
  KEY_PLACEHOLDER,
  keySecret,
  LETTERLESS_STAND_IN,
  redactorFor,
  swapCase,
} from '../../../core/redact.js';
import { authVariants } from '../../../suites/credentials.js';
import { findLeak } from '../../leaks.js';

const KEYS = ['Sekr3t-KEY-4242', 'Qz7"Wx\\Rb/Tn+Vm=Hé-Üp9ß~Kd%41Ly', 'Zq9-Xkw7PvtJ-mR4yQ8nTb-Lx3', '1234-5678-9012', 'ÿµ-Kéy-99Àzß'];
const SEED = 7;

/** Every Authorization value a run sends with `key`: the valid one, and each auth check's variants. */
function sent(key: string): string[] {
  const variants = authVariants(key, SEED);
  return [bearer(key), ...[...variants.invalid, ...variants.otherScheme, ...variants.schemeCase].map((v) => v.authorization!)];
}

/** How a server or HTTP may give a value back: as it is, case-folded (every letter, or ASCII letters only), or as a header name where the value, its spaces as "-", is an HTTP token (HTTP gives names back in ASCII lower case). */
const FOLDS: Record<string, (text: string) => string | undefined> = {
  'as sent': (t) => t,
  'lower case': (t) => t.toLowerCase(),
  'upper case': (t) => t.toUpperCase(),
  'ASCII lower case': (t) => t.replace(/[A-Z]+/g, (m) => m.toLowerCase()),
  'ASCII upper case': (t) => t.replace(/[a-z]+/g, (m) => m.toUpperCase()),
  'a header name': (t) => {
    const name = `x-echo-${t.replace(/ /g, '-')}`;
    return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) ? name.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : undefined;
  },
};

describe('the auth forms, one table', () => {
  it.each(KEYS)('%j: the checks send what the table holds, in its order, and replay knows every form that carries the key', (key) => {
    const table = AUTH_FORMS.filter((f) => f.sentFor?.(key) ?? true).map((f) => f.value(key, SEED));
    expect(sent(key)).toEqual(table);
    expect(authorizationForms(key).map(([, value]) => value)).toEqual(
      AUTH_FORMS.filter((f) => f.carries !== undefined).map((f) => f.value(key, SEED)),
    );
    // The redactor's forms are the credentials those values carry.
    const carried = keySecret(key).forms.map((f) => f.value);
    for (const value of authorizationForms(key).map(([, v]) => v))
      expect(
        carried.some((c) => value.includes(c)),
        value,
      ).toBe(true);
  });

  it.each(KEYS)(
    '%j: every value the suite sends is found and labelled, in every case and as a header name, and leaves nothing of the key',
    (key) => {
      const r = redactorFor(key);
      for (const value of sent(key)) {
        const carries = value.includes(key.slice(0, -1)) || value.includes(swapCase(key)) || value.startsWith('Basic ');
        for (const [fold, make] of Object.entries(FOLDS)) {
          const text = make(value);
          if (text === undefined) continue;
          const out = r.redact(text);
          expect(findLeak(out, key), `${fold} of ${JSON.stringify(value)} → ${out}`).toBeUndefined();
          if (carries) {
            expect(r.leaks(text), `${fold} of ${JSON.stringify(value)}`).toBe(true);
            expect(out, `${fold} of ${JSON.stringify(value)}`).toMatch(/<[^<>]*<API_KEY>[^<>]*>|<API_KEY>/);
          }
        }
      }
    },
  );

  it('a near miss lower-cased as a header name, the attack: replaced whole, nothing of the key left in any case', () => {
    const key = 'Zq9-Xkw7PvtJ-mR4yQ8nTb-Lx3';
    const name = `x-echo-bearer-${key.slice(0, -1).toLowerCase()}`;
    expect(redactorFor(key).redact(name)).toBe('x-echo-bearer-<<API_KEY> without its last character, in lower case>');
    expect(redactorFor(key).redact(key.slice(3, 17).toLowerCase())).toBe('<part of <API_KEY>>');
  });

  it("labels every form alike whatever the key, the redactor's and those replay puts back: verify matches a transcript made with the key against one replayed with the placeholder", () => {
    const labels = (key: string) => keySecret(key).forms.map((f) => f.label);
    for (const key of KEYS) expect(labels(key)).toEqual(labels(KEY_PLACEHOLDER));
    expect(labels(LETTERLESS_STAND_IN)).toEqual(labels(KEY_PLACEHOLDER));
    // Replay's view: the Authorization values the suite sends, by their redacted form; a key without letters has no case
    // variants, and is matched against the stand-in without letters.
    const sentLabels = (key: string) => authorizationForms(key).map(([redacted]) => redacted);
    for (const key of KEYS.filter((k) => /\p{L}/u.test(k))) expect(sentLabels(key), key).toEqual(sentLabels(KEY_PLACEHOLDER));
    expect(sentLabels('1234-5678-9012')).toEqual(sentLabels(LETTERLESS_STAND_IN));
    expect(sentLabels(KEYS[0]!)).toContain(`Basic <base64 of conformance:${KEY_PLACEHOLDER}>`);
  });
});
