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
 * Debian 11 to 13, Ubuntu 22.04 and 24.04, macOS and Windows; requests from
 * Debian's 2.25 to 2.32; OkHttp 3.14 (older Android apps) to 5. Go writes
 * `Go-http-client/1.1` in every version, Node's fetch `node`.
 */
const VERSIONS: Readonly<Partial<Record<FingerprintId, readonly string[]>>> = {
  curl: ['7.74.0', '7.81.0', '7.88.1', '8.4.0', '8.5.0', '8.7.1', '8.9.1', '8.10.1', '8.11.1', '8.12.1', '8.13.0', '8.14.1', '8.15.0'],
  'python-requests': ['2.25.1', '2.27.1', '2.28.1', '2.28.2', '2.31.0', '2.32.2', '2.32.3', '2.32.4', '2.32.5'],
  okhttp: ['3.14.9', '4.9.3', '4.10.0', '4.11.0', '4.12.0', '5.0.0', '5.1.0'],
};

/** Chrome's major versions drawn from (each month's stable); earlier ones wrote the same headers. */
const CHROME_MAJORS = { from: 124, to: 142 } as const;

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

/** `id`'s shape with its User-Agent (and what goes with it) for the version drawn. */
function drawnFingerprint(id: FingerprintId, seed: number): Fingerprint {
  const base = FINGERPRINTS[id];
  const pick = <T>(list: readonly T[], what: string) => list[Math.floor(unit(seed, `${id} ${what}`) * list.length)]!;
  let userAgent = base.userAgent;
  const versions = VERSIONS[id];
  if (versions) userAgent = `${base.userAgent.slice(0, base.userAgent.indexOf('/') + 1)}${pick(versions, 'version')}`;
  let head: HeadLine[] = base.head.map((line) =>
    Array.isArray(line) && line[0].toLowerCase() === 'user-agent' ? [line[0], userAgent] : line,
  );
  let casing = base.casing;
  if (id === 'chrome') {
    const major = CHROME_MAJORS.from + Math.floor(unit(seed, 'chrome major') * (CHROME_MAJORS.to - CHROME_MAJORS.from + 1));
    userAgent = base.userAgent.replace(/Chrome\/\d+/, `Chrome/${major}`);
    head = head.flatMap((line): HeadLine[] => {
      if (!Array.isArray(line)) return [line];
      const name = line[0].toLowerCase();
      if (name === 'user-agent') return [[line[0], userAgent]];
      if (name === 'sec-ch-ua') return [[line[0], chromeBrands(major)]];
      // A fetch from a page of the same origin names the page (its default policy, strict-origin-when-cross-origin).
      if (name === 'sec-fetch-dest') return [line, ['Referer', '{origin}/']];
      return [line];
    });
  }
  // Node's fetch writes the application's header names as it spelled them: `content-type`, or `Content-Type`.
  if (id === 'node-fetch') casing = pick(['lower', 'title'] as const, 'casing');
  return { ...base, userAgent, head, casing };
}

/** The JSON layouts an application of each client writes with, the first the most usual. */
const LAYOUTS: Readonly<Record<FingerprintId, readonly Omit<JsonLayout, 'rank'>[]>> = {
  // By hand on the command line: spaced as people type it, or compact.
  curl: [
    { spaced: true, escape: 'none' },
    { spaced: false, escape: 'none' },
  ],
  // `json=` (json.dumps' defaults), or bytes of a compact encoder (orjson).
  'python-requests': [
    { spaced: true, escape: 'non-ascii' },
    { spaced: false, escape: 'none' },
  ],
  'go-http-client': [{ spaced: false, escape: 'go' }],
  // Gson, or Moshi and kotlinx.serialization.
  okhttp: [
    { spaced: false, escape: 'gson' },
    { spaced: false, escape: 'none' },
  ],
  'node-fetch': [{ spaced: false, escape: 'none' }],
  chrome: [{ spaced: false, escape: 'none' }],
};

/** Each client of a run of `seed`, its version and its application's habits drawn from the seed. */
export function drawnClients(seed: number): RunClients {
  const each = <T>(of: (id: FingerprintId) => T) =>
    Object.fromEntries(FINGERPRINT_IDS.map((id) => [id, of(id)])) as Record<FingerprintId, T>;
  return {
    shapes: each((id) => drawnFingerprint(id, seed)),
    apps: each((id): AppHabits => {
      const layouts = LAYOUTS[id];
      const layout = layouts[Math.floor(unit(seed, `${id} layout`) * layouts.length)]!;
      return {
        accept: unit(seed, `${id} accept`) < 0.5 ? 'application/json' : undefined,
        json: { ...layout, rank: (name) => unit(seed, `${id} member ${name}`) },
        statusFirst: unit(seed, `${id} query order`) < 0.5,
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
  let text = stringifyJson(ordered(value, layout.rank));
  if (layout.spaced) text = spaced(text);
  const escaped = ESCAPED[layout.escape];
  // Outside strings, JSON text is ASCII and holds none of these: every one is inside a string.
  return escaped ? text.replace(escaped, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
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
