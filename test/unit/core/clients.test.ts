/**
 * A run's clients (core/clients.ts): each client's version drawn from those in
 * use, written as that client writes it; each application's way of writing a
 * call, byte for byte as the real encoders write it, never changing what the
 * call means.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chromeBrands, drawnClients, FIXED_CLIENTS, type JsonLayout, writeJson } from '../../../core/clients.js';
import { FINGERPRINT_IDS, FINGERPRINTS, fingerprintOfHeaders } from '../../../core/fingerprints.js';
import { parseJson, stringifyJson } from '../../../core/json.js';
import { asWritten } from '../../../suites/session/written.js';

const SEEDS = Array.from({ length: 100 }, (_, i) => i * 7919);

/** Members in the order given: the layout's own order as an application that keeps its model's. */
const asGiven =
  (...names: string[]) =>
  (name: string) =>
    names.indexOf(name);

describe('versions', () => {
  it("Chrome's sec-ch-ua follows Chromium's GREASE from the major version, as Chrome 120, 124, 131 and 133 sent it", () => {
    expect(chromeBrands(120)).toBe('"Not_A Brand";v="8", "Chromium";v="120", "Google Chrome";v="120"');
    expect(chromeBrands(124)).toBe('"Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99"');
    expect(chromeBrands(131)).toBe('"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"');
    expect(chromeBrands(133)).toBe('"Not(A:Brand";v="99", "Google Chrome";v="133", "Chromium";v="133"');
  });

  it('a seed draws one version per client, the same every time; across seeds many versions of each versioned client', () => {
    const habits = (seed: number) =>
      FINGERPRINT_IDS.map((id) => {
        const { json, stamp, ...app } = drawnClients(seed).apps![id];
        return { ...app, ...json, rank: ['name', 'categoryId', 'status'].map(json.rank), stamps: [stamp(0), stamp(1)] };
      });
    expect(drawnClients(21).shapes).toEqual(drawnClients(21).shapes);
    expect(habits(21)).toEqual(habits(21));
    expect(habits(22)).not.toEqual(habits(21));
    const agents = (id: (typeof FINGERPRINT_IDS)[number]) => new Set(SEEDS.map((seed) => drawnClients(seed).shapes[id].userAgent));
    for (const id of ['curl', 'python-requests', 'okhttp', 'chrome'] as const) expect(agents(id).size, id).toBeGreaterThanOrEqual(5);
    // Go writes one User-Agent in every version, Node's fetch one too.
    expect(agents('go-http-client')).toEqual(new Set(['Go-http-client/1.1']));
    expect(agents('node-fetch')).toEqual(new Set(['node']));
  });

  it('a Chrome drawn carries its own major version in User-Agent and sec-ch-ua alike', () => {
    for (const seed of SEEDS) {
      const chrome = drawnClients(seed).shapes.chrome;
      const major = Number(/Chrome\/(\d+)\./.exec(chrome.userAgent)![1]);
      const line = (name: string) => chrome.head.find((l) => Array.isArray(l) && l[0].toLowerCase() === name) as readonly string[];
      expect(line('user-agent')[1]).toBe(chrome.userAgent);
      expect(line('sec-ch-ua')[1]).toBe(chromeBrands(major));
    }
  });

  it('every version drawn is told as its client (and the tool as none)', () => {
    for (const seed of SEEDS)
      for (const id of FINGERPRINT_IDS) expect(fingerprintOfHeaders({ 'User-Agent': drawnClients(seed).shapes[id].userAgent })).toBe(id);
    expect(fingerprintOfHeaders({ 'user-agent': 'petstore-conformance' })).toBeUndefined();
    expect(fingerprintOfHeaders({})).toBeUndefined();
  });

  it('the fixed clients are core/fingerprints.ts as it is, with no application habits', () => {
    expect(FIXED_CLIENTS.shapes).toBe(FINGERPRINTS);
    expect(FIXED_CLIENTS.apps).toBeUndefined();
  });

  it("across seeds each client's application asks for JSON or not, and writes status first or not", () => {
    for (const id of FINGERPRINT_IDS) {
      const apps = SEEDS.map((seed) => drawnClients(seed).apps![id]);
      expect(new Set(apps.map((a) => a.accept === undefined)), id).toEqual(new Set([true, false]));
      expect(new Set(apps.map((a) => a.accept)).size, id).toBeGreaterThanOrEqual(4);
      expect(new Set(apps.map((a) => a.statusFirst)), id).toEqual(new Set([true, false]));
    }
  });
});

describe('what else a run draws of its clients', () => {
  const line = (id: (typeof FINGERPRINT_IDS)[number], seed: number, name: string) =>
    (drawnClients(seed).shapes[id].head.find((l) => Array.isArray(l) && l[0].toLowerCase() === name) as readonly string[] | undefined)?.[1];

  it('Chrome on Windows, macOS, Linux, Android and ChromeOS, its User-Agent, platform and mobile hint agreeing; a Referer of several pages', () => {
    const platforms = new Set<string>();
    const pages = new Set<string>();
    for (const seed of SEEDS) {
      const chrome = drawnClients(seed).shapes.chrome;
      const platform = line('chrome', seed, 'sec-ch-ua-platform')!;
      platforms.add(platform);
      pages.add(line('chrome', seed, 'referer')!);
      const os = {
        '"Windows"': /Windows NT/,
        '"macOS"': /Macintosh/,
        '"Linux"': /X11; Linux/,
        '"Android"': /Android/,
        '"Chrome OS"': /CrOS/,
      }[platform]!;
      expect(chrome.userAgent).toMatch(os);
      expect(line('chrome', seed, 'sec-ch-ua-mobile')).toBe(/Mobile Safari/.test(chrome.userAgent) ? '?1' : '?0');
    }
    expect(platforms.size).toBe(5);
    expect(pages.size).toBeGreaterThanOrEqual(4);
  });

  it("requests with brotli and OkHttp's brotli interceptor ask for br too, now and then", () => {
    expect(new Set(SEEDS.map((seed) => line('python-requests', seed, 'accept-encoding')))).toEqual(
      new Set(['gzip, deflate', 'gzip, deflate, br']),
    );
    expect(new Set(SEEDS.map((seed) => line('okhttp', seed, 'accept-encoding')))).toEqual(new Set(['gzip', 'br,gzip']));
  });

  it('some applications stamp each call with a request id or a trace context of its own, new for every call', () => {
    const stamps = SEEDS.flatMap((seed) => FINGERPRINT_IDS.map((id) => drawnClients(seed).apps![id].stamp));
    const names = new Set(stamps.flatMap((stamp) => Object.keys(stamp(0))));
    expect(names).toEqual(new Set(['x-request-id', 'traceparent']));
    expect(stamps.some((stamp) => Object.keys(stamp(0)).length === 0)).toBe(true);
    const stamped = stamps.find((stamp) => 'x-request-id' in stamp(0))!;
    expect(stamped(0)['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(stamped(1)).not.toEqual(stamped(0));
    const traced = stamps.find((stamp) => 'traceparent' in stamp(0))!;
    expect(traced(7).traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});

describe('JSON as applications write it', () => {
  const value = { name: 'Zoé "Rex", 2: <a&b>=\u2028 \u{1F415}', categoryId: 7n, tags: [1, 2], status: 'available' };
  const order = asGiven('name', 'categoryId', 'tags', 'status');

  it("Python's json.dumps: spaced, every non-ASCII character escaped (its output, byte for byte)", () => {
    expect(writeJson(value, { spaced: true, escape: 'non-ascii', rank: order })).toBe(
      '{"name": "Zo\\u00e9 \\"Rex\\", 2: <a&b>=\\u2028 \\ud83d\\udc15", "categoryId": 7, "tags": [1, 2], "status": "available"}',
    );
  });

  it("Go's encoding/json: compact, <, > and & escaped (its output, byte for byte)", () => {
    expect(writeJson({ name: value.name }, { spaced: false, escape: 'go', rank: order })).toBe(
      '{"name":"Zoé \\"Rex\\", 2: \\u003ca\\u0026b\\u003e=\\u2028 \u{1F415}"}',
    );
  });

  it("indented on lines as JSON.stringify(v, null, 2) writes it, and ended by a line feed as Go's json.Encoder ends it", () => {
    const pet = { name: 'Rex', category: { id: 2n }, tags: [] };
    expect(writeJson(pet, { spaced: false, escape: 'none', indent: 2, rank: asGiven('name', 'category', 'tags') })).toBe(
      JSON.stringify({ name: 'Rex', category: { id: 2 }, tags: [] }, null, 2),
    );
    expect(writeJson(pet, { spaced: false, escape: 'go', newline: true, rank: asGiven('name', 'category', 'tags') })).toBe(
      '{"name":"Rex","category":{"id":2},"tags":[]}\n',
    );
  });

  it("Gson's HTML-safe default escapes = and ' too", () => {
    expect(writeJson({ name: "a='b'" }, { spaced: false, escape: 'gson', rank: order })).toBe('{"name":"a\\u003d\\u0027b\\u0027"}');
  });

  it('members go in the order the application draws, nested ones too', () => {
    const rank = asGiven('status', 'id', 'name', 'categoryId', 'category');
    expect(writeJson({ name: 'A', category: { name: 'B', id: 2n }, status: 'sold' }, { spaced: false, escape: 'none', rank })).toBe(
      '{"status":"sold","name":"A","category":{"id":2,"name":"B"}}',
    );
  });

  it('any layout writes the same value: numbers digit for digit, every member and string as they were', () => {
    const layout = fc.record({
      spaced: fc.boolean(),
      escape: fc.constantFrom<JsonLayout['escape']>('none', 'non-ascii', 'go', 'gson'),
      salt: fc.integer(),
    });
    const exact = fc.oneof(
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }),
      fc.constantFrom('1.0', '1e30', '-0.5', '12e0').map((text) => parseJson(text)),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'binary' }),
        exact,
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string({ unit: 'grapheme' }), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, layout, (v, { spaced, escape, salt }) => {
        const written = writeJson(v, { spaced, escape, rank: (name) => (name.length * 31 + salt) % 7 });
        expect(parseJson(written)).toEqual(parseJson(stringifyJson(v)));
      }),
    );
  });
});

describe('a request as its application writes it', () => {
  const app = {
    accept: 'application/json',
    json: { spaced: true, escape: 'none' as const, rank: asGiven('status', 'name') },
    statusFirst: true,
    stamp: () => ({}),
  };
  const listing = {
    path: '/pets?limit=5&status=sold',
    written: {
      query: [
        ['limit', '5'],
        ['status', 'sold'],
      ] as const,
    },
  };

  it('a listing: status first when the application writes it so, the same parameters', () => {
    expect(asWritten(listing, app).path).toBe('/pets?status=sold&limit=5');
    expect(asWritten(listing, { ...app, statusFirst: false }).path).toBe('/pets?limit=5&status=sold');
  });

  it('a body given as a value is written in its layout; bytes a check wrote go as they are', () => {
    const value = { name: 'Rex', status: 'sold' };
    expect(asWritten({ path: '/pets', body: stringifyJson(value), written: { json: value } }, app).body).toBe(
      '{"status": "sold", "name": "Rex"}',
    );
    expect(asWritten({ path: '/pets', body: '{"name":"Rex",}' }, app).body).toBe('{"name":"Rex",}');
  });

  it('a body longer than a few KiB, as the suite writes it or as the application would, goes as the suite writes it (its size is what a check may probe)', () => {
    const ascii = { name: 'R'.repeat(5000) };
    expect(asWritten({ path: '/pets', body: stringifyJson(ascii), written: { json: ascii } }, app).body).toBe(stringifyJson(ascii));
    // 1 200 characters: 2.4 KB as UTF-8, 7.2 KB escaped as Python escapes them.
    const escaped = { name: 'é'.repeat(1200) };
    const python = { ...app, json: { ...app.json, escape: 'non-ascii' as const } };
    expect(asWritten({ path: '/pets', body: stringifyJson(escaped), written: { json: escaped } }, python).body).toBe(
      stringifyJson(escaped),
    );
  });

  it('its Accept only where the check set none; without an application, everything as the suite wrote it', () => {
    expect(asWritten({ path: '/pets' }, app).headers).toEqual({ accept: 'application/json' });
    expect(asWritten({ path: '/pets', headers: { Accept: 'text/html' } }, app).headers).toEqual({ Accept: 'text/html' });
    const value = { name: 'Rex', status: 'sold' };
    const request = { ...listing, body: stringifyJson(value), written: { ...listing.written, json: value } };
    expect(asWritten(request, undefined)).toEqual({ path: listing.path, body: request.body });
  });
});
