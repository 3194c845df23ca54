import { describe, expect, it } from 'vitest';
import { decodeUtf8, exactInteger, int64Of, isInt64, LosslessNumber, parseJson, stringifyJson, toPlain } from '../../core/json.js';

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
