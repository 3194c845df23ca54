/**
 * A certification bundle on disk: a gzip-compressed tar of a few flat files,
 * written and read with the `tar` package. Reading is bounded (file size,
 * uncompressed size, each entry's size before it is decompressed, entry
 * count) and never writes anything: entries are read into memory, so a
 * hostile archive cannot place files anywhere.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createGunzip } from 'node:zlib';
import * as tar from 'tar';
import { UsageError } from '../core/errors.js';
import { MAX_PRODUCT_BYTES } from '../spec/product-schema.js';
import { BUNDLE } from './certification.js';
import { readBoundedFile } from './files.js';
import { MAX_REPORT_BYTES } from './report-file.js';

/** A bundle larger than this is refused unread. */
export const MAX_BUNDLE_BYTES = 256 * 1024 * 1024;
/** Decompressed, at most, over all entries (what is kept is bounded per entry, far lower: {@link ENTRY_LIMITS}). */
export const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;
/** Entries read, at most. */
export const MAX_ENTRIES = 64;

/**
 * Writes `files` (flat names) as a .tar.gz at `out`, atomically: to a
 * temporary name beside it, then renamed. Entries carry `mtime` and no owner
 * (portable), so the archive says nothing about the machine beyond the files.
 */
export async function writeBundle(out: string, files: ReadonlyMap<string, string | Uint8Array>, mtime: Date): Promise<void> {
  const staging = await mkdtemp(join(tmpdir(), 'pc-bundle-'));
  const partial = join(dirname(out), `.${randomBytes(6).toString('hex')}.partial.tar.gz`);
  try {
    for (const [name, content] of files) await writeFile(join(staging, name), content);
    await tar.c({ gzip: true, file: partial, cwd: staging, portable: true, mtime }, [...files.keys()]);
    await rename(partial, out);
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(partial, { force: true });
  }
}

/** What a bundle holds: its regular files by name, and whatever else was in the archive, in words. */
export interface BundleContents {
  /** Flat regular files within their bound, by name. */
  files: Map<string, Buffer>;
  /** The sha256 (hex) of every flat regular file, those too large to keep included (hashed as they stream past). */
  hashes: Map<string, string>;
  /** Entries that are not flat regular files, repeated names, files over their bound: each a problem. */
  oddities: string[];
}

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
 * Reads a .tar.gz: the file itself bounded (a regular file of at most
 * {@link MAX_BUNDLE_BYTES}), decompressed as a stream into the tar parser,
 * at most {@link MAX_UNPACKED_BYTES} in all, each entry kept only when its
 * header's size is within its bound ({@link ENTRY_LIMITS}); a larger one is
 * hashed as it streams past and said to be too large. Throws `UsageError`
 * when the file cannot be read, or is not a gzip-compressed tar archive;
 * everything else is an oddity (a problem `verify` reports as such).
 */
export async function readBundle(path: string, shown: string): Promise<BundleContents> {
  const refuse = (why: string): never => {
    throw new UsageError(`${shown}: ${why}`);
  };
  const packed = await readBoundedFile(path, MAX_BUNDLE_BYTES, shown);
  if (packed.length < 2 || packed[0] !== 0x1f || packed[1] !== 0x8b) refuse('not a .tar.gz (it is not gzip-compressed)');
  const contents: BundleContents = { files: new Map(), hashes: new Map(), oddities: [] };
  let entries = 0;
  let unpacked = 0;
  let stopped: string | undefined;
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
      const limit = Object.hasOwn(ENTRY_LIMITS, name) ? ENTRY_LIMITS[name]! : OTHER_ENTRY_LIMIT;
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
        if (!isFile) contents.oddities.push(`${JSON.stringify(name)}: a ${entry.type} entry, not a file (a bundle holds only files)`);
        else if (!flat) contents.oddities.push(`${JSON.stringify(name)}: a path, not a file name (a bundle holds flat files only)`);
        else if (contents.hashes.has(name)) contents.oddities.push(`${name}: appears twice in the archive`);
        else {
          contents.hashes.set(name, hash.digest('hex'));
          if (keep) contents.files.set(name, Buffer.concat(chunks, size));
          else contents.oddities.push(`${name}: ${Math.max(size, entry.size ?? 0)} bytes, more than a bundle's ${Object.hasOwn(ENTRY_LIMITS, name) ? name : 'file'} may hold (${limit}); not read`);
        }
      });
    });
    parser.on('error', (error: Error) => settle(error));
    parser.on('end', () => settle());
    gunzip.on('data', (chunk: Buffer) => {
      if (settled) return;
      unpacked += chunk.length;
      if (unpacked > MAX_UNPACKED_BYTES) {
        stopped = `more than ${MAX_UNPACKED_BYTES} bytes uncompressed; the rest of the archive was not read`;
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
  if (failure && entries === 0) refuse(failure.message.startsWith('the gzip') ? `not a .tar.gz (${failure.message})` : `not a tar archive inside the gzip (${failure.message.split('\n')[0]})`);
  if (failure) contents.oddities.push(`the archive is damaged after its first ${entries} entries (${failure.message.split('\n')[0]}); the rest was not read`);
  if (stopped) contents.oddities.push(`the archive holds ${stopped}`);
  if (entries === 0) refuse('not a tar archive inside the gzip (no entries)');
  if (entries > MAX_ENTRIES) contents.oddities.push(`${entries} entries in the archive, more than a bundle holds (${MAX_ENTRIES}); the first ${MAX_ENTRIES} were read`);
  return contents;
}
