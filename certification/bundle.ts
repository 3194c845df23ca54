/**
 * A certification bundle as bytes: a gzip-compressed tar of a few flat files,
 * packed and unpacked with the `tar` package. Unpacking is bounded
 * (uncompressed size, each entry's size before it is decompressed, entry
 * count) and never writes anything: entries are read into memory, so a
 * hostile archive cannot place files anywhere.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as zlib, createGunzip, gunzipSync } from 'node:zlib';
import * as tar from 'tar';
import type { Marker } from '../core/safe-write.js';
import { MAX_PRODUCT_BYTES } from '../spec/product-schema.js';
import { MANIFEST_FORMAT } from '../spec/manifest-schema.js';
import { MAX_REPORT_BYTES } from '../spec/report-schema.js';
import { BUNDLE } from './manifest.js';
import type { VerifyProblem } from './problems.js';

/** A bundle larger than this is not read (a reader of files should refuse it unread). */
export const MAX_BUNDLE_BYTES = 256 * 1024 * 1024;
/** Decompressed, at most, over all entries (what is kept is bounded per entry, far lower: {@link ENTRY_LIMITS}). */
export const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;
/** Entries read, at most. */
export const MAX_ENTRIES = 64;

/** The bound of each file of a bundle, before it is decompressed (the tar header's size) and while it is. */
export const ENTRY_LIMITS: Readonly<Record<string, number>> = {
  [BUNDLE.manifest]: 1024 * 1024,
  [BUNDLE.signature]: 4 * 1024,
  [BUNDLE.product]: MAX_PRODUCT_BYTES,
  [BUNDLE.report]: MAX_REPORT_BYTES,
  [BUNDLE.junit]: 64 * 1024 * 1024,
  [BUNDLE.html]: 64 * 1024 * 1024,
  [BUNDLE.transcript]: 256 * 1024 * 1024,
};
/** Any other file (an extra one is a problem anyway: only its name and hash matter). */
const OTHER_ENTRY_LIMIT = 1024 * 1024;

/**
 * `files` (flat names) as the bytes of a .tar.gz. Entries carry `mtime` and
 * no owner (portable), so the archive says nothing about the machine beyond
 * the files.
 */
export async function packBundle(files: ReadonlyMap<string, string | Uint8Array>, mtime: Date): Promise<Buffer> {
  const staging = await mkdtemp(join(tmpdir(), 'pc-bundle-'));
  try {
    for (const [name, content] of files) await writeFile(join(staging, name), content);
    return await tar.c({ gzip: true, cwd: staging, portable: true, mtime }, [...files.keys()]).concat();
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** A manifest's opening, `format` of any version (`petstore-conformance-certification/<n>`), within the first entries of the decompressed archive (a tar header is 512 bytes). */
const MANIFEST_OPENING = new RegExp(`^[\\s\\S]{0,2048}?\\{\\s*"format"\\s*:\\s*"${MANIFEST_FORMAT.split('/')[0]!}/\\d+"`);

/**
 * A bundle `certify` wrote, known by its first KiB (core/safe-write.ts
 * replaces a file at `--out` only when it is one): gzip, and decompressed
 * (what a KiB inflates to, bounded) a tar whose first file, manifest.json,
 * opens with the manifest's `format`.
 */
export const BUNDLE_MARKER: Marker = {
  bytes: 1024,
  test: (head) => {
    if (head.length < 2 || head[0] !== 0x1f || head[1] !== 0x8b) return false;
    try {
      // A cut stream decompresses as far as it goes (Z_SYNC_FLUSH); a hostile one stops at the bound.
      const unpacked = gunzipSync(head, { finishFlush: zlib.Z_SYNC_FLUSH, maxOutputLength: 1024 * 1024 });
      return (
        unpacked.subarray(257, 262).toString('latin1') === 'ustar' && MANIFEST_OPENING.test(unpacked.subarray(0, 4096).toString('latin1'))
      );
    } catch {
      // Not gzip after all, or more than the bound: not a bundle of ours.
      return false;
    }
  },
};

/** What a bundle holds: its regular files by name, and whatever else was in the archive, as problems. */
export interface BundleContents {
  /** Flat regular files within their bound, by name. */
  files: Map<string, Buffer>;
  /** The sha256 (hex) of every flat regular file, those too large to keep included (hashed as they stream past). */
  hashes: Map<string, string>;
  /** Entries that are not flat regular files, repeated names, files over their bound, a damaged or oversized archive. */
  problems: VerifyProblem[];
}

/**
 * Reads a .tar.gz from memory: decompressed as a stream into the tar parser,
 * at most {@link MAX_UNPACKED_BYTES} in all, each entry kept only when its
 * header's size is within its bound ({@link ENTRY_LIMITS}); a larger one is
 * hashed as it streams past and said to be too large. Bytes that are not a
 * gzip-compressed tar archive at all give one `NOT_A_BUNDLE` problem and no file.
 */
export async function unpackBundle(packed: Uint8Array): Promise<BundleContents> {
  const contents: BundleContents = { files: new Map(), hashes: new Map(), problems: [] };
  const notABundle = (layer: 'gzip' | 'tar', detail: string): BundleContents => ({
    files: new Map(),
    hashes: new Map(),
    problems: [{ code: 'NOT_A_BUNDLE', layer, detail }],
  });
  if (packed.length < 2 || packed[0] !== 0x1f || packed[1] !== 0x8b) return notABundle('gzip', 'it is not gzip-compressed');
  let entries = 0;
  let unpacked = 0;
  let stopped = false;
  const failure = await new Promise<Error | undefined>((resolve) => {
    const gunzip = createGunzip();
    const parser = new tar.Parser({ strict: true });
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      resolve(error);
    };
    parser.on('entry', (entry: tar.ReadEntry) => {
      // `tar -C dir .` writes ./name entries and a ./ directory: the same flat bundle.
      const name = entry.path.replace(/^\.\//, '');
      if (name === '' && entry.type === 'Directory') return entry.resume();
      entries++;
      if (entries > MAX_ENTRIES) return entry.resume();
      const isFile = entry.type === 'File' || entry.type === 'OldFile';
      const flat = !(name.includes('/') || name.includes('\\') || name === '..' || name === '.');
      const known = Object.hasOwn(ENTRY_LIMITS, name);
      const limit = known ? ENTRY_LIMITS[name]! : OTHER_ENTRY_LIMIT;
      // The header's size is known before a byte of the entry is decompressed.
      let keep = isFile && flat && entry.size <= limit;
      const hash = createHash('sha256');
      const chunks: Buffer[] = [];
      let size = 0;
      entry.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        size += chunk.length;
        if (!keep) return;
        if (size > limit) {
          keep = false;
          chunks.length = 0;
        } else chunks.push(chunk);
      });
      entry.on('end', () => {
        if (!isFile) contents.problems.push({ code: 'ENTRY_NOT_A_FILE', name, type: entry.type });
        else if (!flat) contents.problems.push({ code: 'ENTRY_NOT_FLAT', name });
        else if (contents.hashes.has(name)) contents.problems.push({ code: 'ENTRY_REPEATED', name });
        else {
          contents.hashes.set(name, hash.digest('hex'));
          if (keep) contents.files.set(name, Buffer.concat(chunks, size));
          else contents.problems.push({ code: 'ENTRY_TOO_LARGE', name, size: Math.max(size, entry.size ?? 0), limit, known });
        }
      });
    });
    parser.on('error', (error: Error) => settle(error));
    parser.on('end', () => settle());
    // Past the archive's end (two zero blocks) node-tar keeps what it is given in one buffer, joined again at each
    // write: megabytes of zeros after it cost minutes. Nothing there is read: the rest is not decompressed.
    let archiveEnded = false;
    parser.on('eof', () => (archiveEnded = true));
    gunzip.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (archiveEnded) {
        gunzip.destroy();
        parser.end();
        return;
      }
      unpacked += chunk.length;
      if (unpacked > MAX_UNPACKED_BYTES) {
        stopped = true;
        gunzip.destroy();
        settle();
        return;
      }
      parser.write(chunk);
    });
    gunzip.on('end', () => parser.end());
    gunzip.on('error', (error: Error) => settle(new Error(`the gzip data is damaged: ${error.message}`)));
    gunzip.end(packed);
  });
  const firstLine = (error: Error) => error.message.split('\n')[0]!;
  if (failure && entries === 0)
    return failure.message.startsWith('the gzip') ? notABundle('gzip', failure.message) : notABundle('tar', firstLine(failure));
  if (failure) contents.problems.push({ code: 'ARCHIVE_DAMAGED', entries, detail: firstLine(failure) });
  if (stopped) contents.problems.push({ code: 'ARCHIVE_TOO_LARGE', limit: MAX_UNPACKED_BYTES });
  if (entries === 0) return notABundle('tar', 'no entries');
  if (entries > MAX_ENTRIES) contents.problems.push({ code: 'TOO_MANY_ENTRIES', entries, limit: MAX_ENTRIES });
  return contents;
}
