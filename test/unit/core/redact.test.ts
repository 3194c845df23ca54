import { brotliCompressSync, deflateRawSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Decoding } from '../../../core/decode.js';
import { KeyInRequestError, RedactionBoundary, redactExchange, requestDigest } from '../../../core/boundary.js';
import { connectionSecrets } from '../../../core/connection.js';
import type { Exchange, RequestSpec, Transport } from '../../../core/http.js';
import { show } from '../../../core/json.js';
import { renderWording } from '../../../core/wording.js';
import {
  escapeJson,
  excerpt,
  KEY_PLACEHOLDER,
  keyProblem,
  MAX_KEY_LENGTH,
  type Redacted,
  Redactor,
  redactorFor,
  redactorOf,
  plainSecret,
  suiteText,
  swapCase,
  truncate,
} from '../../../core/redact.js';
import { TranscriptReplayer } from '../../../core/transcript.js';
import { EvidenceFactory, redactResult, shellQuote } from '../../../suites/evidence.js';
import { finding, resultFixture } from '../../fixtures/result.js';
import type { SentExchange } from '../../../suites/check.js';
import type { Evidence, Finding } from '../../../result/model.js';
import { findLeak } from '../../leaks.js';

const KEY = 'Sekr3t-KEY-4242';
/** `"`, `\`, `/`, `+`, `=`, Latin-1 and a literal `%41`. */
const HOSTILE = 'Qz7"Wx\\Rb/Tn+Vm=Hé-Üp9ß~Kd%41Ly';

const b64 = (text: string, encoding: BufferEncoding = 'utf8') => Buffer.from(text, encoding).toString('base64');
const u4 = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
const pctAll = (text: string, encoding: BufferEncoding = 'utf8') =>
  [...Buffer.from(text, encoding)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

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

  /** Every form a server may echo the key in. */
  const forms: [string, (k: string) => string][] = [
    ['plain', (k) => k],
    ['JSON', (k) => JSON.stringify(k)],
    ['JSON as PHP writes it (\\/)', (k) => JSON.stringify(k).replace(/\//g, '\\/')],
    ['\\uXXXX escapes', (k) => [...k].map(u4).join('')],
    ['\\uXXXX escapes in upper case', (k) => [...k].map(u4).join('').toUpperCase().replace(/\\U/g, '\\u')],
    ['escapes mixed with plain characters', (k) => [...k].map((c, i) => (i % 2 ? u4(c) : JSON.stringify(c).slice(1, -1))).join('')],
    ['percent-encoding', (k) => encodeURIComponent(k)],
    ['percent-encoding in lower case', (k) => encodeURIComponent(k).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ['percent-encoding of Latin-1 bytes', (k) => [...Buffer.from(k, 'latin1')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')],
    ['percent-encoded JSON', (k) => encodeURIComponent(JSON.stringify(k))],
    ['HTML character references', (k) => [...k].map((c) => `&#${c.charCodeAt(0)};`).join('')],
    ['base64', (k) => b64(k)],
    ['base64 of Latin-1 bytes', (k) => b64(k, 'latin1')],
    ['base64 of Bearer <key>', (k) => b64(`Bearer ${k}`)],
    ['base64 of conformance:<key>', (k) => b64(`conformance:${k}`)],
    ['base64 of user:<key>', (k) => b64(`someone:${k}`)],
    ['base64 with \\/ (PHP)', (k) => JSON.stringify(b64(`Bearer ${k}`)).replace(/\//g, '\\/')],
    ['base64url', (k) => Buffer.from(`xy${k}`).toString('base64url')],
    ['hex', (k) => Buffer.from(k).toString('hex')],
    ['hex in upper case', (k) => Buffer.from(k).toString('hex').toUpperCase()],
    ['hex of Latin-1 bytes', (k) => Buffer.from(k, 'latin1').toString('hex')],
    ['percent-encoding twice', (k) => pctAll(k).replace(/%/g, '%25')],
    [
      'percent-encoding of Latin-1 bytes twice, in a JSON string',
      (k) => JSON.stringify({ echo: pctAll(k, 'latin1').replace(/%/g, '%25') }),
    ],
    ['\\uXXXX escapes inside a JSON string (two layers of escapes)', (k) => JSON.stringify({ echo: [...k].map(u4).join('') })],
    [
      '\\uXXXX escapes inside a JSON string inside a JSON string (three layers)',
      (k) => JSON.stringify({ echo: JSON.stringify({ echo: [...k].map(u4).join('') }) }),
    ],
    ['percent-encoding inside \\uXXXX escapes inside a JSON string', (k) => JSON.stringify({ echo: [...pctAll(k)].map(u4).join('') })],
    ['base64 of the Basic header the auth checks send', (k) => b64(`Basic ${b64(`conformance:${k}`)}`)],
    [
      'base64url of the Basic header, after other text',
      (k) => Buffer.from(`Authorization: Basic ${b64(`conformance:${k}`)}`).toString('base64url'),
    ],
    ['lower case (a header name)', (k) => `x-echo-${k.toLowerCase()}`],
    ['a piece of it', (k) => k.slice(3, 14)],
  ];
  it.each(forms)('finds the key as %s, inside other text', (_name, form) => {
    for (const key of [KEY, HOSTILE]) {
      const text = `before ${form(key)} after`;
      const out = redactorFor(key).redact(text);
      expect(out, `${JSON.stringify(text)} → ${JSON.stringify(out)}`).toMatch(/^before .*<.*API_KEY.*>.* after$/);
      expect(findLeak(out, key)).toBeUndefined();
    }
  });

  // That the forms are labelled alike whatever the key (replay's and the redactor's): test/unit/core/key.test.ts.

  it('redacts a key of the longest length the suite takes, and a longer one, without a pattern built from it', () => {
    const long = Array.from({ length: MAX_KEY_LENGTH }, (_, i) => 'AbCdEfGh0123+/=-é"\\'[(i * 31 + (i >> 4)) % 19]).join('');
    for (const key of [long, long.repeat(8)]) {
      const r = redactorFor(key);
      // What it costs is measured by scripts/bench-redact.js, not asserted here (the machine is shared).
      const out = r.redact(`a ${key} b ${b64(`Bearer ${key}`)} c ${JSON.stringify(key)} d ${encodeURIComponent(key)}`);
      const expected = `a ${KEY_PLACEHOLDER} b <base64 of Bearer ${KEY_PLACEHOLDER}> c "${KEY_PLACEHOLDER}" d ${KEY_PLACEHOLDER}`;
      // The longer key is the other repeated: its end and its start join into windows of itself, and in the view
      // without separators (core/redact/gaps.ts) the `c` before the quote completes one: it goes with the key.
      if (key === long) expect(out).toBe(expected);
      else expect([expected, expected.replace(`c "${KEY_PLACEHOLDER}"`, `<part of ${KEY_PLACEHOLDER}>"`)]).toContain(out);
    }
    // Two redactors of keys of 4 096 and 32 768 characters over four forms of each: about 10 s of one core on a quiet
    // machine (30 s seen beside other work), ×6 for a runner that shares its cores.
  }, 60_000);

  // The offsets of a decoded view are worked out only when a match needs them: they must still name exactly the
  // characters that encode the key, past astral characters (two units from one sequence) and through nested layers.
  it.each([
    [
      'JSON escapes after astral references',
      (k: string) => [...k].map(u4).join(''),
      '&#x1F415;&#128008;\\u00e9 ',
      ' \\uD83D\\uDE00&amp; tail',
    ],
    [
      'percent-encoded JSON after 4-byte UTF-8',
      (k: string) => encodeURIComponent(JSON.stringify(k)),
      '%F0%9F%90%95%C3%A9 ~1~0 ',
      ' %F0%9F%98%80 tail',
    ],
    [
      'JSON-escaped percent-encoding',
      (k: string) => JSON.stringify(encodeURIComponent(k)).slice(1, -1).replace(/%/g, '\\u0025'),
      '\\ud83d\\ude00 &#x20; ',
      ' &lt;%41 tail',
    ],
  ])('replaces the key found through %s, and exactly the characters that encode it', (_name, form, before, after) => {
    for (const key of [KEY, HOSTILE]) {
      const out = redactorFor(key).redact(`${before}${form(key)}${after}`);
      expect(out.startsWith(before) && out.endsWith(after), out).toBe(true);
      expect(out.slice(before.length, out.length - after.length)).toMatch(/^(?:"|%22)?<[^<>]*API_KEY[^<>]*>(?:"|%22)?$/);
    }
  });

  it('redacts bytes: UTF-8 as text, anything else as Latin-1, and drops the tail of a body cut at the read bound', () => {
    const r = redactorFor(HOSTILE);
    const latin1 = Buffer.concat([Buffer.from([0xff, 0x20]), Buffer.from(HOSTILE, 'latin1')]);
    expect(Buffer.from(r.redactBytes(latin1)).toString('latin1')).toBe(`\u00ff ${KEY_PLACEHOLDER}`);
    const cut = Buffer.from(`{"a":"${'x'.repeat(5000)}","k":"${HOSTILE.slice(0, 20)}`);
    const redacted = Buffer.from(r.redactBytes(cut, { complete: false })).toString('utf8');
    expect(redacted.length).toBeLessThan(cut.length);
    expect(findLeak(redacted, HOSTILE)).toBeUndefined();
  });
});

describe('a key echoed in a letter case of its own', () => {
  it('every other letter swapped, title case, a case per piece: no piece of it survives', () => {
    const key = 'Zq7xK2mPv9LwR4tYb3Nc';
    const r = redactorFor(key);
    const alternate = [...key].map((ch, i) => (i % 2 ? ch.toLowerCase() : ch.toUpperCase())).join('');
    const title = key.charAt(0).toUpperCase() + key.slice(1).toLowerCase();
    for (const echoed of [alternate, title, `${key.slice(0, 10).toLowerCase()}${key.slice(10).toUpperCase()}`]) {
      const out = r.redact(`{"token":"${echoed}"}`);
      expect(out, echoed).not.toMatch(new RegExp(echoed.slice(0, 8), 'i'));
      expect(out).toContain('<part of <API_KEY>>');
    }
  });
});

describe('HTML character references as a browser reads them', () => {
  it('without their ";", and with leading zeros: no piece of the key survives', () => {
    const key = 'Zq7xK2mPv9LwR4tYb3Nc';
    const r = redactorFor(key);
    for (const encoded of [
      [...key].map((ch) => `&#${ch.charCodeAt(0)}`).join(''),
      [...key].map((ch) => `&#x00000${ch.charCodeAt(0).toString(16)};`).join(''),
      [...key].map((ch) => `&#000${ch.charCodeAt(0)};`).join(''),
    ]) {
      const out = r.redact(`<p>${encoded}</p>`);
      expect(out, encoded).not.toContain(encoded.slice(0, 40));
      expect(out).toMatch(/<p><[^<>]*API_KEY[^<>]*><\/p>/);
    }
  });
});

describe('a key folded as a Turkish locale folds it', () => {
  it('I to ı in lower case, i to İ in upper case: no piece of it survives', () => {
    const key = 'ZqIx7mPvIwL4tYib3Nci';
    const r = redactorFor(key);
    for (const echoed of [key.toLocaleLowerCase('tr'), key.toLocaleUpperCase('tr')]) {
      const out = r.redact(`{"token":"${echoed}"}`);
      expect(out, echoed).not.toContain(echoed.slice(0, 8));
      expect(out, echoed).not.toContain(echoed.slice(-8));
      expect(out).toMatch(/<[^"]*API_KEY[^"]*>/);
    }
  });
});

describe('every secret, not the key only', () => {
  it('a secret header value is redacted as it is, case-folded and with its letter case swapped', () => {
    const value = 'Vb8nQ3wErT6yUi9oPa2s';
    const r = redactorOf([plainSecret(value, '<secret x-trace>')]);
    for (const echoed of [value, value.toLowerCase(), value.toUpperCase(), swapCase(value)]) {
      const out = r.redact(`x-echo: ${echoed}`);
      expect(out).not.toContain(echoed.slice(0, 8));
      expect(out).toMatch(/^x-echo: <.*secret x-trace.*>$/);
    }
    expect(r.redact(swapCase(value))).toBe('<<secret x-trace> with its letter case swapped>');
  });
});

describe('a proxy password', () => {
  it('with a bad percent escape is a secret as written, and no internal error', () => {
    const secrets = connectionSecrets({ proxy: { kind: 'url', url: 'http://someone:Pr0xy%zzPa55@127.0.0.1:3128' } });
    const r = redactorOf(secrets.map((s) => s.secret));
    expect(r.redact('echo Pr0xy%zzPa55')).toBe('echo <proxy password>');
    // Decoded where it decodes: both forms are secrets.
    const both = redactorOf(
      connectionSecrets({ proxy: { kind: 'url', url: 'http://someone:Pr0xy%21Pa55@127.0.0.1:3128' } }).map((s) => s.secret),
    );
    expect(both.redact('Pr0xy!Pa55 Pr0xy%21Pa55')).toBe('<proxy password> <proxy password>');
  });
});

describe('text interleaved with NULs', () => {
  it('redacts the key in a body in UTF-16, either byte order, and in text a server interleaved with NULs, also JSON-escaped', () => {
    const r = redactorFor(KEY);
    for (const body of [
      Buffer.from(`{"error":"bad key ${KEY}"}`, 'utf16le'),
      Buffer.from(`{"error":"bad key ${KEY}"}`, 'utf16le').swap16(),
      Buffer.from(`key: ${[...KEY].join('\0')}`),
      Buffer.from(`{"key":"${[...KEY].join('\\u0000')}"}`),
    ]) {
      const out = Buffer.from(r.redactBytes(body)).toString('latin1');
      expect(out.replace(/\0/g, '')).not.toContain(KEY);
      expect(out.replace(/\0|\\u0000/g, '')).not.toContain(KEY.slice(0, 8));
      expect(out).toContain(KEY_PLACEHOLDER);
    }
    // Text with NULs and no key is left as it is.
    const plain = Buffer.from('{"error":"no key here"}', 'utf16le');
    expect(r.redactBytes(plain)).toBe(plain);
  });
});

describe('a key written as bytes, or escaped as other languages escape', () => {
  const key = 'sk_live_Q7v2Xp9LmT4rZ8wN';
  const r = redactorFor(key);
  const bytes = (encoding: BufferEncoding = 'utf8') => [...Buffer.from(key, encoding)];
  const hex2 = (b: number) => b.toString(16).padStart(2, '0');

  it.each([
    ['a Node Buffer in JSON', JSON.stringify({ auth: { type: 'Buffer', data: bytes() } })],
    ['decimal bytes, spaced', `bytes: [${bytes().join(', ')}]`],
    ['decimal bytes, space-separated', bytes().join(' ')],
    ['hex bytes with colons', bytes().map(hex2).join(':')],
    ['hex bytes with spaces, as a dump', bytes().map(hex2).join(' ')],
    [
      '0x bytes',
      bytes()
        .map((b) => `0x${hex2(b)}`)
        .join(', '),
    ],
    ['base64 of UTF-16LE (.NET, PowerShell)', Buffer.from(key, 'utf16le').toString('base64')],
    ['hex of UTF-16LE', Buffer.from(key, 'utf16le').toString('hex')],
    ['hex of UTF-16BE', Buffer.from(key, 'utf16le').swap16().toString('hex')],
    ["%u escapes (JavaScript's escape())", [...key].map((ch) => `%u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['\\u{…} escapes (JavaScript, Rust, Swift)', [...key].map((ch) => `\\u{${ch.charCodeAt(0).toString(16)}}`).join('')],
    ['octal escapes (C, Python bytes, PHP)', [...key].map((ch) => `\\${ch.charCodeAt(0).toString(8).padStart(3, '0')}`).join('')],
  ])('%s: neither the key nor a piece of it survives', (_form, echoed) => {
    const out = r.redact(`debug: ${echoed} end`);
    expect(out).toMatch(/API_KEY/);
    expect(findLeak(out, key), out).toBeUndefined();
    // Cut short, as an excerpt cuts it: the bytes of 19 of its characters still show nothing of it.
    const cut = echoed.slice(0, Math.ceil(echoed.length * 0.8));
    const redacted = r.redact(cut);
    expect(findLeak(redacted, key), cut).toBeUndefined();
    // Nothing of the encoded key's start is left (the wrapper of a Buffer in JSON aside).
    const data = echoed.indexOf('"data":[');
    const encoded = data < 0 ? echoed : echoed.slice(data + '"data":['.length);
    expect(redacted, cut).not.toContain(encoded.slice(0, 16));
  });

  it('numbers and dumps that hold no key are left as they are', () => {
    for (const text of ['[1, 2, 3, 4, 5]', 'at 2026-11-28 00:15:36', 'de:ad:be:ef:00:11', '{"id":115,"categoryId":107}'])
      expect(r.redact(text)).toBe(text);
  });
});

describe('a body the suite could not decode, or of bytes that are no text', () => {
  const r = redactorFor(KEY);
  const secretJson = Buffer.from(`{"debug":"your token was ${KEY}"}`);
  const harmless = Buffer.from('{"code":"not_found","message":"No such pet"}');
  /** A gzip member whose CRC is wrong: the suite reports it damaged, any gunzip that skips the check reads it. */
  const badCrc = (bytes: Buffer) => {
    const gz = gzipSync(bytes);
    gz.writeUInt32LE((gz.readUInt32LE(gz.length - 8) ^ 0xffff) >>> 0, gz.length - 8);
    return gz;
  };
  const through = (body: Uint8Array, decoding?: Decoding) =>
    Buffer.from(
      redactExchange(
        {
          seq: 1,
          request: { method: 'GET', url: 'http://127.0.0.1:8080/v1/pets/1', headers: {} },
          response: { status: 200, headers: {}, body, truncated: false, ...(decoding ? { decoding } : {}) },
          durationMs: 1,
        },
        r,
      ).response!.body,
    ).toString('latin1');
  const failed = (coding: string, body: Uint8Array): Decoding => ({ coding, received: body.length, cut: false, error: 'it failed' });

  it.each([
    ['gzip with a wrong checksum', badCrc(secretJson), 'gzip'],
    ['gzip bytes labelled zstd', gzipSync(secretJson), 'zstd'],
    ['brotli labelled compress', brotliCompressSync(secretJson), 'compress'],
    ['gzip bytes with no label', gzipSync(secretJson), undefined],
    ['raw deflate with no label', deflateRawSync(secretJson), undefined],
  ] as const)('%s, holding the key: withheld, never the bytes a reader could decompress it from', (_what, body, coding) => {
    const out = through(body, coding === undefined ? undefined : failed(coding, body));
    expect(out).toMatch(/^<withheld: .*decoded otherwise, it holds a secret>$/);
  });

  it('a zstd frame, or a bomb, labelled coded and not decoded: withheld, as nothing here can see into it', () => {
    const zstd = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x05, 0x29, 0x00, 0x00, 0x41, 0x42, 0x43, 0x44, 0x45]);
    expect(through(zstd, failed('zstd', zstd))).toMatch(/^<withheld: a zstd-coded body .*could not be seen>$/);
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024));
    expect(through(bomb, failed('x-custom', bomb))).toMatch(/could not be seen>$/);
  });

  it('one that holds no secret, and binary bytes no coding reads, are kept as received', () => {
    const damaged = badCrc(harmless);
    expect(through(damaged, failed('gzip', damaged))).toBe(damaged.toString('latin1'));
    const binary = Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 97 + 13) % 256));
    expect(through(binary)).toBe(binary.toString('latin1'));
    expect(through(harmless)).toBe(harmless.toString('latin1'));
  });
});

describe('the order: redact the whole text, then escape, then cut', () => {
  const r = redactorFor(HOSTILE);
  it.each([
    ['a quoted excerpt cut at 120', (pad: number) => excerpt(`${'x'.repeat(pad)}${HOSTILE} tail`, 120, { mode: 'quote' })],
    ['a JSON value cut at 160', (pad: number) => show({ message: `${'x'.repeat(pad)}${HOSTILE}` }, 160)],
    [
      'a text excerpt cut at 4096',
      (pad: number) => excerpt(`${'x'.repeat(pad + 3976)}${JSON.stringify(HOSTILE).replace(/\//g, '\\/')}`, 4096),
    ],
    ['code points, 8 of them', (pad: number) => excerpt(`${'x'.repeat(pad % 8)}${HOSTILE}`, 8, { mode: 'codepoints' })],
  ])('%s: a key straddling the cut leaves nothing of itself', (_name, make) => {
    for (let pad = 90; pad < 150; pad++) {
      const out = r.redact(`Expected something / Received ${make(pad)}`);
      expect(findLeak(out, HOSTILE), out).toBeUndefined();
    }
  });

  it('cuts after redacting: the placeholder is what gets cut, never the key', () => {
    const out = r.redact(excerpt(`${'x'.repeat(115)}${HOSTILE}`, 120, { mode: 'quote' }));
    expect(out).toBe(`"${'x'.repeat(115)}<API_…"`);
  });

  it('the type keeps the order: escaping and cutting take redacted text only, and reports take nothing else', () => {
    const redacted: Redacted = r.redact('text');
    expect(truncate(escapeJson(redacted), 3)).toBe('"te…');
    // @ts-expect-error raw text cannot be cut before it is redacted
    truncate('raw text', 3);
    // @ts-expect-error raw text cannot be escaped before it is redacted
    escapeJson('raw text');
    // @ts-expect-error a finding's message must be redacted
    const message: Finding['message'] = 'raw text';
    // @ts-expect-error evidence bodies must be redacted
    const body: NonNullable<Evidence['response']>['body'] = 'raw text';
    expect([message, body, suiteText('ok')]).toHaveLength(3);
  });
});

describe('keyProblem', () => {
  it.each([
    ['', /required/],
    ['abc', /3 character\(s\) long; at least 4/],
    ['x'.repeat(MAX_KEY_LENGTH + 1), new RegExp(`${MAX_KEY_LENGTH + 1} characters long; at most ${MAX_KEY_LENGTH}`)],
    ['abc\ndef', /control character/],
    ['abc密def', /outside Latin-1/],
    ['abc<def>', /"<" or ">"/],
    [' abcdef', /whitespace/],
  ])('%j is refused, in words that quote none of it', (key, message) => {
    const problem = renderWording(keyProblem(key) ?? []);
    expect(problem).toMatch(message);
    if (key.length >= 4) expect(problem).not.toContain(key.trim().slice(0, 4));
  });

  it.each([KEY, HOSTILE, 'test', 'x'.repeat(MAX_KEY_LENGTH)])('%j is taken', (key) => expect(keyProblem(key)).toBeUndefined());
});

describe('evidence', () => {
  // Through the door every exchange takes (core/boundary.ts), here with nothing registered: what these tests look at is
  // the factory's own redaction, which redacts every text once more all the same.
  const exchange = (headers: Record<string, string>, body?: string): SentExchange => ({
    ...redactExchange(
      {
        seq: 1,
        request: { method: 'POST', url: 'http://127.0.0.1:8080/v1/pets', headers, ...(body ? { body: Buffer.from(body) } : {}) },
        response: {
          status: 400,
          headers: { 'content-type': 'application/json', echo: headers.authorization ?? '', [`x-${KEY.toLowerCase()}`]: '1' },
          body: Buffer.from(`{"seen":"${headers.authorization}"}`),
          truncated: false,
        },
        durationMs: 1.234,
      },
      new Redactor(),
    ),
    meta: { operation: 'createPet', auth: 'valid', check: 'test' },
  });
  const factory = new EvidenceFactory(redactorFor(KEY), KEY);

  it("redacts a result's values, never its member names (the report's structure)", () => {
    // A secret that a member name holds: refused before a run (SUITE_VOCABULARY), built here directly.
    const result = resultFixture();
    result.rules[0]!.checks[0]!.findings.push(
      finding(result.rules[0]!.id, result.rules[0]!.checks[0]!.id, 'fail', 'the server said xx-durationMs-77'),
    );
    redactResult(result, new EvidenceFactory(redactorFor('xx-durationMs-77')));
    // Every member name as it was: none replaced by a label (`durationMs` would read as undefined).
    expect(JSON.stringify(result)).not.toContain(`"<part of ${KEY_PLACEHOLDER}>":`);
    expect(JSON.stringify(result)).toContain('"durationMs":1500');
    expect(result.rules[0]!.checks[0]!.findings.at(-1)!.message).toBe('the server said <API_KEY>');
  });

  it('redacts the key in headers (names too), echoed bodies and the curl command', () => {
    const evidence = factory.of(exchange({ authorization: `Bearer ${KEY}` }, '{"name":"x"}'));
    expect(JSON.stringify(evidence)).not.toContain(KEY);
    expect(JSON.stringify(evidence).toLowerCase()).not.toContain(KEY.toLowerCase());
    expect(evidence.request.headers.authorization).toBe('Bearer <API_KEY>');
    expect(Object.keys(evidence.response!.headers)).toContain('x-<<API_KEY> in lower case>');
    expect(evidence.curl).toContain('"authorization: Bearer ${PETSTORE_API_KEY}"');
  });

  it.each([
    [`Bearer ${KEY.slice(0, -1)}`, '${PETSTORE_API_KEY%?}'],
    [`Bearer ${swapCase(KEY)}`, '${PETSTORE_API_KEY~~}'],
    [`Basic ${Buffer.from(`conformance:${KEY}`).toString('base64')}`, '$(printf \'conformance:%s\' "${PETSTORE_API_KEY}" | base64 -w0)'],
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

  it('redacts a body whole before cutting it at 4096 characters', () => {
    const r = redactorFor(HOSTILE);
    const evidence = new EvidenceFactory(r);
    for (let pad = 4080; pad < 4100; pad++) {
      const x = exchange({}, `${'x'.repeat(pad)}${HOSTILE}${'y'.repeat(100)}`);
      expect(findLeak(JSON.stringify(evidence.of(x)), HOSTILE)).toBeUndefined();
    }
  });
});

describe('the redaction boundary', () => {
  const spec = (body: string): RequestSpec => ({
    method: 'POST',
    path: '/pets',
    headers: { authorization: `Bearer ${HOSTILE}`, 'content-type': 'application/json' },
    body,
  });
  const answering = (reply: (spec: RequestSpec) => Exchange): Transport & { sent: RequestSpec[] } => {
    const sent: RequestSpec[] = [];
    return { sent, requestsSent: 0, close: async () => {}, send: async (s) => (sent.push(s), reply(s)) };
  };

  it('redacts what comes back before anything judges it, and sends nothing that would carry the key outside Authorization', async () => {
    const inner = answering((s) => ({
      seq: 1,
      request: { method: s.method, url: `http://h/v1${s.path}`, headers: s.headers ?? {} },
      response: {
        status: 400,
        headers: { [`x-${b64(HOSTILE)}`]: HOSTILE },
        body: Buffer.from(JSON.stringify({ echo: HOSTILE })),
        truncated: false,
      },
      durationMs: 1,
    }));
    const boundary = new RedactionBoundary(inner, redactorFor(HOSTILE));
    const x = await boundary.send(spec('{"name":"ordinary"}'));
    expect(
      findLeak(JSON.stringify({ ...x, response: { ...x.response, body: Buffer.from(x.response!.body).toString() } }), HOSTILE),
    ).toBeUndefined();
    expect(x.request.headers.authorization).toBe('Bearer <API_KEY>');
    const holding = spec(`{"name":"pet ${HOSTILE.slice(0, 12)}"}`);
    await expect(boundary.send(holding)).rejects.toThrow(KeyInRequestError);
    await expect(boundary.send(holding)).rejects.toThrow(`(request ${requestDigest(holding)})`);
    expect(inner.sent).toHaveLength(1);
  });

  it('a recorded run that withheld a request replays to the same error, so its bundle verifies', async () => {
    const holding = spec(`{"name":"pet ${HOSTILE}"}`);
    const replayer = new TranscriptReplayer([], {
      baseUrl: 'http://h/v1',
      redactor: redactorFor(KEY_PLACEHOLDER),
      withheld: new Set([requestDigest(holding)]),
    });
    await expect(replayer.send(holding)).rejects.toThrow(new KeyInRequestError(requestDigest(holding)).message);
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
