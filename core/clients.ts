/**
 * A run's clients: each client of core/fingerprints.ts as one application of
 * the run has it. Real traffic of one kind of client is not one byte string:
 * its version moves (curl 7.74 on one host, 8.14 on the next; Chrome every
 * month), and the application around it chooses how it writes a call (asking
 * for `application/json` or leaving the client's own Accept, its JSON spaced or
 * compact, escaped to ASCII or not, members in its model's order, `status`
 * before `limit`). A run of the drawn disguise ({@link drawnClients}) draws
 * each of these per client from its seed, so that a server that answers the
 * suite alone correctly, by an exact version or one way of writing a call,
 * breaks every application that writes it otherwise. Runs before these were
 * drawn sent {@link FINGERPRINTS} as they are and every call alike
 * ({@link FIXED_CLIENTS}); verify's replay of such a bundle sends them again so.
 *
 * What an application writes never changes what a call means: the same
 * members and values (numbers digit for digit), the same parameters.
 */
import { FINGERPRINT_IDS, FINGERPRINTS, type Fingerprint, type FingerprintId, type HeadLine, type Shapes } from './fingerprints.js';
import { unit } from './hash.js';
import { isLosslessNumber, jsonObject, stringifyJson } from './json.js';

/** How a run's clients are drawn: `drawn` per run from its seed, or `fixed` as runs before (one version, no habits). */
export type Disguise = 'drawn' | 'fixed';

/** How an application writes a JSON body. */
export interface JsonLayout {
  /** `", "` and `": "` between members, as Python's json.dumps; false: compact. */
  spaced: boolean;
  /** On lines indented by this many spaces (`JSON.stringify(v, null, 2)`, a file sent with curl), instead of on one. */
  indent?: number;
  /** A line feed after the value (Go's json.Encoder, a file that ends its last line). */
  newline?: boolean;
  /**
   * Characters it writes as `\uXXXX`: none but those JSON requires; every
   * non-ASCII one (Python's `ensure_ascii`); `<`, `>`, `&`, U+2028, U+2029
   * (Go's encoding/json); those and `=`, `'` (Gson's HTML-safe default).
   */
  escape: 'none' | 'non-ascii' | 'go' | 'gson';
  /** Draws the order of an object's members (the application's model order): a rank per member name. */
  rank(name: string): number;
}

/** How one application writes its calls through its client. */
export interface AppHabits {
  /** The Accept it sets itself (`application/json`), or undefined: the client's own. */
  accept: string | undefined;
  json: JsonLayout;
  /** Writes `status` before `limit` in a listing's query. */
  statusFirst: boolean;
  /** Headers of its own it adds to every call, the `salt`-th (a request id, a trace context); none for most. */
  stamp(salt: number): Record<string, string>;
}

/** The clients as one run has them: each one's shape (its version), and the habits of the application around it (none: every call as the suite writes it). */
export interface RunClients {
  shapes: Shapes;
  apps: Readonly<Record<FingerprintId, AppHabits>> | undefined;
}

/** Every client as core/fingerprints.ts has it, every call as the suite writes it: runs before clients were drawn. */
export const FIXED_CLIENTS: RunClients = { shapes: FINGERPRINTS, apps: undefined };

/**
 * Versions in use, each as its client writes it in User-Agent: the curl of
 * Ubuntu 20.04 to Debian 13, RHEL, macOS and Windows; requests from Ubuntu
 * 20.04's 2.22 to 2.34; OkHttp 3.12 (older Android apps) to 5. Go writes
 * `Go-http-client/1.1` in every version, Node's fetch `node`.
 */
const VERSIONS: Readonly<Partial<Record<FingerprintId, readonly string[]>>> = {
  curl: [
    ...['7.68.0', '7.74.0', '7.76.1', '7.79.1', '7.81.0', '7.88.1', '8.0.1', '8.1.2', '8.2.1', '8.4.0', '8.5.0', '8.6.0'],
    ...['8.7.1', '8.8.0', '8.9.1', '8.10.1', '8.11.1', '8.12.1', '8.13.0', '8.14.1', '8.15.0', '8.16.0'],
  ],
  'python-requests': [
    '2.22.0',
    '2.25.1',
    '2.26.0',
    '2.27.1',
    '2.28.1',
    '2.28.2',
    '2.31.0',
    '2.32.2',
    '2.32.3',
    '2.32.4',
    '2.32.5',
    '2.34.2',
  ],
  okhttp: ['3.12.13', '3.14.9', '4.9.0', '4.9.3', '4.10.0', '4.11.0', '4.12.0', '5.0.0', '5.1.0'],
};

/** Chrome's major versions drawn from (each month's stable, to the one of late 2026); earlier ones wrote the same headers. */
const CHROME_MAJORS = { from: 124, to: 156 } as const;

/**
 * The platforms Chrome runs on, as its User-Agent (reduced: fixed OS
 * versions), `sec-ch-ua-platform` and `sec-ch-ua-mobile` say them; Windows
 * drawn most often, as most Chrome users are on it.
 */
const CHROME_PLATFORMS = [
  { os: 'Windows NT 10.0; Win64; x64', platform: '"Windows"', mobile: '?0' },
  { os: 'Windows NT 10.0; Win64; x64', platform: '"Windows"', mobile: '?0' },
  { os: 'Windows NT 10.0; Win64; x64', platform: '"Windows"', mobile: '?0' },
  { os: 'Macintosh; Intel Mac OS X 10_15_7', platform: '"macOS"', mobile: '?0' },
  { os: 'Macintosh; Intel Mac OS X 10_15_7', platform: '"macOS"', mobile: '?0' },
  { os: 'X11; Linux x86_64', platform: '"Linux"', mobile: '?0' },
  { os: 'Linux; Android 10; K', platform: '"Android"', mobile: '?1' },
  { os: 'X11; CrOS x86_64 14541.0.0', platform: '"Chrome OS"', mobile: '?0' },
] as const;

/** The page of the origin a browser's fetch came from, as its Referer names it (strict-origin-when-cross-origin keeps the path). */
const PAGES = ['/', '/', '/pets', '/app/', '/store/', '/admin/pets', '/dashboard', '/index.html'];

/**
 * Chrome's `sec-ch-ua` for a major version, as Chromium writes it
 * (components/embedder_support/user_agent_utils.cc): a GREASE brand whose
 * characters and version, and the order of the three brands, follow from the
 * major version (131: `"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"`).
 */
export function chromeBrands(major: number): string {
  const chars = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
  const grease = `"Not${chars[major % chars.length]}A${chars[(major + 1) % chars.length]}Brand";v="${['8', '99', '24'][major % 3]}"`;
  const orders = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
  ];
  const order = orders[major % orders.length]!;
  const out: string[] = [];
  [grease, `"Chromium";v="${major}"`, `"Google Chrome";v="${major}"`].forEach((brand, i) => (out[order[i]!] = brand));
  return out.join(', ');
}

/**
 * What a client of an application may send besides its defaults: requests
 * with brotli installed asks for `br` too, OkHttp with its BrotliInterceptor
 * `br,gzip`. (No zstd: node:zlib of Node 20 cannot decode it.)
 */
const ENCODINGS: Readonly<Partial<Record<FingerprintId, readonly string[]>>> = {
  'python-requests': ['gzip, deflate', 'gzip, deflate', 'gzip, deflate, br'],
  okhttp: ['gzip', 'gzip', 'br,gzip'],
};

/** One of `list`, drawn from the seed and a label. */
function drawn<T>(list: readonly T[], seed: number, label: string): T {
  return list[Math.floor(unit(seed, label) * list.length)]!;
}

/** `id`'s shape with its User-Agent (and what goes with it) for the version drawn. */
function drawnFingerprint(id: FingerprintId, seed: number): Fingerprint {
  const base = FINGERPRINTS[id];
  const pick = <T>(list: readonly T[], what: string) => drawn(list, seed, `${id} ${what}`);
  let userAgent = base.userAgent;
  const versions = VERSIONS[id];
  if (versions) userAgent = `${base.userAgent.slice(0, base.userAgent.indexOf('/') + 1)}${pick(versions, 'version')}`;
  const values: Record<string, string> = { 'user-agent': userAgent };
  const encodings = ENCODINGS[id];
  if (encodings) values['accept-encoding'] = pick(encodings, 'encodings');
  let extra: HeadLine[] = [];
  if (id === 'chrome') {
    const major = CHROME_MAJORS.from + Math.floor(unit(seed, 'chrome major') * (CHROME_MAJORS.to - CHROME_MAJORS.from + 1));
    const { os, platform, mobile } = pick(CHROME_PLATFORMS, 'platform');
    userAgent = `Mozilla/5.0 (${os}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 ${mobile === '?1' ? 'Mobile ' : ''}Safari/537.36`;
    Object.assign(values, {
      'user-agent': userAgent,
      'sec-ch-ua': chromeBrands(major),
      'sec-ch-ua-platform': platform,
      'sec-ch-ua-mobile': mobile,
    });
    // A fetch from a page of the same origin names the page (its default policy, strict-origin-when-cross-origin).
    extra = [['Referer', `{origin}${pick(PAGES, 'page')}`]];
  }
  const head = base.head.flatMap((line): HeadLine[] => {
    if (!Array.isArray(line)) return [line];
    const name = line[0].toLowerCase();
    const value = values[name];
    const drawn: HeadLine = value === undefined ? line : line.length === 3 ? [line[0], value, line[2]] : [line[0], value];
    return name === 'sec-fetch-dest' ? [drawn, ...extra] : [drawn];
  });
  // Node's fetch writes the application's header names as it spelled them: `content-type`, or `Content-Type`.
  const casing = id === 'node-fetch' ? pick(['lower', 'title'] as const, 'casing') : base.casing;
  return { ...base, userAgent, head, casing };
}

/** The JSON layouts an application of each client writes with, the first the most usual. */
const LAYOUTS: Readonly<Record<FingerprintId, readonly Omit<JsonLayout, 'rank'>[]>> = {
  // By hand on the command line: spaced as people type it, or compact; or a file (--data-binary @pet.json).
  curl: [
    { spaced: true, escape: 'none' },
    { spaced: false, escape: 'none' },
    { spaced: false, escape: 'none', indent: 2, newline: true },
  ],
  // `json=` (json.dumps' defaults), or bytes of a compact encoder (orjson).
  'python-requests': [
    { spaced: true, escape: 'non-ascii' },
    { spaced: false, escape: 'none' },
  ],
  // json.Marshal, or a json.Encoder writing into the body (a line feed after).
  'go-http-client': [
    { spaced: false, escape: 'go' },
    { spaced: false, escape: 'go', newline: true },
  ],
  // Gson, or Moshi and kotlinx.serialization.
  okhttp: [
    { spaced: false, escape: 'gson' },
    { spaced: false, escape: 'none' },
  ],
  'node-fetch': [
    { spaced: false, escape: 'none' },
    { spaced: false, escape: 'none', indent: 2 },
  ],
  chrome: [{ spaced: false, escape: 'none' }],
};

/** What an application asking for JSON writes in Accept: the plain type, axios's list, with a charset, with a fallback. */
const ACCEPTS = [
  'application/json',
  'application/json',
  'application/json, text/plain, */*',
  'application/json;charset=UTF-8',
  'application/json, */*;q=0.8',
];

/** `bytes` random bytes as hex, from the seed and a label. */
const hexOf = (seed: number, label: string, bytes: number) =>
  Array.from({ length: bytes }, (_, i) =>
    Math.floor(unit(seed, `${label} ${i}`) * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');

/** Names of the headers {@link STAMPS} add: a replayed case may carry them (cli/replay.ts). */
export const APP_HEADERS = ['x-request-id', 'traceparent'] as const;

/**
 * Headers an application adds to each call of its own: none (most), a request
 * id (a UUID per call), a W3C trace context (`traceparent`, RFC-like W3C
 * Trace Context: a trace id and a span id per call).
 */
const STAMPS: readonly ((seed: number, id: FingerprintId) => AppHabits['stamp'])[] = [
  () => () => ({}),
  () => () => ({}),
  (seed, id) => (salt) => {
    const h = hexOf(seed ^ salt, `${id} request id`, 16);
    return { 'x-request-id': `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}` };
  },
  (seed, id) => (salt) => ({ traceparent: `00-${hexOf(seed ^ salt, `${id} trace`, 16)}-${hexOf(seed ^ salt, `${id} span`, 8)}-01` }),
];

/** Each client of a run of `seed`, its version and its application's habits drawn from the seed. */
export function drawnClients(seed: number): RunClients {
  const each = <T>(of: (id: FingerprintId) => T) =>
    Object.fromEntries(FINGERPRINT_IDS.map((id) => [id, of(id)])) as Record<FingerprintId, T>;
  return {
    shapes: each((id) => drawnFingerprint(id, seed)),
    apps: each((id): AppHabits => {
      const layouts = LAYOUTS[id];
      const layout = drawn(layouts, seed, `${id} layout`);
      return {
        accept: unit(seed, `${id} accept`) < 0.5 ? drawn(ACCEPTS, seed, `${id} accept value`) : undefined,
        json: { ...layout, rank: (name) => unit(seed, `${id} member ${name}`) },
        statusFirst: unit(seed, `${id} query order`) < 0.5,
        stamp: drawn(STAMPS, seed, `${id} stamp`)(seed, id),
      };
    }),
  };
}

/** A run's clients under `disguise`. */
export function runClients(disguise: Disguise, seed: number): RunClients {
  return disguise === 'drawn' ? drawnClients(seed) : FIXED_CLIENTS;
}

/**
 * `value` as JSON text the way `layout` writes it: members in its order,
 * spaced or compact, escaped as it escapes. The value is the same: numbers
 * digit for digit (core/json.ts `stringifyJson`), the same members and strings.
 */
export function writeJson(value: unknown, layout: JsonLayout): string {
  let text = stringifyJson(ordered(value, layout.rank), layout.indent);
  if (layout.spaced && layout.indent === undefined) text = spaced(text);
  const escaped = ESCAPED[layout.escape];
  // Outside strings, JSON text is ASCII and holds none of these: every one is inside a string.
  if (escaped) text = text.replace(escaped, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return layout.newline ? `${text}\n` : text;
}

const ESCAPED: Readonly<Record<JsonLayout['escape'], RegExp | undefined>> = {
  none: undefined,
  'non-ascii': /[\u007f-\uffff]/g,
  go: /[<>&\u2028\u2029]/g,
  gson: /[<>&='\u2028\u2029]/g,
};

/** A copy of `value` with every object's members in the order of `rank` (ties as they were). */
function ordered(value: unknown, rank: (name: string) => number): unknown {
  if (Array.isArray(value)) return value.map((v: unknown) => ordered(v, rank));
  if (value === null || typeof value !== 'object' || isLosslessNumber(value)) return value;
  const object = value as Record<string, unknown>;
  const out = jsonObject();
  const names = Object.keys(object).sort((a, b) => rank(a) - rank(b));
  for (const name of names) out[name] = ordered(object[name], rank) as never;
  return out;
}

/** Compact JSON text with `", "` and `": "` between members and elements (Python's default separators). */
function spaced(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    out += ch;
    if (inString) {
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === ',' || ch === ':') out += ' ';
  }
  return out;
}

/** Query parameters in the order an application writes them: `status` before `limit` when it does so, else as given. */
export function orderedQuery(params: readonly (readonly [string, string])[], app: AppHabits): (readonly [string, string])[] {
  if (!app.statusFirst) return [...params];
  return [...params.filter(([name]) => name === 'status'), ...params.filter(([name]) => name !== 'status')];
}
