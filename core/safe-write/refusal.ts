/**
 * What may be replaced at a name (core/safe-write.ts's checks): a file's
 * {@link Marker} (its first bytes say the suite wrote it), the look at what is
 * at a name without following a link or blocking on a FIFO ({@link peek}),
 * and the {@link WriteError} of a refusal or a failed write, in words.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { PcError } from '../errors.js';

/** `O_NOFOLLOW` where the platform has it: opening a symbolic link fails (ELOOP) instead of opening what it names. */
export const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
/** How a file is opened to read its beginning: never through a link, never waiting on a FIFO, never as a controlling terminal. */
const READ_HEAD = constants.O_RDONLY | NO_FOLLOW | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Said once after the refusals of a path: why a link or another non-regular file is left alone. */
export const REFUSAL_NOTE = 'the suite writes only regular files, never through a link';
/** Said once after the refusals of a file the suite did not write. */
export const FOREIGN_NOTE = 'the suite replaces or removes only files it wrote';

/**
 * How the suite tells a file it wrote from another of the same name: by its
 * first bytes, where each format says who made it (report.json's `tool`,
 * junit.xml's root `testsuites name="petstore-conformance"`, a page's
 * generator meta, a script's first comment, a bundle's manifest). A file is
 * replaced or removed only when its marker says it is the suite's.
 */
export interface Marker {
  /** How many bytes of the file's beginning {@link Marker.test} is given, at most. */
  readonly bytes: number;
  /** Whether a file beginning with `head` (all of it when the file is shorter) is one the suite wrote. */
  test(head: Buffer): boolean;
}

/** A {@link Marker} that matches the first `bytes` bytes, read as UTF-8, against `pattern` (anchor it with `^`). */
export function textMarker(bytes: number, pattern: RegExp): Marker {
  return { bytes, test: (head) => pattern.test(head.toString('utf8')) };
}

/** Why a path was not written: writing failed, or what is there is not a regular file, or is a file the suite did not write. */
export type WriteFailure = 'failed' | 'not-regular' | 'not-ours';

/**
 * A file the suite would not or could not write. `why` is one short phrase
 * (`a symbolic link, left as it is`, `ENOSPC: no space left on device`), for
 * a line that lists several; `message` is `<label>: <why>`, with
 * {@link REFUSAL_NOTE} or {@link FOREIGN_NOTE} after a refusal.
 */
export class WriteError extends PcError {
  constructor(
    /** The path written to. */
    readonly path: string,
    readonly why: string,
    readonly failure: WriteFailure,
    /** The name the caller gives the file in messages (`report.json`, `--out x.tar.gz`). Default: `path`. */
    readonly label: string = path,
    cause?: unknown,
  ) {
    super('PC_ERR_WRITE', `${label}: ${why}${noteOf(failure) ? `; ${noteOf(failure)}` : ''}`, { cause });
    this.name = 'WriteError';
  }

  /** True when the path was refused (not a regular file, or not the suite's); false when writing it failed. */
  get refused(): boolean {
    return this.failure !== 'failed';
  }
}

/** The note said after a refusal of this kind, if any. */
export function noteOf(failure: WriteFailure): string | undefined {
  return failure === 'not-regular' ? REFUSAL_NOTE : failure === 'not-ours' ? FOREIGN_NOTE : undefined;
}

/** What kind of file `stats` describes, in words. */
export function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symbolic link';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The errors a write meets in practice, in words after their code. */
const ERRNO_WORDS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EIO: 'input/output error',
  ENOENT: 'the folder is gone',
  ENOTDIR: 'a part of the path is not a folder',
};

/** The {@link WriteError} of a write to `path` that failed with `error` (its code in words), or `error` itself when it is one. */
export function failed(path: string, error: unknown, label: string | undefined): WriteError {
  if (error instanceof WriteError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const why = code ? `${code}${ERRNO_WORDS[code] ? `: ${ERRNO_WORDS[code]}` : ''}` : (error as Error).message.split('\n')[0]!;
  return new WriteError(path, why, 'failed', label, error);
}

/** The refusal of `path` because what is there (`stats`) is not a regular file. */
export function refusedAt(path: string, stats: Stats, label: string | undefined): WriteError {
  return new WriteError(path, `${kindOf(stats)}, left as it is`, 'not-regular', label);
}

/** The refusal of `path` because it is a file the suite did not write. */
export function notOursAt(path: string, label: string | undefined): WriteError {
  return new WriteError(path, 'not written by petstore-conformance, left as it is', 'not-ours', label);
}

/** The entry at `path` (not followed), or undefined when there is none. */
export async function entryAt(path: string): Promise<Stats | undefined> {
  return lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
}

/**
 * The entry at `path`, not followed, and when it is a regular file its first
 * `bytes` bytes (`head`); undefined when there is none. Nothing but a regular
 * file is opened (a device may act on an open); that one is opened without
 * following a link and without blocking, and checked again on the open file.
 */
export async function peek(path: string, bytes: number): Promise<{ stats: Stats; head?: Buffer } | undefined> {
  const stats = await entryAt(path);
  if (!stats?.isFile()) return stats && { stats };
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, READ_HEAD);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // Replaced by a link (O_NOFOLLOW) since it was looked at.
    if (code === 'ELOOP') return { stats: (await entryAt(path)) ?? stats };
    throw error;
  }
  try {
    const now = await handle.stat();
    if (!now.isFile()) return { stats: now };
    const head = Buffer.alloc(bytes);
    let filled = 0;
    while (filled < bytes) {
      const { bytesRead } = await handle.read(head, filled, bytes - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { stats: now, head: head.subarray(0, filled) };
  } finally {
    await handle.close().catch(() => {});
  }
}

/** What is at `path`: nothing, a file the suite wrote (by `marker`), or a refusal (a link, a folder…, a file of someone else's). */
export async function replaceable(path: string, marker: Marker, label: string | undefined): Promise<'none' | 'ours' | WriteError> {
  const found = await peek(path, marker.bytes);
  if (!found) return 'none';
  if (!found.head) return refusedAt(path, found.stats, label);
  return marker.test(found.head) ? 'ours' : notOursAt(path, label);
}

/**
 * Throws the {@link WriteError} that a write of `marker`'s kind of file to
 * `path` would meet now: something there that is not a regular file, or a
 * file the suite did not write. For a caller that refuses before its work
 * (a run before its first request) rather than after it; the write checks
 * again. Returns whether a file of the suite's is there.
 */
export async function checkReplaceable(path: string, marker: Marker, { label }: { label?: string } = {}): Promise<boolean> {
  const found = await replaceable(path, marker, label).catch((error: unknown) => failed(path, error, label));
  if (found instanceof WriteError) throw found;
  return found === 'ours';
}

/**
 * What {@link checkReplaceable} finds in the way of writing each of `files`,
 * in one phrase for a one-line refusal before any work: each label with why
 * (`junit.xml (not written by petstore-conformance, left as it is)`), the
 * notes of those refusals, then `move it or <instead>`. Undefined when every
 * file can be written.
 */
export async function refusalOf(
  files: readonly { path: string; ours: Marker; label: string }[],
  instead: string,
): Promise<string | undefined> {
  const refused: WriteError[] = [];
  for (const { path, ours, label } of files) {
    await checkReplaceable(path, ours, { label }).catch((error: unknown) => {
      if (!(error instanceof WriteError)) throw error;
      refused.push(error);
    });
  }
  if (refused.length === 0) return undefined;
  const notes = [...new Set(refused.map((error) => noteOf(error.failure)).filter((note) => note !== undefined))];
  return `${refused.map((error) => `${error.label} (${error.why})`).join(', ')}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}: move ${refused.length === 1 ? 'it' : 'them'} or ${instead}`;
}
