/**
 * A certification bundle on disk: a gzip-compressed tar of a few flat files,
 * written and read with the `tar` package. Reading is bounded (file size,
 * uncompressed size, entry count) and never writes anything: entries are read
 * into memory, so a hostile archive cannot place files anywhere.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as tar from 'tar';
import { UsageError } from '../core/errors.js';

/** A bundle larger than this is refused unread. */
export const MAX_BUNDLE_BYTES = 256 * 1024 * 1024;
/** Uncompressed, at most. */
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
  files: Map<string, Buffer>;
  /** Entries that are not flat regular files, or repeated names: each a problem. */
  oddities: string[];
}

/**
 * Reads a .tar.gz into memory. Throws `UsageError` when the file cannot be
 * read, or is not a gzip-compressed tar archive.
 */
export async function readBundle(path: string, shown: string): Promise<BundleContents> {
  const refuse = (why: string): never => {
    throw new UsageError(`${shown}: ${why}`);
  };
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => refuse(error.code === 'ENOENT' ? 'no such file' : `cannot read it (${error.code ?? error.message})`));
  if (!info.isFile()) refuse('not a file');
  if (info.size > MAX_BUNDLE_BYTES) refuse(`${info.size} bytes, more than a bundle holds (${MAX_BUNDLE_BYTES}); not read`);
  const packed = await readFile(path).catch((error: NodeJS.ErrnoException) => refuse(`cannot read it (${error.code ?? error.message})`));
  if (packed.length < 2 || packed[0] !== 0x1f || packed[1] !== 0x8b) refuse('not a .tar.gz (it is not gzip-compressed)');
  let unpacked: Buffer;
  try {
    unpacked = gunzipSync(packed, { maxOutputLength: MAX_UNPACKED_BYTES });
  } catch (error) {
    return refuse(`not a .tar.gz (${(error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? `more than ${MAX_UNPACKED_BYTES} bytes uncompressed` : `the gzip data is damaged: ${(error as Error).message}`})`);
  }
  const contents: BundleContents = { files: new Map(), oddities: [] };
  let entries = 0;
  await new Promise<void>((resolve, reject) => {
    const parser = new tar.Parser({ strict: true });
    parser.on('entry', (entry: tar.ReadEntry) => {
      // `tar -C dir .` writes ./name entries and a ./ directory: the same flat bundle.
      const name = entry.path.replace(/^\.\//, '');
      if (name === '' && entry.type === 'Directory') return entry.resume();
      entries++;
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => {
        if (entries > MAX_ENTRIES) return;
        if (entry.type !== 'File' && entry.type !== 'OldFile') contents.oddities.push(`${JSON.stringify(name)}: a ${entry.type} entry, not a file (a bundle holds only files)`);
        else if (name.includes('/') || name.includes('\\') || name === '..' || name === '.') contents.oddities.push(`${JSON.stringify(name)}: a path, not a file name (a bundle holds flat files only)`);
        else if (contents.files.has(name)) contents.oddities.push(`${name}: appears twice in the archive`);
        else contents.files.set(name, Buffer.concat(chunks));
      });
    });
    parser.on('error', (error: Error) => reject(error));
    parser.on('end', () => resolve());
    parser.end(unpacked);
  }).catch((error: Error) => refuse(`not a tar archive inside the gzip (${error.message.split('\n')[0]})`));
  if (entries === 0) refuse('not a tar archive inside the gzip (no entries)');
  if (entries > MAX_ENTRIES) contents.oddities.push(`${entries} entries in the archive, more than a bundle holds (${MAX_ENTRIES}); the first ${MAX_ENTRIES} were read`);
  return contents;
}
