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

/** Encodings a server may apply to what it echoes, written apart from core/redact.ts on purpose. */
export const b64 = (text: string, encoding: BufferEncoding = 'utf8'): string => Buffer.from(text, encoding).toString('base64');
export const b64url = (text: string): string => Buffer.from(text).toString('base64url');
export const hex = (text: string, encoding: BufferEncoding = 'utf8'): string => Buffer.from(text, encoding).toString('hex');
export const u4 = (ch: string, upper = false): string =>
  `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`;
export const jsonInner = (text: string): string => JSON.stringify(text).slice(1, -1);
export const pctAll = (text: string, encoding: BufferEncoding = 'utf8'): string =>
  [...Buffer.from(text, encoding)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
export const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
export const asciiUpper = (text: string): string => text.replace(/[a-z]+/g, (m) => m.toUpperCase());
export const swapped = (text: string): string => [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
/** Each ASCII letter 13 places on: its own inverse. */
export const rot13 = (text: string): string =>
  text.replace(/[A-Za-z]/g, (c) => String.fromCharCode((c <= 'Z' ? 65 : 97) + ((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26)));
export const reversed = (text: string): string => [...text].reverse().join('');
/** Printable ASCII as its full-width compatibility character (`Ａ` for `A`), which NFKC takes back. */
const fullwidth = (text: string): string => text.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
/** ASCII letters and digits as mathematical bold ones (U+1D400…), which NFKC takes back. */
const mathBold = (text: string): string =>
  text.replace(/[A-Za-z0-9]/g, (c) =>
    String.fromCodePoint(
      /[0-9]/.test(c) ? 0x1d7ce + Number(c) : c <= 'Z' ? 0x1d400 + c.charCodeAt(0) - 65 : 0x1d41a + c.charCodeAt(0) - 97,
    ),
  );
/** RFC 4648 base32, unpadded. */
export const base32 = (text: string): string => {
  const bits = [...Buffer.from(text)].map((b) => b.toString(2).padStart(8, '0')).join('');
  return (bits.match(/.{1,5}/g) ?? []).map((five) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(five.padEnd(5, '0'), 2)]).join('');
};

/**
 * Every form a server may echo a secret in, as the raw characters it sends:
 * escaped, percent-encoded, nested, base64 and hex (of the secret, of what
 * holds it, of a piece of it, cut short, case-folded as a header name folds
 * it), case-folded, the near misses the auth checks send, pieces. The golden
 * file of the redactor and the end-to-end secrets tests both draw from it.
 */
export const ECHO_FORMS: Readonly<Record<string, (k: string) => string>> = {
  plain: (k) => k,
  json: (k) => jsonInner(k),
  'json-php': (k) => jsonInner(k).replace(/\//g, '\\/'),
  'json-unicode-lower': (k) => [...k].map((c) => u4(c)).join(''),
  'json-unicode-upper': (k) => [...k].map((c) => u4(c, true)).join(''),
  'json-mixed': (k) => [...k].map((c, i) => (i % 2 === 0 ? u4(c, i % 4 === 0) : jsonInner(c).replace(/\//g, '\\/'))).join(''),
  'x-escapes': (k) => [...Buffer.from(k, 'latin1')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join(''),
  html: (k) => [...k].map((c) => `&#${c.charCodeAt(0)};`).join(''),
  'html-hex': (k) => [...k].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(''),
  percent: (k) => encodeURIComponent(k),
  'percent-lower': (k) => encodeURIComponent(k).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  'percent-all': (k) => pctAll(k),
  'percent-latin1': (k) => pctAll(k, 'latin1'),
  // Nested: percent-encoded twice (UTF-8 and Latin-1 bytes), and a JSON escape inside the JSON string (`\\u0051`, one more decoding to go).
  'percent-twice': (k) => pctAll(k).replace(/%/g, '%25'),
  'percent-latin1-twice': (k) => pctAll(k, 'latin1').replace(/%/g, '%25'),
  'json-unicode-in-json': (k) => jsonInner([...k].map((c) => u4(c)).join('')),
  'three-layers': (k) => JSON.stringify({ echo: JSON.stringify({ echo: [...k].map((c) => u4(c)).join('') }) }),
  'percent-in-json-escapes': (k) => JSON.stringify({ echo: [...pctAll(k)].map((c) => u4(c)).join('') }),
  base64: (k) => b64(k),
  'base64 after one byte': (k) => b64(`x${k}`),
  'base64 after two bytes': (k) => b64(`xy${k}`),
  'base64-latin1': (k) => b64(k, 'latin1'),
  'base64-bearer': (k) => b64(`Bearer ${k}`),
  'base64-basic': (k) => b64(`conformance:${k}`),
  'base64-user': (k) => b64(`user:${k}`),
  // The Basic header the auth checks send, encoded once more.
  'base64-basic-header': (k) => b64(`Basic ${b64(`conformance:${k}`)}`),
  'base64url-basic-header-after-text': (k) => Buffer.from(`Authorization: Basic ${b64(`conformance:${k}`)}`).toString('base64url'),
  'base64-php': (k) => JSON.stringify(b64(`Bearer ${k}`)).replace(/\//g, '\\/'),
  'base64-bearer-php': (k) => b64(`Bearer ${k}`).replace(/\//g, '\\/'),
  base64url: (k) => b64url(`x${k}`),
  'base64url-bearer': (k) => b64url(`Bearer ${k}`),
  // Encoded pieces: a piece of the key in base64 or hex, an encoding cut short, the Basic credentials as a header name folds them (`=` is no token character).
  'base64 of a piece': (k) => b64(k.slice(3, 15)),
  'base64 of a piece, lower case': (k) => b64(k.slice(2, 14)).toLowerCase(),
  'basic, lower case, unpadded': (k) => b64(`conformance:${k}`).toLowerCase().replace(/=+$/, ''),
  'basic cut short': (k) => `Basic ${b64(`conformance:${k}`).slice(0, 30)}`,
  'hex of a piece': (k) => hex(k.slice(1, 13)),
  hex: (k) => hex(k),
  'hex-upper': (k) => hex(k).toUpperCase(),
  'hex-latin1': (k) => hex(k, 'latin1'),
  // Case-folded, as a server may fold any text and HTTP folds a header name; the near misses the auth checks send, and pieces, folded too.
  lower: (k) => k.toLowerCase(),
  upper: (k) => k.toUpperCase(),
  'ascii-lower': (k) => asciiLower(k),
  'ascii-upper': (k) => asciiUpper(k),
  swapped: (k) => swapped(k),
  'near miss': (k) => k.slice(0, -1),
  'near miss, lower case': (k) => k.slice(0, -1).toLowerCase(),
  'near miss, upper case': (k) => k.slice(0, -1).toUpperCase(),
  'near miss, ascii lower case': (k) => asciiLower(k.slice(0, -1)),
  'swapped, lower case': (k) => swapped(k).toLowerCase(),
  'swapped piece': (k) => swapped(k.slice(2, 14)),
  'key and x': (k) => `${k}x`,
  'piece 0-8': (k) => k.slice(0, 8),
  'piece 3-14': (k) => k.slice(3, 14),
  'piece 1 to -1': (k) => k.slice(1, -1),
  'piece, lower case': (k) => k.slice(2, 12).toLowerCase(),
  'piece, upper case': (k) => k.slice(2, 12).toUpperCase(),
  'bearer near miss': (k) => `Bearer ${k.slice(0, -1)}`,
  'bearer near miss as a header name': (k) => `x-n-bearer-${k.slice(0, -1)}`.toLowerCase(),
  // What a reader undoes by hand: a letter cipher, a reversal, separators between the characters (spaces, invisible
  // ones, a JSON array, a line break), compatibility characters (NFKC), one character or byte an escape of its own.
  rot13: (k) => rot13(k),
  reversed: (k) => reversed(k),
  'spaced in fours': (k) => (k.match(/.{1,4}/gsu) ?? []).join(' '),
  'zero-width spaces between': (k) => [...k].join('\u200b'),
  'soft hyphens between': (k) => [...k].join('\u00ad'),
  'dashes between': (k) => [...k].join('-'),
  'array of characters': (k) => JSON.stringify([...k]),
  'line break inside': (k) => `${k.slice(0, 5)}\r\n${k.slice(5)}`,
  'mongolian vowel separators between': (k) => [...k].join('\u180e'),
  'bullets between': (k) => [...k].join('\u2219'),
  'struck through': (k) => [...k].map((c) => `${c}\u0336`).join(''),
  'no-break spaces between, as entities': (k) => [...k].join('&nbsp;'),
  'rot13 without separators': (k) => rot13(k.replace(/[^\p{L}\p{N}]/gu, '')),
  'reversed, spaced': (k) => reversed(k).split('').join(' '),
  fullwidth: (k) => fullwidth(k),
  'mathematical bold': (k) => mathBold(k),
  'quoted-printable': (k) => [...Buffer.from(k)].map((b) => `=${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''),
  'css escapes': (k) => [...k].map((c) => `\\${c.codePointAt(0)!.toString(16)} `).join(''),
  'css escapes, zero-padded': (k) => [...k].map((c) => `\\${c.codePointAt(0)!.toString(16).padStart(4, '0')} `).join(''),
  'css escapes, six digits': (k) => [...k].map((c) => `\\${c.codePointAt(0)!.toString(16).padStart(6, '0')}`).join(''),
  // Encoded twice, as text in base32, as one big number, and base64 wrapped in lines of 76 (MIME, Python's encodebytes).
  'base64 of base64': (k) => b64(b64(k)),
  'base64 of bearer base64': (k) => b64(`x-auth: ${b64(`Bearer ${k}`)}`),
  'base64 of hex': (k) => b64(hex(k)),
  'hex of base64': (k) => hex(b64(k)),
  base32: (k) => base32(k),
  'base32 after two bytes': (k) => base32(`xy${k}`).toLowerCase(),
  'one big number': (k) => BigInt(`0x${hex(k)}`).toString(),
  'base64 in lines of 76': (k) => b64(`${'x'.repeat(50)}${k}${'y'.repeat(40)}`).replace(/.{76}/g, '$&\r\n'),
};

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

/** `text` with only its letters and digits kept: what a reader keeps of a key written with separators (or a mark) between its characters. */
export const skeleton = (text: string): string => text.replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * The 8-character windows of a key that must not appear anywhere, with the
 * case-insensitive ones apart, and those of its {@link skeleton} (looked for in
 * the skeletons of texts).
 */
export interface Windows {
  exact: Set<string>;
  folded: Set<string>;
  encoded: Set<string>;
  skeletal: Set<string>;
  /** Windows of the key, case-folded, in ROT13 and reversed: looked for in the text layers ({@link findLeak}). */
  undone: Map<string, 'rot13' | 'reversed'>;
}

export function windowsOf(key: string): Windows {
  const exact = new Set<string>();
  const folded = new Set<string>();
  const skeletal = new Set<string>();
  const mojibake = Buffer.from(key, 'utf8').toString('latin1');
  for (const text of [key, mojibake]) for (let i = 0; i + WINDOW <= text.length; i++) exact.add(text.slice(i, i + WINDOW));
  const caseFolded = caseless(key);
  for (let i = 0; i + WINDOW <= caseFolded.length; i++) folded.add(caseFolded.slice(i, i + WINDOW));
  const bare = caseless(skeleton(key));
  for (const text of [bare, rot13(bare), reversed(bare)])
    for (let i = 0; i + WINDOW <= text.length; i++) skeletal.add(text.slice(i, i + WINDOW));
  const undone = new Map<string, 'rot13' | 'reversed'>();
  for (const [how, text] of [
    ['rot13', rot13(caseFolded)],
    ['reversed', reversed(caseFolded)],
    ['rot13', rot13(bare)],
    ['reversed', reversed(bare)],
  ] as const) {
    for (let i = 0; i + WINDOW <= text.length; i++) if (!undone.has(text.slice(i, i + WINDOW))) undone.set(text.slice(i, i + WINDOW), how);
  }
  return { exact, folded, encoded: encodedWindows(key), skeletal, undone };
}

/**
 * Pieces of the key's base64 (at each of the three byte alignments, in both
 * alphabets) and hex, in lower case: where a header name folded an encoding,
 * decoding no longer shows the key, yet a reader gets it back by trying both
 * cases of each letter. A base64 piece of {@link WINDOW} characters encodes 6
 * of the key's bytes, a hex piece of twice that 8.
 */
function encodedWindows(key: string): Set<string> {
  const out = new Set<string>();
  const bytes = Buffer.from(key, 'utf8');
  for (let align = 0; align < 3; align++) {
    const encoded = Buffer.concat([Buffer.alloc(align), bytes]).toString('base64');
    // The characters only the key's bytes decide: past the first quantum when padded in front, before the padding and the last one.
    const core = encoded.slice(align === 0 ? 0 : 4, -4);
    for (const alphabet of [core, core.replace(/\+/g, '-').replace(/\//g, '_')])
      for (let i = 0; i + WINDOW <= alphabet.length; i++) out.add(alphabet.slice(i, i + WINDOW).toLowerCase());
  }
  const hexed = bytes.toString('hex');
  for (let i = 0; i + 2 * WINDOW <= hexed.length; i += 2) out.add(hexed.slice(i, i + 2 * WINDOW));
  return out;
}

function jsonUnescape(text: string): string {
  return text.replace(
    /\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([^ux]))/g,
    (m, u: string | undefined, x: string | undefined, c: string | undefined) => {
      if (u) return String.fromCharCode(parseInt(u, 16));
      if (x) return String.fromCharCode(parseInt(x, 16));
      const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };
      return c === undefined ? m : (simple[c] ?? c);
    },
  );
}

function percentDecode(text: string): string {
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
    const utf8 = bytes.toString('utf8');
    return utf8.includes('\uFFFD') ? bytes.toString('latin1') : utf8;
  });
}

function htmlUnescape(text: string): string {
  const named: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", nbsp: '\u00a0', shy: '\u00ad' };
  return text.replace(
    /&(?:#[xX]([0-9a-fA-F]+)|#([0-9]+)|([a-zA-Z]+));/g,
    (m, hex: string | undefined, dec: string | undefined, name: string | undefined) => {
      const cp = hex ? parseInt(hex, 16) : dec ? parseInt(dec, 10) : undefined;
      if (cp !== undefined) return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
      return named[name!.toLowerCase()] ?? m;
    },
  );
}

/** `=XX` bytes (quoted-printable, RFC 2045), read as UTF-8 where they form it. */
function quotedPrintableDecode(text: string): string {
  return percentDecode(text.replace(/=([0-9a-fA-F]{2})/g, '%$1'));
}

/** CSS escapes (`\\6b `, `\\00006b`): a backslash, one to six hex digits and an optional white space. */
function cssUnescape(text: string): string {
  return text.replace(/\\([0-9a-fA-F]{1,6})[ \t\n]?/g, (m, h: string) =>
    parseInt(h, 16) <= 0x10ffff ? String.fromCodePoint(parseInt(h, 16)) : m,
  );
}

/** Layers of text encoding undone, one inside another, at most (`%2541`, a `\\u0041` inside a JSON string). */
const MAX_LAYERS = 3;
const TEXT_DECODERS: [string, (text: string) => string][] = [
  ['json', jsonUnescape],
  ['percent', percentDecode],
  ['html', htmlUnescape],
];
/** Decodings undone once, on each of the layers above (a whole run of them costs too much on a report of megabytes). */
const LAST_DECODERS: [string, (text: string) => string][] = [
  ['quoted-printable', (text) => (/(?:=[0-9a-fA-F]{2}){2}/.test(text) ? quotedPrintableDecode(text) : text)],
  ['css', (text) => (/(?:\\[0-9a-fA-F]{1,6}\s?){2}/.test(text) ? cssUnescape(text) : text)],
  // Full-width forms and mathematical letters (the compatibility characters of ASCII ones a reader folds by eye).
  ['nfkc', (text) => (/[\uff01-\uff5e]|\ud835/.test(text) ? text.normalize('NFKC') : text)],
];

/**
 * `text` decoded by up to {@link MAX_LAYERS} of JSON, percent and HTML
 * decodings, in any order, and each of those by one of {@link LAST_DECODERS};
 * each result once.
 */
function textLayers(text: string): { layers: [string, string][]; last: [string, string][] } {
  const layers: [string, string][] = [['plain', text]];
  const seen = new Set([text]);
  let frontier = layers;
  for (let depth = 0; depth < MAX_LAYERS && frontier.length > 0; depth++) {
    frontier = decodeEach(frontier, TEXT_DECODERS, seen);
    layers.push(...frontier);
  }
  return { layers, last: decodeEach(layers, LAST_DECODERS, seen) };
}

/** Each of `sources` decoded by each of `decoders`, named by how, every result not `seen` before (and now seen). */
function decodeEach(sources: [string, string][], decoders: [string, (text: string) => string][], seen: Set<string>): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, layer] of sources) {
    for (const [decoder, decode] of decoders) {
      const decoded = decode(layer);
      if (seen.has(decoded)) continue;
      seen.add(decoded);
      out.push([name === 'plain' ? decoder : `${decoder}(${name})`, decoded]);
    }
  }
  return out;
}

/**
 * Base64 and hex runs of `layer` decoded (at every offset, as UTF-8 and as
 * Latin-1); the base64 decodings searched for base64 runs once more, as base64
 * of a whole `Basic …` header holds the key only there.
 */
function* binaryDecodings(
  name: string,
  layer: string,
  seen: { base64: Set<string>; hex: Set<string> },
  nested: boolean,
): Generator<[string, string]> {
  // A run decodes the same wherever it is: each is decoded once (echoed keys repeat a form thousands of times).
  for (const run of layer.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
    if (seen.base64.has(run)) continue;
    seen.base64.add(run);
    for (let offset = 0; offset < 4; offset++) {
      const bytes = Buffer.from(run.slice(offset).replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      for (const [as, decoded] of [
        ['', bytes.toString('utf8')],
        [' as Latin-1', bytes.toString('latin1')],
      ] as const) {
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
      if (nested) yield* binaryDecodings(`hex(${name})`, bytes.toString('latin1'), seen, false);
    }
  }
  for (const run of layer.match(/[A-Za-z2-7]{16,}/g) ?? []) {
    if (seen.base64.has(`base32 ${run}`)) continue;
    seen.base64.add(`base32 ${run}`);
    for (let offset = 0; offset < 8; offset++) yield [`base32(${name})`, base32Decode(run.slice(offset)).toString('latin1')];
  }
  for (const run of layer.match(/[0-9]{20,}/g) ?? []) {
    const digits = BigInt(run).toString(16);
    yield [`number(${name})`, Buffer.from(digits.length % 2 ? `0${digits}` : digits, 'hex').toString('latin1')];
  }
}

/** RFC 4648 base32, either letter case, unpadded; trailing bits dropped. */
function base32Decode(text: string): Buffer {
  const bits = [...text.toUpperCase()].map((c) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(c).toString(2).padStart(5, '0')).join('');
  return Buffer.from((bits.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2)));
}

/** Decoded texts of `text`, each named by how it was decoded. */
function* decodings({ layers, last }: { layers: [string, string][]; last: [string, string][] }): Generator<[string, string]> {
  yield* layers;
  yield* last;
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

/** A piece of the key's base64 or hex, whatever the letter case ({@link encodedWindows}). */
function findEncoded(text: string, windows: Set<string>): { at: number; window: string } | undefined {
  const haystack = text.toLowerCase();
  for (const size of [WINDOW, 2 * WINDOW]) {
    for (let i = 0; i + size <= haystack.length; i++) {
      const piece = haystack.slice(i, i + size);
      if (windows.has(piece)) return { at: i, window: piece };
    }
  }
  return undefined;
}

/**
 * A window of the key's skeleton (or of its ROT13 or reversal) in `text`
 * spelt with separators between its characters as a secret is, not as words
 * and data are: cut by invisible characters or a line break alone, or at two
 * places at least with at most 4 characters between two cuts, 1 where a cut
 * holds a quote (`--secret-header` is
 * not `VerySecretHeader…` spelt out, nor `"doggie","category"` a key
 * `doggie-cat`; `p k _ l i v e`, `pk_l ive_ 9fQ2` and `["p","k"]` are).
 */
function findSpelt(text: string, windows: Set<string>): { window: string; context: string } | undefined {
  if (!find(skeleton(text), windows, true)) return undefined;
  const chars = [...text];
  const kept: number[] = [];
  const bare: string[] = [];
  chars.forEach((ch, i) => {
    if (skeleton(ch) === '') return;
    kept.push(i);
    bare.push(caseless(ch).length === 1 ? caseless(ch) : ch);
  });
  for (let at = 0; at + WINDOW <= bare.length; at++) {
    const window = bare.slice(at, at + WINDOW).join('');
    if (!windows.has(window)) continue;
    // Cut by invisible characters or a line break alone, or at two places at least with at most 4 characters between
    // two cuts (1 where a cut holds a quote: an array of characters, not JSON's structure).
    let cuts = 0;
    let group = 1;
    let widest = 0;
    let quoted = false;
    let spelling = false;
    for (let k = at + 1; k < at + WINDOW; k++) {
      const between = chars.slice(kept[k - 1]! + 1, kept[k]!).join('');
      if (between === '') {
        group++;
        continue;
      }
      if (/^(?:[\p{Cf}\p{M}\u115f\u1160\u180e\u2800\u3164\uffa0]+|[ \t]*\r?\n[ \t]*)$/u.test(between)) spelling = true;
      if (/["']/.test(between)) quoted = true;
      if (cuts > 0) widest = Math.max(widest, group);
      cuts++;
      group = 1;
    }
    const grouped = widest <= (quoted ? 1 : 4);
    if (spelling || (cuts >= 2 && grouped)) return { window, context: chars.slice(Math.max(0, kept[at]! - 40), kept[at]! + 60).join('') };
  }
  return undefined;
}

/** The first leak of `key` in `text`, or undefined. */
export function findLeak(text: string, key: string, windows = windowsOf(key)): Leak | undefined {
  const decoded = textLayers(text);
  const last = new Set(decoded.last.map(([, layer]) => layer));
  for (const [form, layer] of decodings(decoded)) {
    // A piece of the key's base64 or hex is not looked for once a last decoder took a layer (one more pass of each).
    const hit =
      find(layer, windows.exact, false) ??
      find(layer, windows.folded, true) ??
      (last.has(layer) ? undefined : findEncoded(layer, windows.encoded));
    if (hit) return { form, window: hit.window, context: layer.slice(Math.max(0, hit.at - 40), hit.at + 60) };
  }
  // What a reader undoes by hand, in the text layers: a letter cipher, a reversal, separators between the characters.
  for (const [form, layer] of decoded.layers) {
    const undone = find(layer, new Set(windows.undone.keys()), true);
    if (undone)
      return {
        form: `${windows.undone.get(undone.window)}(${form})`,
        window: undone.window,
        context: layer.slice(Math.max(0, undone.at - 40), undone.at + 60),
      };
    const spelt = findSpelt(layer, windows.skeletal);
    if (spelt) return { form: `skeleton(${form})`, ...spelt };
  }
  return undefined;
}

/** Fails with where and how, when any of `texts` leaks any of `keys`. */
export function expectNoLeak(texts: Record<string, string>, keys: readonly string[]): void {
  for (const key of keys) {
    const windows = windowsOf(key);
    for (const [name, text] of Object.entries(texts)) {
      const leak = findLeak(text, key, windows);
      if (leak)
        throw new Error(
          `${name} leaks the key (${key.length} characters) in ${leak.form} form: ${JSON.stringify(leak.window)} in …${JSON.stringify(leak.context)}…`,
        );
    }
  }
}
