/**
 * Encoded runs: base64 (and base64url) runs holding a secret's bytes at any
 * alignment, hex of its bytes in either case, and where a cut text's last
 * encoded run begins (a form cut in two cannot be recognised, so it is dropped).
 */
import { FRAGMENT } from './types.js';

/**
 * The base64 characters that only `bytes` determine, when they are encoded
 * after 0, 1 or 2 other bytes: whatever surrounds them, an encoding of a text
 * holding them holds one of these three.
 */
export function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let align = 0; align < 3; align++) {
    const padded = Buffer.concat([Buffer.alloc(align), bytes]);
    const encoded = padded.toString('base64').replace(/=+$/, '');
    const start = [0, 2, 3][align]!;
    const total = padded.length;
    const rest = total % 3;
    const end = 4 * Math.floor(total / 3) + (rest === 1 ? 1 : rest === 2 ? 2 : 0);
    if (end > start) cores.push(encoded.slice(start, end));
  }
  return cores;
}

/**
 * The base32 characters (RFC 4648, upper case, unpadded) that only `bytes`
 * determine, when they are encoded after 0 to 4 other bytes: a base32 text
 * holding them holds one of these five.
 */
export function base32Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let align = 0; align < 5; align++) {
    let bits = '';
    for (const b of Buffer.concat([Buffer.alloc(align), bytes])) bits += b.toString(2).padStart(8, '0');
    // Characters whose five bits lie wholly within the secret's bytes.
    const first = Math.ceil((8 * align) / 5);
    const last = Math.floor(bits.length / 5);
    let core = '';
    for (let c = first; c < last; c++) core += BASE32[parseInt(bits.slice(5 * c, 5 * c + 5), 2)];
    if (core.length > 0) cores.push(core);
  }
  return cores;
}
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** A base64 or base64url character. */
export function isBase64Char(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f || c === 0x2d || c === 0x5f
  );
}

/** A hex digit, either case. */
export function isHexChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Hex of a secret's bytes, in either case, inside runs of hex digits. */
export function hexRuns(
  v: string,
  minHex: number,
  needles: readonly { text: string; label: string }[],
  hit: (start: number, end: number, label: string) => void,
): void {
  forEachRun(v, isHexChar, minHex, (i, j) => {
    const run = v.slice(i, j).toLowerCase();
    for (const needle of needles) {
      for (let k = run.indexOf(needle.text); k >= 0; k = run.indexOf(needle.text, k + 1))
        hit(i + k, i + k + needle.text.length, needle.label);
    }
  });
}

/** Calls `each` with the start and end of every maximal run of characters `inRun` accepts that is at least `min` long. */
export function forEachRun(v: string, inRun: (c: number) => boolean, min: number, each: (start: number, end: number) => void): void {
  const n = v.length;
  for (let i = 0; i < n;) {
    if (!inRun(v.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i;
    while (j < n && inRun(v.charCodeAt(j))) j++;
    if (j - i >= min) each(i, j);
    i = j;
  }
}

/**
 * Where the encoded run a cut text ends with begins (base64, hex, percent or
 * escaped characters, {@link FRAGMENT} or more): a form of a key cut in two
 * cannot be recognised, so that run is dropped. The text's length when there is none.
 */
export function cutFormStart(text: string): number {
  let i = text.length;
  while (i > 0 && /[A-Za-z0-9+/=_\-%\\]/.test(text[i - 1]!)) i--;
  return text.length - i >= FRAGMENT ? i : text.length;
}
