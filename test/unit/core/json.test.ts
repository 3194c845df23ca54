import fc from 'fast-check';
import { isLosslessNumber, parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import {
  DEEPER_NOT_PARSED,
  decodeUtf8,
  exactInteger,
  int64Of,
  isInt64,
  JsonTooLargeError,
  LosslessNumber,
  MAX_JSON_DEPTH,
  MAX_JSON_TOKENS,
  parseJson,
  stringifyJson,
  toPlain,
} from '../../../core/json.js';
import { validateSchema } from '../../../spec/validate.js';

describe('exactInteger', () => {
  it.each([
    ['0', 0n],
    ['-0', 0n],
    ['42', 42n],
    ['9223372036854775807', 9223372036854775807n],
    ['9007199254740993', 9007199254740993n],
    ['1e3', 1000n],
    ['1.0', 1n],
    ['12.50e1', 125n],
    ['-2.5e1', -25n],
    ['1e-0', 1n],
    ['1000e-3', 1n],
  ])('%s is the integer %s', (raw, value) => expect(exactInteger(raw)).toBe(value));

  it.each(['1.5', '0.1', '1e-1', '-0.5'])('%s is not an integer', (raw) => expect(exactInteger(raw)).toBeUndefined());

  it('calls integers of more than 40 digits huge instead of computing them', () => {
    expect(exactInteger('1e400')).toBe('huge');
    expect(exactInteger('1'.repeat(50))).toBe('huge');
  });
});

describe('int64 range on the exact digits', () => {
  it.each([
    ['9223372036854775807', true],
    ['-9223372036854775808', true],
    ['9223372036854775808', false],
    ['-9223372036854775809', false],
    ['18446744073709551616', false],
    ['1.5', false],
  ])('%s in int64: %s', (raw, inRange) => expect(isInt64(new LosslessNumber(raw))).toBe(inRange));

  it('distinguishes 2^63-1 from 2^63, which one double cannot', () => {
    expect(Number('9223372036854775807')).toBe(Number('9223372036854775808'));
    expect(int64Of(parseJson('9223372036854775807'))).toBe(2n ** 63n - 1n);
    expect(int64Of(parseJson('9223372036854775808'))).toBeUndefined();
  });
});

describe('parseJson and stringifyJson', () => {
  it('round-trip ids beyond 2^53 digit for digit', () => {
    const text = '{"id":9007199254740993,"categoryId":-9223372036854775808,"name":"\\u0000é🐾"}';
    expect(stringifyJson(parseJson(text))).toBe(text);
  });

  it('write bigints exactly', () => {
    expect(stringifyJson({ categoryId: 2n ** 63n - 1n })).toBe('{"categoryId":9223372036854775807}');
  });

  it('keep the last value of a duplicate key, as JSON.parse does', () => {
    expect(toPlain(parseJson('{"a":1,"a":2}'))).toEqual({ a: 2 });
  });

  it('reject what is not JSON', () => {
    for (const text of ['', '{', "{'a':1}", '[1,]', 'NaN']) expect(() => parseJson(text)).toThrow(SyntaxError);
  });
});

describe('decodeUtf8', () => {
  it('decodes UTF-8 and refuses invalid bytes', () => {
    expect(decodeUtf8(Buffer.from('ñ🐾'))).toBe('ñ🐾');
    expect(decodeUtf8(Uint8Array.from([0x7b, 0xff, 0x7d]))).toBeUndefined();
  });
});

describe('parseJson: the fast path gives what lossless-json gives', () => {
  const slow = (text: string) => parse(text, null, { onDuplicateKey: ({ newValue }) => newValue });
  /** Numbers as the text they were written with, so the comparison sees every digit. */
  const exact = (value: unknown): unknown =>
    isLosslessNumber(value)
      ? `#${value.value}`
      : Array.isArray(value)
        ? value.map(exact)
        : value !== null && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exact(v)]))
          : value;
  const number = fc
    .tuple(
      fc.constantFrom('', '-'),
      fc.oneof(fc.constant('0'), fc.bigInt({ min: 1n, max: 2n ** 70n }).map(String)),
      fc.option(
        fc.nat().map((n) => `.${n}`),
        { nil: '' },
      ),
      fc.option(
        fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.nat(400)).map((p) => p.join('')),
        { nil: '' },
      ),
    )
    .map((p) => p.join(''));
  const texts = fc.oneof(
    fc.json(),
    fc.json({ stringUnit: 'binary' }),
    fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        number,
        fc.string().map((s) => JSON.stringify(s)),
        fc.array(tie('value')).map((a) => `[ ${a.join(' ,\n')} ]`),
        fc
          .array(fc.tuple(fc.constantFrom('"a"', '"__proto__"', '"1"', '"b"'), tie('value')))
          .map((m) => `{${m.map(([k, v]) => `${k}:${v}`).join(',')}}`),
      ),
    })).value as fc.Arbitrary<string>,
  );

  it('on valid JSON: the same values, every number with its exact text, duplicate keys and __proto__ alike', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(exact(parseJson(text))).toEqual(exact(slow(text)));
      }),
      { numRuns: 3000 },
    );
    // Thousands of generated texts parsed twice: 2 s of one core on a quiet machine, ×15 for a shared one.
  }, 30_000);

  it('on text that is not JSON, or that could hold a marker: the same error or value', () => {
    fc.assert(
      fc.property(
        texts,
        fc.nat(),
        fc.constantFrom('01', '1.', '-', '.5', '+1', '"', '\\', '\u0001', '"\\u0001"', '"\\\\u0001x"', ',', '}', '1e'),
        (text, at, insert) => {
          const damaged = text.slice(0, at % (text.length + 1)) + insert + text.slice(at % (text.length + 1));
          let fast: unknown;
          let reference: unknown;
          try {
            fast = exact(parseJson(damaged));
          } catch (error) {
            fast = `throws ${(error as Error).message}`;
          }
          try {
            reference = exact(slow(damaged));
          } catch (error) {
            reference = `throws ${(error as Error).message}`;
          }
          expect(fast).toEqual(reference);
        },
      ),
      { numRuns: 3000 },
    );
    // Thousands of generated texts parsed twice: 1.5 s of one core on a quiet machine, ×20 for a shared one.
  }, 30_000);

  it('keeps a __proto__ member as a member, not as the prototype', () => {
    const value = parseJson('{"__proto__": {"polluted": 1}, "n": 12345678901234567890}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.keys(value)).toEqual(['__proto__', 'n']);
    expect((value.n as LosslessNumber).value).toBe('12345678901234567890');
  });
});

describe('decodeUtf8 decodes as a fatal TextDecoder does', () => {
  const decoder = (ignoreBOM: boolean) => new TextDecoder('utf-8', { fatal: true, ignoreBOM });
  const reference = (bytes: Uint8Array, ignoreBOM: boolean) => {
    try {
      return decoder(ignoreBOM).decode(bytes);
    } catch {
      return undefined;
    }
  };
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 30 }).map((s) => new Uint8Array(Buffer.from(s))),
    fc
      .tuple(
        fc.constantFrom([0xef, 0xbb, 0xbf], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]),
        fc.string({ unit: 'binary', maxLength: 10 }),
      )
      .map(([raw, s]) => new Uint8Array([...raw, ...Buffer.from(s)])),
  );

  it('the same text, or undefined where the decoder throws; a leading BOM dropped unless kept', () => {
    fc.assert(
      fc.property(bytes, (b) => {
        expect(decodeUtf8(b)).toEqual(reference(b, false));
        expect(decodeUtf8(b, { keepBom: true })).toEqual(reference(b, true));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('parsed objects: member names are data (__proto__, constructor, prototype, toString)', () => {
  const PET = '{"id": 7, "name": "Rex", "categoryId": 2, "status": "available"}';

  it('have no prototype, in both parsers: a member is there when written, absent when not', () => {
    // The first text takes the native path; the second (a marker-like escape) lossless-json's.
    for (const text of [`{"__proto__": ${PET}, "constructor": 1}`, `{"__proto__": ${PET}, "constructor": 1, "x": "\\u0001"}`]) {
      const value = parseJson(text) as Record<string, unknown>;
      expect(Object.getPrototypeOf(value)).toBeNull();
      expect(Object.getPrototypeOf(value.__proto__)).toBeNull();
      expect(Object.keys(value).slice(0, 2)).toEqual(['__proto__', 'constructor']);
      expect(value.name).toBeUndefined();
      expect((value.constructor as unknown as LosslessNumber).value).toBe('1');
      expect('toString' in value || 'hasOwnProperty' in value || 'prototype' in value).toBe(false);
    }
    expect(Object.keys(parseJson('[{"prototype": {}, "toString": "x"}]') as object[]).length).toBe(1);
  });

  it('keep a __proto__ member a member in the copy validators get, so a Pet under __proto__ is no Pet', () => {
    const wrapped = parseJson(`{"__proto__": ${PET}}`);
    const plain = toPlain(wrapped) as Record<string, unknown>;
    expect(Object.getPrototypeOf(plain)).toBeNull();
    expect(Object.keys(plain)).toEqual(['__proto__']);
    expect(plain.name).toBeUndefined();
    expect(validateSchema('Pet', wrapped).map((v) => `${v.path} ${v.message}`)).toEqual([
      '/id is missing',
      '/name is missing',
      '/categoryId is missing',
    ]);
    expect(validateSchema('Pet', parseJson(PET))).toEqual([]);
    expect(validateSchema('Pets', parseJson(`[{"__proto__": ${PET}}]`)).length).toBeGreaterThan(0);
    expect(
      validateSchema('Error', parseJson('{"constructor": "x", "__proto__": {"code": "c", "message": "m", "status": 400}}')).length,
    ).toBeGreaterThan(0);
  });

  it('write back their members, __proto__ included', () => {
    expect(stringifyJson(parseJson(`{"__proto__": {"a": 1}, "b": [2]}`))).toBe('{"__proto__":{"a":1},"b":[2]}');
  });
});

describe('parseJson within bounds: depth and size measured before parsing', () => {
  /** How deep a parsed value goes, and what is at its bottom. */
  const bottom = (value: unknown): { depth: number; at: unknown } => {
    let depth = 0;
    let at = value;
    while (typeof at === 'object' && at !== null && !isLosslessNumber(at)) {
      depth++;
      at = Array.isArray(at) ? at[0] : Object.values(at)[0];
    }
    return { depth, at };
  };

  it('parses a body nested 900 000 deep (1.8 MB) to the depth bound, the rest standing as one string', () => {
    const arrays = `${'['.repeat(900_000)}${']'.repeat(900_000)}`;
    expect(bottom(parseJson(arrays))).toEqual({ depth: MAX_JSON_DEPTH, at: DEEPER_NOT_PARSED });
    const objects = `${'{"a":'.repeat(300_000)}1${'}'.repeat(300_000)}`;
    expect(bottom(parseJson(objects))).toEqual({ depth: MAX_JSON_DEPTH, at: DEEPER_NOT_PARSED });
  });

  it('judges what the schemas constrain exactly: a deep value under an unknown member leaves a Pet a Pet, under a known one it is not', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(validateSchema('Pet', parseJson(`{"id": 1, "extra": ${deep}, "name": "a", "categoryId": 2}`))).toEqual([]);
    expect(validateSchema('Pet', parseJson(`{"id": 1, "name": ${deep}, "categoryId": 2}`)).map((v) => v.path)).toEqual(['/name']);
    expect(validateSchema('Pet', parseJson(deep)).map((v) => `${v.path} ${v.message}`)).toEqual(['/ must be object']);
    expect(validateSchema('Pets', parseJson(deep)).map((v) => v.path)).toEqual(['/0']);
  });

  it('still refuses deep text that is not JSON, wherever the fault is', () => {
    const open = '['.repeat(100_000);
    const close = ']'.repeat(100_000);
    for (const text of [open, `${open}1,,2${close}`, `${open}${close}]`, `${open}"x${close}`, `{"a":${open}${close}`])
      expect(() => parseJson(text), text.slice(-12)).toThrow(SyntaxError);
  });

  it('does not parse a text of more tokens than the bound, and says where it passed it', () => {
    const many = `[${'1,'.repeat(MAX_JSON_TOKENS)}1]`;
    expect(() => parseJson(many)).toThrow(JsonTooLargeError);
    try {
      parseJson(many);
    } catch (error) {
      expect((error as JsonTooLargeError).at).toBe(2 * MAX_JSON_TOKENS);
    }
    expect((parseJson(`[${'1,'.repeat(MAX_JSON_TOKENS - 2)}1]`) as unknown[]).length).toBe(MAX_JSON_TOKENS - 1);
  });
});
