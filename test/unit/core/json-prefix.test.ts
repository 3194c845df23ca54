import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayBeginJson, measureJson, scanJson } from '../../../core/json-prefix.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
/** Texts that end whatever a prefix left open, shortest first: one of them makes JSON of any prefix that can begin it. */
const ENDINGS = [
  '',
  '0',
  '"',
  '0"',
  '"}',
  ']',
  '}',
  '0]',
  '0}',
  '":0}',
  ':0}',
  '"]',
  '"0"}',
  'e',
  'ue',
  'rue',
  'alse',
  'ull',
  '"0":0}',
  '0000"',
];
const closers = (prefix: string) => {
  // A prefix that can begin JSON needs its containers closed as well: try each ending followed by as many closers as opened.
  const depth = Math.max(0, (prefix.match(/[[{]/g) ?? []).length);
  return ENDINGS.flatMap((ending) => [
    ending,
    ...['}', ']'].map((closer) => ending + closer.repeat(depth)),
    ending + ']}'.repeat(depth),
    ending + '}]'.repeat(depth),
  ]);
};

describe('mayBeginJson', () => {
  it('every prefix of a JSON text can begin JSON, with the shape of its first value', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'small' }), fc.nat(), (text, cut) => {
        const prefix = bytes(text).subarray(0, cut % (bytes(text).length + 1));
        expect(mayBeginJson(prefix, 'json')).toBe(true);
        const first = text.trimStart()[0];
        expect(mayBeginJson(prefix, 'object')).toBe(prefix.length <= text.length - text.trimStart().length || first === '{');
        expect(mayBeginJson(prefix, 'array')).toBe(prefix.length <= text.length - text.trimStart().length || first === '[');
      }),
      { numRuns: 2000 },
    );
  });

  it('an object or array followed by anything but whitespace cannot begin JSON', () => {
    const container = fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue())).map((v) => JSON.stringify(v));
    fc.assert(
      fc.property(
        container,
        fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
        (text, junk) => {
          expect(mayBeginJson(bytes(`${text}${junk}`), 'json')).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a text it rules out cannot be made JSON by any ending tried', () => {
    const token = fc.constantFrom(...'{}[]:,"\\ 0123456789-+.eEtrufalsn/bx\u0001'.split(''), 'true', 'null', '\\u00', '\\"', '\\/', '"a"');
    fc.assert(
      fc.property(fc.array(token, { maxLength: 12 }), (tokens) => {
        const prefix = tokens.join('');
        if (!mayBeginJson(bytes(prefix), 'json'))
          for (const ending of closers(prefix)) expect(isJson(prefix + ending), prefix + ending).toBe(false);
      }),
      { numRuns: 2000 },
    );
    // 2000 prefixes, each tried with every ending: 8 s of one core on a quiet machine (24 s seen beside other work), ×6
    // for a runner that shares its cores.
  }, 48_000);

  it.each([
    ['{"id":1,"name":"a', 'object', true],
    ['{"id":1,"name":"a"}   ', 'object', true],
    ['\ufeff [', 'array', true],
    ['{"id":1,"name":"a"} x', 'object', false],
    ['{"id":1}{', 'object', false],
    ['{"id":1,,', 'object', false],
    ['{"id":01', 'object', false],
    ['{"id":tru', 'object', true],
    ['{"id":trux', 'object', false],
    ['{"a":"\\u00', 'object', true],
    ['{"a":"\\u0g', 'object', false],
    ['{"a":"\\q', 'object', false],
    ['{"a":"tab\there"', 'object', false],
    ['{"a":1.', 'object', true],
    ['{"a":1.e', 'object', false],
    ['<!doctype html>', 'object', false],
    ['[{"id":1}]', 'object', false],
    ['{"id":1}', 'array', false],
    ['   ', 'array', true],
    ['[1}', 'json', false],
    ['{"a":1]', 'json', false],
    ['{"a"}', 'json', false],
    ['{1:2}', 'json', false],
    ['["a" "b"]', 'json', false],
    ['[,1]', 'json', false],
    ['[1,]', 'json', false],
    ['{,}', 'json', false],
    ['{"a":1,}', 'json', false],
    ['[]]', 'json', false],
    ['--1', 'json', false],
    ['.5', 'json', false],
    ['nan', 'json', false],
    ['[nul', 'json', true],
    ['-', 'json', true],
    ['1e+5', 'json', true],
    ['[1E-', 'json', true],
    ['["\\/\\b\\f\\n\\r\\t\\"\\\\\\u00aF"', 'json', true],
    ['[{}, [], {"a": [{"b": null}]}, true, false', 'json', true],
  ] as const)('%j as %s: %s', (text, shape, expected) => expect(mayBeginJson(bytes(text), shape)).toBe(expected));

  it('takes a multi-byte character cut in a string as it comes', () => {
    const text = bytes('{"name":"é');
    expect(mayBeginJson(text.subarray(0, text.length - 1), 'object')).toBe(true);
  });
});

describe('scanJson: complete exactly when the text is JSON', () => {
  const damage = fc.constantFrom('', ',', ']', '}', '"', '\\', '1', '.', 'e', ':', '[', '{', ' ', 'tru', '\u0001');
  it('agrees with JSON.parse on JSON texts and on damaged ones', () => {
    fc.assert(
      fc.property(fc.json({ depthSize: 'small' }), fc.nat(), damage, (text, at, insert) => {
        const cut = at % (text.length + 1);
        const damaged = text.slice(0, cut) + insert + text.slice(cut);
        expect(scanJson(text, 'json')).toBe('complete');
        expect(scanJson(damaged, 'json') === 'complete').toBe(isJson(damaged));
      }),
      { numRuns: 3000 },
    );
  });

  it('scans a value within a text, at any depth, without recursion', () => {
    const deep = `${'['.repeat(500_000)}1${']'.repeat(500_000)}`;
    expect(scanJson(deep, 'array')).toBe('complete');
    expect(scanJson(`{"a":${deep}}`, 'json', 5, 5 + deep.length)).toBe('complete');
    expect(scanJson(deep.slice(0, -1), 'json')).toBe('prefix');
    expect(scanJson(`${deep.slice(0, 500_000)}1,,${deep.slice(500_001)}`, 'json')).toBe('invalid');
  });
});

describe('measureJson', () => {
  it('finds the outermost containers deeper than the bound, strings and escapes skipped', () => {
    // Depth 2 is allowed: `{` and `[` of "a"; the third bracket opens the first deep container, holding a string with brackets and escaped quotes.
    const first = String.raw`["]]\"[" , []]`;
    const text = String.raw`{"a":[${first}],"b":[1],"c":[[[`;
    const start = text.indexOf(first);
    expect(measureJson(text, 2, 1000)).toEqual({
      deep: [
        [start, start + first.length],
        [text.length - 2, text.length],
      ],
    });
    expect(measureJson('[[{"x":[[]]}]]', 9, 1000)).toEqual({ deep: [] });
    expect(measureJson('"[[[["', 1, 1000)).toEqual({ deep: [] });
  });

  it('stops where the text passes the token bound, counting nothing deeper than the depth bound', () => {
    expect(measureJson('[1,2,3,4]', 8, 3)).toEqual({ deep: [], over: 6 });
    expect(measureJson('[1,2,3]', 8, 3)).toEqual({ deep: [] });
    expect(measureJson('[[1,2,3,4,5]]', 1, 3)).toEqual({ deep: [[1, 12]] });
    expect(measureJson('{"a,b:c":1}', 8, 2)).toEqual({ deep: [] });
  });

  it('notes a number written with a fraction or an exponent, never the letters of a literal or a string', () => {
    for (const text of ['[1.5]', '{"a":1e3}', '[0E-1]', '[-2.0,true]', '[1,2.50]'])
      expect(measureJson(text, 8, 100).fractional, text).toBe(true);
    for (const text of ['[1,-2,true,false,null]', '{"1.5":"3e4","x":"2E1 1.0"}', '[9007199254740993]', '[-0]'])
      expect(measureJson(text, 8, 100).fractional, text).toBeUndefined();
  });
});
