/**
 * What the redactor writes, over a broad corpus, kept byte for byte in a
 * checked-in file (test/fixtures/redact-golden.json): every form of test/leaks.ts
 * and test/core/redact.test.ts (plain, JSON, HTML and percent escapes, nested
 * layers, base64 at each alignment, hex, pieces, case-folded forms, cut texts,
 * excerpts), for keys and secrets of every shape. A change of the redactor
 * that changes any of it fails here; an intended change is made by updating
 * the file (`npx vitest run test/core/redact-golden.test.ts -u`) and saying
 * which entries changed, and why, in the commit.
 */
import { describe, expect, it } from 'vitest';
import { connectionSecrets } from '../../../core/connection.js';
import { show } from '../../../core/json.js';
import {
  authorizationForms,
  excerpt,
  KEY_PLACEHOLDER,
  keySecret,
  LETTERLESS_STAND_IN,
  type Redactor,
  redactorFor,
  redactorForAll,
  redactorOf,
  registeredForms,
} from '../../../core/redact.js';
import { b64, ECHO_FORMS } from '../../leaks.js';

const KEYS: Record<string, string> = {
  ordinary: 'Sekr3t-KEY-4242',
  hostile: 'Qz7"Wx\\Rb/Tn+Vm=Hé-Üp9ß~Kd%41Ly',
  token: 'Zq9-Xkw7PvtJ-mR4yQ8nTb-Lx3',
  letterless: '1234-5678-9012',
  shortest: 'abcd',
  five: 'Ab3$x',
  // Letters whose upper case lies outside Latin-1 (ÿ → Ÿ, µ → Μ), and ß, which upper-cases to two letters.
  folding: 'ÿµ-Kéy-99Àzß',
  placeholder: KEY_PLACEHOLDER,
  'letterless stand-in': LETTERLESS_STAND_IN,
};

/** Forms a server may echo a secret in. */
const FORMS = ECHO_FORMS;

/** Where the form sits. */
const PLACES: Record<string, (f: string) => string> = {
  alone: (f) => f,
  inside: (f) => `before ${f} after`,
  json: (f) => JSON.stringify({ echo: f, n: 1 }),
  'header name': (f) => `x-n-${f}`.toLowerCase(),
};

/** What the redactor writes for `text`: the text, bytes (UTF-8 and Latin-1), cut texts; `=` when a form gives what the text form gave. */
function outputs(r: Redactor, text: string): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = { text: r.redact(text), leaks: r.leaks(text) };
  const utf8 = Buffer.from(r.redactBytes(Buffer.from(text, 'utf8'))).toString('utf8');
  out.utf8 = utf8 === out.text ? '=' : utf8;
  if (!/[^\u0000-\u00ff]/.test(text)) {
    const latin1 = Buffer.from(r.redactBytes(Buffer.from(text, 'latin1'))).toString('latin1');
    out.latin1 = latin1 === out.text ? '=' : latin1;
  }
  for (const cut of [0.5, 0.8]) out[`cut at ${cut}`] = r.redact(text.slice(0, Math.floor(text.length * cut)), { complete: false });
  return out;
}

function corpus(): Record<string, unknown> {
  const golden: Record<string, unknown> = {};
  for (const [name, key] of Object.entries(KEYS)) {
    const r = redactorFor(key);
    // Every value the scanner looks for, with its label (once `keyDerivatives`).
    golden[`${name}: keyDerivatives`] = registeredForms(keySecret(key)).flatMap((form) =>
      form.wholeOnly ? [] : [[form.value, form.label]],
    );
    golden[`${name}: authorizationForms`] = authorizationForms(key).map(([redacted]) => redacted);
    for (const [form, make] of Object.entries(FORMS)) {
      for (const [place, put] of Object.entries(PLACES)) golden[`${name}: ${form}, ${place}`] = outputs(r, put(make(key)));
    }
  }

  // Excerpts: rendered in the one order (redact whole, escape, cut), in every mode, cut across the key.
  for (const name of ['ordinary', 'hostile', 'token'] as const) {
    const key = KEYS[name]!;
    const r = redactorFor(key);
    for (const pad of [100, 110, 115, 118]) {
      const raw = `${'x'.repeat(pad)}${key} tail`;
      golden[`${name}: excerpts, pad ${pad}`] = {
        text: r.redact(`Received ${excerpt(raw, 120)}`),
        quote: r.redact(`Received ${excerpt(raw, 120, { mode: 'quote' })}`),
        'quote, cut': r.redact(`Received ${excerpt(raw, 120, { mode: 'quote', complete: false })}`),
        json: r.redact(`Received ${excerpt(JSON.stringify({ message: raw, [key]: 1 }), 160, { mode: 'json' })}`),
        show: r.redact(`Received ${show({ message: raw }, 160)}`),
        codepoints: r.redact(`Received ${excerpt(`${'x'.repeat(pad % 8)}${key}`, 8, { mode: 'codepoints' })}`),
        difference: r.redact(`Received ${excerpt(JSON.stringify([`ab${key}c`, `ab${key}d`]), 8, { mode: 'difference' })}`),
        'text, cut': r.redact(`Received ${excerpt(`${raw}${b64(key)}`, 4096, { complete: false })}`),
      };
    }
  }

  // Secret headers and a proxy password, beside the key.
  const secret = 'Tr4ce-Secret-V4lue-77';
  const password = 'Pr0xy-Pa55word';
  const withSecrets = redactorOf([
    keySecret(KEYS.ordinary!),
    ...connectionSecrets({
      headers: { 'x-trace': secret },
      secretHeaders: ['x-trace'],
      proxy: { kind: 'url', url: `http://someone:${password}@127.0.0.1:3128` },
    }).map((s) => s.secret),
  ]);
  for (const [name, value] of [
    ['secret header', secret],
    ['proxy password', password],
  ] as const) {
    for (const form of [
      'plain',
      'json-unicode-lower',
      'percent-all',
      'base64',
      'base64 after one byte',
      'hex',
      'lower',
      'upper',
      'piece 0-8',
      'piece 3-14',
      'piece, lower case',
      'near miss',
    ]) {
      for (const place of ['alone', 'inside', 'header name'] as const)
        golden[`${name}: ${form}, ${place}`] = outputs(withSecrets, PLACES[place]!(FORMS[form]!(value)));
    }
  }

  // Several keys at once (the CLI's error path).
  const all = redactorForAll([KEYS.ordinary, KEYS.hostile, KEYS.shortest, 'abc', undefined]);
  for (const [name, key] of Object.entries(KEYS).slice(0, 3)) {
    for (const form of ['plain', 'near miss', 'lower', 'base64-basic', 'piece 3-14'])
      golden[`all keys, ${name}: ${form}`] = outputs(all, PLACES.inside!(FORMS[form]!(key)));
  }
  return golden;
}

describe('the redactor, byte for byte', () => {
  it('writes what test/fixtures/redact-golden.json holds', async () => {
    // One entry a line, so that a change shows as the entries it changed.
    const lines = Object.entries(corpus()).map(([name, value]) => `${JSON.stringify(name)}: ${JSON.stringify(value)}`);
    await expect(`{\n${lines.join(',\n')}\n}\n`).toMatchFileSnapshot('../../fixtures/redact-golden.json');
    // Redacts every form of the leak catalogue: 2 s of one core on a quiet machine, ×15 for a shared one.
  }, 30_000);
});
