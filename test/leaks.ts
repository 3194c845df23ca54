/**
 * Looks for the key in text the suite wrote, in every form a reader could
 * decode: plain, JSON-unescaped, percent-decoded, HTML-unescaped (up to three
 * of these one inside another), base64 and base64url runs decoded (at every
 * offset, and once more inside what they decode to), hex runs decoded (both
 * nibble alignments), and those decodings of each other. A leak is any 8-character
 * window of the key (or of its UTF-8 bytes read as Latin-1) in any of them, in
 * any letter case: texts and key are compared with their case folded (upper,
 * then lower case, so `ß` and `SS`, `µ` and `Μ` meet). Written apart from
 * core/redact.ts, on purpose.
 */

/** Characters of the key that make a leak. */
export const WINDOW = 8;

export interface Leak {
  form: string;
  window: string;
  context: string;
}

/** `text` with its letter case folded: upper case, then lower case, so every case-changed form of a text folds alike. */
export function caseless(text: string): string {
  return text.toUpperCase().toLowerCase();
}

/** The 8-character windows of a key that must not appear anywhere, with the case-insensitive ones apart. */
export function windowsOf(key: string): { exact: Set<string>; folded: Set<string> } {
  const exact = new Set<string>();
  const folded = new Set<string>();
  const mojibake = Buffer.from(key, 'utf8').toString('latin1');
  for (const text of [key, mojibake]) for (let i = 0; i + WINDOW <= text.length; i++) exact.add(text.slice(i, i + WINDOW));
  const caseFolded = caseless(key);
  for (let i = 0; i + WINDOW <= caseFolded.length; i++) folded.add(caseFolded.slice(i, i + WINDOW));
  return { exact, folded };
}

function jsonUnescape(text: string): string {
  return text.replace(/\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([^ux]))/g, (m, u: string | undefined, x: string | undefined, c: string | undefined) => {
    if (u) return String.fromCharCode(parseInt(u, 16));
    if (x) return String.fromCharCode(parseInt(x, 16));
    const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };
    return c === undefined ? m : (simple[c] ?? c);
  });
}

function percentDecode(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
    const utf8 = bytes.toString('utf8');
    return utf8.includes('\uFFFD') ? bytes.toString('latin1') : utf8;
  });
}

function htmlUnescape(text: string): string {
  const named: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" };
  return text.replace(/&(?:#[xX]([0-9a-fA-F]+)|#([0-9]+)|([a-zA-Z]+));/g, (m, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
    const cp = hex ? parseInt(hex, 16) : dec ? parseInt(dec, 10) : undefined;
    if (cp !== undefined) return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    return named[name!.toLowerCase()] ?? m;
  });
}

/** Layers of text encoding undone, one inside another, at most (`%2541`, a `\\u0041` inside a JSON string). */
const MAX_LAYERS = 3;
const TEXT_DECODERS: [string, (text: string) => string][] = [
  ['json', jsonUnescape],
  ['percent', percentDecode],
  ['html', htmlUnescape],
];

/** `text` decoded by up to {@link MAX_LAYERS} of JSON, percent and HTML decodings, in any order, each result once. */
function textLayers(text: string): [string, string][] {
  const layers: [string, string][] = [['plain', text]];
  const seen = new Set([text]);
  let frontier = layers;
  for (let depth = 0; depth < MAX_LAYERS && frontier.length > 0; depth++) {
    const next: [string, string][] = [];
    for (const [name, layer] of frontier) {
      for (const [decoder, decode] of TEXT_DECODERS) {
        const decoded = decode(layer);
        if (seen.has(decoded)) continue;
        seen.add(decoded);
        next.push([name === 'plain' ? decoder : `${decoder}(${name})`, decoded]);
      }
    }
    layers.push(...next);
    frontier = next;
  }
  return layers;
}

/**
 * Base64 and hex runs of `layer` decoded (at every offset, as UTF-8 and as
 * Latin-1); the base64 decodings searched for base64 runs once more, as base64
 * of a whole `Basic …` header holds the key only there.
 */
function* binaryDecodings(name: string, layer: string, seen: { base64: Set<string>; hex: Set<string> }, nested: boolean): Generator<[string, string]> {
  // A run decodes the same wherever it is: each is decoded once (echoed keys repeat a form thousands of times).
  for (const run of layer.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
    if (seen.base64.has(run)) continue;
    seen.base64.add(run);
    for (let offset = 0; offset < 4; offset++) {
      const bytes = Buffer.from(run.slice(offset).replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      for (const [as, decoded] of [['', bytes.toString('utf8')], [' as Latin-1', bytes.toString('latin1')]] as const) {
        yield [`base64(${name})${as}`, decoded];
        if (nested) yield* binaryDecodings(`base64(${name})${as}`, decoded, seen, false);
      }
    }
  }
  for (const run of layer.match(/[0-9a-fA-F]{16,}/g) ?? []) {
    if (seen.hex.has(run)) continue;
    seen.hex.add(run);
    for (let offset = 0; offset < 2; offset++) {
      const usable = run.slice(offset, offset + Math.floor((run.length - offset) / 2) * 2);
      const bytes = Buffer.from(usable, 'hex');
      yield [`hex(${name})`, bytes.toString('utf8')];
      yield [`hex(${name}) as Latin-1`, bytes.toString('latin1')];
    }
  }
}

/** Decoded texts of `text`, each named by how it was decoded. */
function* decodings(text: string): Generator<[string, string]> {
  const layers = textLayers(text);
  yield* layers;
  const seen = { base64: new Set<string>(), hex: new Set<string>() };
  for (const [name, layer] of layers) yield* binaryDecodings(name, layer, seen, true);
}

function find(text: string, windows: Set<string>, fold: boolean): { at: number; window: string } | undefined {
  if (text.length < WINDOW) return undefined;
  const haystack = fold ? caseless(text) : text;
  if (windows.size <= 256) {
    for (const window of windows) {
      const at = haystack.indexOf(window);
      if (at >= 0) return { at, window };
    }
    return undefined;
  }
  for (let i = 0; i + WINDOW <= haystack.length; i++) {
    const piece = haystack.slice(i, i + WINDOW);
    if (windows.has(piece)) return { at: i, window: piece };
  }
  return undefined;
}

/** The first leak of `key` in `text`, or undefined. */
export function findLeak(text: string, key: string, windows = windowsOf(key)): Leak | undefined {
  for (const [form, decoded] of decodings(text)) {
    const hit = find(decoded, windows.exact, false) ?? find(decoded, windows.folded, true);
    if (hit) return { form, window: hit.window, context: decoded.slice(Math.max(0, hit.at - 40), hit.at + 60) };
  }
  return undefined;
}

/** Fails with where and how, when any of `texts` leaks any of `keys`. */
export function expectNoLeak(texts: Record<string, string>, keys: readonly string[]): void {
  for (const key of keys) {
    const windows = windowsOf(key);
    for (const [name, text] of Object.entries(texts)) {
      const leak = findLeak(text, key, windows);
      if (leak) throw new Error(`${name} leaks the key (${key.length} characters) in ${leak.form} form: ${JSON.stringify(leak.window)} in …${JSON.stringify(leak.context)}…`);
    }
  }
}
