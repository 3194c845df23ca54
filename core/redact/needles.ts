/**
 * What the scanner (core/redact/redactor.ts) looks for, compiled once per set
 * of secrets: each form as a needle (and its UTF-8 bytes read as Latin-1), its
 * base64 cores and hex, its pieces and encoded pieces, and the grams that rule
 * out, cheaply, a text holding none of them.
 */
import { SampledGrams, type WindowSet } from '../grams.js';
import { base32Cores, base64Cores } from './encoded.js';
import { Pieces } from './pieces.js';
import { FRAGMENT, hexLabel, numberLabel } from './types.js';
import { skeleton } from './gaps.js';

/** A value the scanner looks for, with its label and the placeholder of the secret it is a form of. */
export interface Needle {
  text: string;
  label: string;
  owner: string;
  /** Pieces of it count too ({@link FRAGMENT}). */
  fragments: boolean;
}

/** What the scanner looks for, compiled once per set of secrets. */
export interface Compiled {
  plain: Needle[];
  /** Base64 cores (characters only a form's bytes determine), each with its secret's placeholder. */
  cores: Map<string, string>;
  hex: { text: string; label: string }[];
  minCore: number;
  minHex: number;
  pieces: Pieces;
  /**
   * Windows of the base64 cores (every alignment, both alphabets, each letter
   * case: a header name folds it) and of the hex of each form that counts in
   * pieces: a piece of a secret encoded, or an encoding cut short (the Basic
   * credentials are `conformance:` and the key's own aligned base64), still
   * shows no part of it.
   */
  base64Pieces: Pieces;
  hexPieces: Pieces;
  /** Rules out, cheaply, a view holding none of the above (most do). */
  grams: SampledGrams;
  /**
   * The same for a view without separators, where only whole forms and pieces without separators can be (gaps.ts):
   * made at the first ask.
   */
  joinedGrams: () => SampledGrams;
}

/** What the scanner looks for in `entries` (registered forms, longest first), a piece in `publicPieces` excepted. */
export function compileNeedles(entries: readonly (Needle & { value: string })[], publicPieces: ReadonlySet<string>): Compiled {
  const plain: Needle[] = [];
  const cores = new Map<string, string>();
  const hex: { text: string; label: string }[] = [];
  const decimal: Needle[] = [];
  for (const { value, label, owner, fragments } of entries) {
    plain.push({ text: value, label, owner, fragments });
    const encodings = [Buffer.from(value, 'utf8')];
    if (/[^\u0000-\u007f]/.test(value)) {
      // The UTF-8 bytes read as Latin-1, and the Latin-1 bytes themselves (a server that keeps the header's bytes).
      plain.push({ text: encodings[0]!.toString('latin1'), label, owner, fragments });
      if (!/[^\u0000-\u00ff]/.test(value)) encodings.push(Buffer.from(value, 'latin1'));
    }
    // Its UTF-16 bytes too, in base64 only: UTF-16 in hex is read by a decoding view (core/redact/views.ts), as its
    // digits and zeros would match every id.
    for (const bytes of [...encodings, ...utf16(value)]) {
      for (const core of base64Cores(bytes)) {
        if (core.length < 4) continue;
        if (!cores.has(core)) cores.set(core, owner);
        const url = core.replace(/\+/g, '-').replace(/\//g, '_');
        if (!cores.has(url)) cores.set(url, owner);
      }
    }
    for (const bytes of encodings) hex.push({ text: bytes.toString('hex'), label: hexLabel(label) });
    // Its bytes as one big-endian number in decimal, whole (a piece of the digits tells nothing by itself).
    if (fragments && encodings[0]!.length >= FRAGMENT)
      decimal.push({ text: BigInt(`0x${encodings[0]!.toString('hex')}`).toString(), label: numberLabel(owner), owner, fragments: false });
  }
  plain.push(...decimal);
  // Whatever the letter case of their ASCII letters: a server that echoes a secret in a case of its own (every other
  // letter, title case) shows its pieces, each in some case, and no piece may show.
  const pieces = new Pieces({ publicPieces, foldAscii: true });
  // A piece of FRAGMENT (8) characters of a secret, encoded, fully decides 10 base64 characters (whatever the bytes
  // around it) and 16 hex ones: windows of 8 looked at every 3 characters, and of 12 every 4, still find every one.
  const base64Pieces = new Pieces({ size: FRAGMENT, foldAscii: true, stride: 3 });
  const hexPieces = new Pieces({ size: 12, foldAscii: true, stride: 4 });
  for (const { text, label, owner, fragments } of plain) {
    if (!fragments) continue;
    // As written, and as a reader undoes by hand: a letter cipher (ROT13), a reversal, and the characters alone
    // without the separators the gap views (gaps.ts) leave out (so a key written with spaces or dashes between its
    // characters is found there even where its own separators cut it into short runs), ciphered and reversed too.
    const bare = skeleton(text);
    for (const undone of new Set([text, rot13(text), [...text].reverse().join(''), bare, rot13(bare), [...bare].reverse().join('')]))
      pieces.add(undone, owner);
    const bytes = Buffer.from(text, 'utf8');
    for (const encoded of [bytes, ...utf16(text)]) {
      for (const core of base64Cores(encoded)) {
        for (const alphabet of [core, core.replace(/\+/g, '-').replace(/\//g, '_')]) {
          base64Pieces.add(alphabet, owner);
        }
      }
    }
    hexPieces.add(bytes.toString('hex'), owner);
    // Encoded twice (base64 or hex of the base64, base64 of the hex, as a server encodes a header it already holds
    // encoded), and in base32 (RFC 4648: base64's alphabet, taken whatever the case), each at every alignment: of the
    // secret as registered only (a case fold of it encoded twice is a cipher of its own).
    if (label !== owner) continue;
    for (const inner of [...base64Cores(bytes), bytes.toString('hex')]) {
      const innerBytes = Buffer.from(inner, 'latin1');
      for (const core of base64Cores(innerBytes)) base64Pieces.add(core, owner);
      if (!/^[0-9a-f]*$/.test(inner)) hexPieces.add(innerBytes.toString('hex'), owner);
    }
    for (const core of base32Cores(bytes)) base64Pieces.add(core, owner);
  }
  return {
    plain: plain.sort((a, b) => b.text.length - a.text.length),
    cores,
    hex,
    minCore: Math.min(...[...cores.keys()].map((c) => c.length), Number.MAX_SAFE_INTEGER),
    minHex: Math.min(...hex.map((h) => h.text.length)),
    pieces,
    base64Pieces,
    hexPieces,
    // Every match is one of these, whole: a needle, a core, a hex needle (in either case, which the grams allow), a piece
    // or an encoded piece (each set as it takes case).
    grams: new SampledGrams([...plain.map((n) => n.text), ...cores.keys(), ...hex.map((h) => h.text)], [pieces, base64Pieces, hexPieces]),
    joinedGrams: once(() => {
      // Not the secrets' numbers (a page of ids without its separators is one long run of digits), nor a window
      // holding a separator (none is left in such a view).
      const bare: WindowSet = {
        size: pieces.size,
        windows: () => [...pieces.windows()].filter((w) => skeleton(w) === w),
        holdsAt: (text, start) => pieces.holdsAt(text, start),
      };
      return new SampledGrams(
        plain.filter((n) => !decimal.includes(n)).map((n) => n.text),
        [bare],
      );
    }),
  };
}

/** `make`'s value, made at the first call. */
function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** Each ASCII letter 13 places on (ROT13). */
function rot13(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 0x41 : 0x61;
    return String.fromCharCode(base + ((c.charCodeAt(0) - base + 13) % 26));
  });
}

/** `text` in UTF-16, little- and big-endian (.NET's Encoding.Unicode, PowerShell, Java's UTF-16). */
function utf16(text: string): Buffer[] {
  const little = Buffer.from(text, 'utf16le');
  return [little, Buffer.from(little).swap16()];
}
