/**
 * Looks for the key in text the suite wrote, in every form a reader could
 * decode: plain, JSON-unescaped, percent-decoded, HTML-unescaped, base64 and
 * base64url runs decoded (at every offset), hex runs decoded (both nibble
 * alignments), and those decodings of each other. A leak is any 8-character
 * window of the key (or of its UTF-8 bytes read as Latin-1, or of it in lower
 * case) in any of them. Written apart from core/redact.ts, on purpose.
 */

/** Characters of the key that make a leak. */
export const WINDOW = 8;

export interface Leak {
  form: string;
  window: string;
  context: string;
}

/** The 8-character windows of a key that must not appear anywhere, with the case-insensitive ones apart. */
export function windowsOf(key: string): { exact: Set<string>; folded: Set<string> } {
  const exact = new Set<string>();
  const folded = new Set<string>();
  const mojibake = Buffer.from(key, 'utf8').toString('latin1');
  for (const text of [key, mojibake]) for (let i = 0; i + WINDOW <= text.length; i++) exact.add(text.slice(i, i + WINDOW));
  for (let i = 0; i + WINDOW <= key.length; i++) folded.add(key.slice(i, i + WINDOW).toLowerCase());
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

/** Decoded texts of `text`, each named by how it was decoded. */
function* decodings(text: string): Generator<[string, string]> {
  const layers: [string, string][] = [['plain', text]];
  const json = jsonUnescape(text);
  const percent = percentDecode(text);
  layers.push(['json', json], ['percent', percent], ['percent(json)', percentDecode(json)], ['json(percent)', jsonUnescape(percent)], ['html', htmlUnescape(text)]);
  yield* layers;
  // A run decodes the same wherever it is: each is decoded once (echoed keys repeat a form thousands of times).
  const base64Runs = new Set<string>();
  const hexRuns = new Set<string>();
  for (const [name, layer] of layers) {
    for (const run of layer.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
      if (base64Runs.has(run)) continue;
      base64Runs.add(run);
      for (let offset = 0; offset < 4; offset++) {
        const bytes = Buffer.from(run.slice(offset).replace(/-/g, '+').replace(/_/g, '/'), 'base64');
        yield [`base64(${name})`, bytes.toString('utf8')];
        yield [`base64(${name}) as Latin-1`, bytes.toString('latin1')];
      }
    }
    for (const run of layer.match(/[0-9a-fA-F]{16,}/g) ?? []) {
      if (hexRuns.has(run)) continue;
      hexRuns.add(run);
      for (let offset = 0; offset < 2; offset++) {
        const usable = run.slice(offset, offset + Math.floor((run.length - offset) / 2) * 2);
        const bytes = Buffer.from(usable, 'hex');
        yield [`hex(${name})`, bytes.toString('utf8')];
        yield [`hex(${name}) as Latin-1`, bytes.toString('latin1')];
      }
    }
  }
}

function find(text: string, windows: Set<string>, fold: boolean): { at: number; window: string } | undefined {
  if (text.length < WINDOW) return undefined;
  const haystack = fold ? text.toLowerCase() : text;
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
