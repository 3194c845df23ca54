/**
 * The one way the suite writes a file a person will read (reports, the
 * certification bundle, the matrix, exported scripts, the GitHub step
 * summary), and the lock a run holds on the folder it writes into.
 *
 * - A file is written whole under a temporary name in its own folder
 *   (`.<name>.<random>.partial`, created exclusively, never through a link),
 *   flushed to disk, then renamed over the name: a reader sees the earlier
 *   complete file or the new complete one, never half of one. A write that
 *   fails (a full disk, a quota) removes its temporary file and leaves the
 *   earlier file as it was.
 * - What is already at the name must be a regular file: a symbolic link (one
 *   planted in a cloned repository, `report.json -> ../../precious.txt`), a
 *   directory, a FIFO or a device is refused and left as it is. The rename
 *   replaces a name and never follows one, so even a link planted after the
 *   check is replaced, not written through.
 * - A run locks its folder with {@link LOCK_FILE}, created exclusively,
 *   holding its pid, host and start; the holder refreshes its time while it
 *   runs. A lock of this host whose process is gone, or one of another host
 *   that nobody refreshed for {@link STALE_LOCK_MS}, is taken over; any other
 *   is refused.
 * - {@link removeStale} removes the files of the tool's own names a run did
 *   not write, so that a folder describes one run.
 *
 * The folder itself is the caller's concern (cli/files.ts refuses a report
 * folder that is itself a symbolic link); links among its parents are
 * followed as usual. Paths are used as names throughout: someone who can
 * change the folder while a run writes into it is not guarded against.
 */
import { randomBytes } from 'node:crypto';
import { constants, readFileSync, type Stats, unlinkSync } from 'node:fs';
import { lstat, open, readdir, readFile, rename, unlink, utimes, link } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { PcError } from './errors.js';

/** `O_NOFOLLOW` where the platform has it: opening a symbolic link fails (ELOOP) instead of opening what it names. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** Said once after the refusals of a path: why a link or another non-regular file is left alone. */
export const REFUSAL_NOTE = 'the suite writes only regular files, never through a link';

/**
 * A file the suite would not or could not write. `why` is one short phrase
 * (`a symbolic link, left as it is`, `ENOSPC: no space left on device`), for
 * a line that lists several; `message` is `<label>: <why>`, with
 * {@link REFUSAL_NOTE} after a refusal.
 */
export class WriteError extends PcError {
  constructor(
    /** The path written to. */
    readonly path: string,
    readonly why: string,
    /** True when the path was refused (not a regular file); false when writing it failed. */
    readonly refused: boolean,
    /** The name the caller gives the file in messages (`report.json`, `--out x.tar.gz`). Default: `path`. */
    readonly label: string = path,
    cause?: unknown,
  ) {
    super('PC_ERR_WRITE', `${label}: ${why}${refused ? `; ${REFUSAL_NOTE}` : ''}`, { cause });
    this.name = 'WriteError';
  }
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

function failed(path: string, error: unknown, label: string | undefined): WriteError {
  if (error instanceof WriteError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const why = code ? `${code}${ERRNO_WORDS[code] ? `: ${ERRNO_WORDS[code]}` : ''}` : (error as Error).message.split('\n')[0]!;
  return new WriteError(path, why, false, label, error);
}

function refusedAt(path: string, stats: Stats, label: string | undefined): WriteError {
  return new WriteError(path, `${kindOf(stats)}, left as it is`, true, label);
}

/** The entry at `path` (not followed), or undefined when there is none. */
async function entryAt(path: string): Promise<Stats | undefined> {
  return lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
}

/** Temporary files being written, removed by {@link removePartialFilesSync} when the process must end at once. */
const partials = new Set<string>();

/** The temporary name of a write to `path`; {@link removeStale} knows it by its shape. */
function partialName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.partial`);
}

/** `.<name>.<12 hex>.partial`: what {@link partialName} makes. */
const PARTIAL = /^\.(.+)\.[0-9a-f]{12}\.partial$/;

/**
 * Writes `content` to `path` whole or not at all (see the module's comment):
 * the earlier file, if any, stays until the new one is complete. Throws a
 * {@link WriteError} (`label` starts its message; default `path`).
 */
export async function writeFileAtomic(path: string, content: string | Uint8Array, { label }: { label?: string } = {}): Promise<void> {
  const before = await entryAt(path).catch((error: unknown) => {
    throw failed(path, error, label);
  });
  if (before && !before.isFile()) throw refusedAt(path, before, label);
  const partial = partialName(path);
  partials.add(partial);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o666);
    await handle.writeFile(content);
    // Some filesystems (NFS, a quota) say ENOSPC only when the data reaches the disk: here, not after the rename.
    await handle.sync();
    await handle.close();
    handle = undefined;
    const now = await entryAt(path);
    if (now && !now.isFile()) throw refusedAt(path, now, label);
    await rename(partial, path);
  } catch (error) {
    await handle?.close().catch(() => {});
    await unlink(partial).catch(() => {});
    throw failed(path, error, label);
  } finally {
    partials.delete(partial);
  }
}

/**
 * Appends `content` to `path`, created when missing: for a file someone else
 * gives and reads after the run (GitHub's `$GITHUB_STEP_SUMMARY`), which must
 * be added to, not replaced. A link, a FIFO or any other non-regular file at
 * the path is refused (opened without following and without blocking, then
 * checked on the open file). An append cut short by a full disk can leave
 * part of `content`: the file is not the suite's to replace.
 */
export async function appendToFile(path: string, content: string, { label }: { label?: string } = {}): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW | (constants.O_NONBLOCK ?? 0), 0o666);
    const stats = await handle.stat();
    if (!stats.isFile()) throw refusedAt(path, stats, label);
    await handle.writeFile(content);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP: the last part of the path is a link (O_NOFOLLOW); ENXIO: a FIFO nobody reads.
    if (code === 'ELOOP' || code === 'ENXIO') {
      const stats = await lstat(path).catch(() => undefined);
      if (stats) throw refusedAt(path, stats, label);
    }
    throw failed(path, error, label);
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Removes, from `dir`, the regular files of the tool's own names (`ours`: a
 * list, or a test for names made from data, such as the matrix's badges)
 * that are not in `written`, and the temporary files of writes to such a name
 * that never finished (a process killed while writing). Only those names are
 * touched: anything else in the folder, and a link or folder at one of them,
 * is left as it is. Returns the names removed. Call it holding the folder's
 * lock.
 */
export async function removeStale(dir: string, ours: readonly string[] | ((name: string) => boolean), written: readonly string[]): Promise<string[]> {
  const isOurs = typeof ours === 'function' ? ours : (name: string) => ours.includes(name);
  const removed: string[] = [];
  const entries = await readdir(dir).catch(() => [] as string[]);
  const stale = entries.filter((entry) => {
    const partialOf = PARTIAL.exec(entry)?.[1];
    return partialOf === undefined ? isOurs(entry) && !written.includes(entry) : isOurs(partialOf);
  });
  for (const entry of stale) {
    const path = join(dir, entry);
    if (!(await lstat(path).catch(() => undefined))?.isFile()) continue;
    if (await unlink(path).then(() => true, () => false)) removed.push(entry);
  }
  return removed;
}

/** Removes at once, synchronously, the temporary files of writes under way: for a process that must end now (a second Ctrl-C). */
export function removePartialFilesSync(): void {
  for (const partial of partials) {
    try {
      unlinkSync(partial);
    } catch {
      // Ending anyway; the next run into the folder removes it.
    }
  }
}

/** The lock file a run holds in the folder it writes into. */
export const LOCK_FILE = '.petstore-conformance.lock';
/** A lock nobody refreshed for this long is stale, whoever made it (another host, a container, a reused pid). */
export const STALE_LOCK_MS = 120_000;
/** How often the holder refreshes its lock's time. */
const REFRESH_MS = 15_000;
/** The lock file's size, at most (it holds a line of JSON). */
const MAX_LOCK_BYTES = 4096;

/** What a lock file says about its holder. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  since: string;
  /** Tells this holder's lock from a later one with the same pid. */
  nonce: string;
}

/** A folder's lock, held until released. */
export interface DirectoryLock {
  readonly path: string;
  /** Removes the lock, if it is still this one. */
  release(): Promise<void>;
  /** The same, synchronously: for a process that must end at once. */
  releaseSync(): void;
}

/** The folder is locked by another run: `holder` says which, when its lock could be read. */
export class FolderLocked extends PcError {
  constructor(
    readonly lockPath: string,
    readonly holder: LockHolder | undefined,
    label: string,
  ) {
    const who = holder ? `pid ${holder.pid} on ${holder.host === hostname() ? 'this host' : `host ${holder.host}`}, since ${holder.since}` : 'its lock file cannot be read';
    super('PC_ERR_WRITE', `${label}: another run is writing its reports there (${who}); wait for it or choose another folder (remove ${lockPath} if no run is)`);
    this.name = 'FolderLocked';
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isSafeInteger(value.pid) && typeof value.host === 'string' && typeof value.since === 'string' && typeof value.nonce === 'string') return value as LockHolder;
  } catch {
    // Not a lock of ours, or one being written: read as unreadable.
  }
  return undefined;
}

/** The lock at `path`: its holder and age, or undefined when there is none. A lock that is not a regular file is refused. */
async function readLock(path: string, label: string): Promise<{ holder: LockHolder | undefined; ageMs: number } | undefined> {
  const stats = await entryAt(path);
  if (!stats) return undefined;
  if (!stats.isFile()) throw refusedAt(path, stats, label);
  const text = stats.size > MAX_LOCK_BYTES ? '' : await readFile(path, 'utf8').catch(() => '');
  return { holder: parseHolder(text), ageMs: Date.now() - stats.mtimeMs };
}

/** Whether the process `pid` of this host still runs (one of another user's included). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A lock of this host is stale when its process is gone, and only then (a run
 * suspended with Ctrl-Z still holds it); one of another host, or one that
 * cannot be read, when nobody refreshed it for {@link STALE_LOCK_MS}.
 */
function stale(lock: { holder: LockHolder | undefined; ageMs: number }): boolean {
  if (lock.holder?.host === hostname()) return !alive(lock.holder.pid);
  return lock.ageMs > STALE_LOCK_MS;
}

/**
 * Takes the lock of `dir` (an existing folder), or throws {@link FolderLocked}
 * (`label` starts its message) when another run holds it. A stale lock is
 * taken over: moved aside under a name of its own, then removed only if it is
 * still the stale one, so two runs taking over at once cannot both win (three
 * within the same few microseconds could: accepted).
 */
export async function lockDirectory(dir: string, label: string): Promise<DirectoryLock> {
  const path = join(dir, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), nonce: randomBytes(8).toString('hex') };
  const text = `${JSON.stringify(holder)}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o666);
      try {
        await handle.writeFile(text);
      } finally {
        await handle.close();
      }
      return held(path, holder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw failed(path, error, `${label}: cannot lock it (${path})`);
    }
    const found = await readLock(path, label);
    if (!found) continue;
    if (!stale(found) || attempt >= 3) throw new FolderLocked(path, found.holder, label);
    const aside = `${path}.${randomBytes(6).toString('hex')}.stale`;
    if (!(await rename(path, aside).then(() => true, () => false))) continue;
    const moved = parseHolder(await readFile(aside, 'utf8').catch(() => ''));
    if (moved?.nonce === found.holder?.nonce) {
      await unlink(aside).catch(() => {});
      continue;
    }
    // Another run took the stale lock over first and this one moved its fresh lock aside: put it back.
    await link(aside, path).catch(() => {});
    await unlink(aside).catch(() => {});
    throw new FolderLocked(path, moved, label);
  }
}

function held(path: string, holder: LockHolder): DirectoryLock {
  const ours = (text: string) => parseHolder(text)?.nonce === holder.nonce;
  // The time of the lock says the run is alive to a run on another host, which cannot ask for the pid.
  const refresh = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => {});
  }, REFRESH_MS);
  refresh.unref();
  return {
    path,
    async release() {
      clearInterval(refresh);
      if (ours(await readFile(path, 'utf8').catch(() => ''))) await unlink(path).catch(() => {});
    },
    releaseSync() {
      clearInterval(refresh);
      try {
        if (ours(readFileSync(path, 'utf8'))) unlinkSync(path);
      } catch {
        // Ending anyway; a lock whose process is gone is taken over.
      }
    },
  };
}
