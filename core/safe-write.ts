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
 * - What is already at the name is replaced only when it is a file the suite
 *   wrote, known by its first bytes ({@link Marker}: report.json's `tool`,
 *   junit.xml's root, a page's generator meta…): a user's own junit.xml or
 *   report.html is refused and left as it is, and so is a symbolic link (one
 *   planted in a cloned repository, `report.json -> ../../precious.txt`), a
 *   directory, a FIFO or a device. This is checked before the write and again
 *   just before the rename (a file may appear while a run works). The rename
 *   replaces a name and never follows one, so even a link planted after the
 *   check is replaced, not written through.
 * - A run locks its folder with {@link LOCK_FILE}, created exclusively,
 *   holding its pid, host and start; the holder refreshes its time while it
 *   runs. A lock of this host whose process is gone, one of another host that
 *   nobody refreshed for {@link STALE_LOCK_MS}, one that is empty or cannot
 *   be read (a run killed between creating and filling it) once
 *   {@link UNREADABLE_LOCK_MS} old, and one whose pid is no process's (0, -1)
 *   is taken over; any other is refused. A lock whose content could not be
 *   written (a full disk) is removed at once.
 * - {@link removeStale} removes the files of the tool's own names a run did
 *   not write, each only when its marker says the suite wrote it, so that a
 *   folder describes one run.
 *
 * The folder itself is the caller's concern (cli/files.ts refuses a report
 * folder that is itself a symbolic link); links among its parents are
 * followed as usual. Paths are used as names throughout: someone who can
 * change the folder while a run writes into it (a file swapped in between the
 * last check and the rename) is not guarded against.
 */
import { randomBytes } from 'node:crypto';
import { constants, readFileSync, type Stats, unlinkSync } from 'node:fs';
import { link, lstat, open, readdir, rename, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PcError } from './errors.js';

/** `O_NOFOLLOW` where the platform has it: opening a symbolic link fails (ELOOP) instead of opening what it names. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
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

function failed(path: string, error: unknown, label: string | undefined): WriteError {
  if (error instanceof WriteError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const why = code ? `${code}${ERRNO_WORDS[code] ? `: ${ERRNO_WORDS[code]}` : ''}` : (error as Error).message.split('\n')[0]!;
  return new WriteError(path, why, 'failed', label, error);
}

function refusedAt(path: string, stats: Stats, label: string | undefined): WriteError {
  return new WriteError(path, `${kindOf(stats)}, left as it is`, 'not-regular', label);
}

/** The words of a refused file the suite did not write. */
const NOT_OURS = 'not written by petstore-conformance, left as it is';

/** The entry at `path` (not followed), or undefined when there is none. */
async function entryAt(path: string): Promise<Stats | undefined> {
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
async function peek(path: string, bytes: number): Promise<{ stats: Stats; head?: Buffer } | undefined> {
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
async function replaceable(path: string, marker: Marker, label: string | undefined): Promise<'none' | 'ours' | WriteError> {
  const found = await peek(path, marker.bytes);
  if (!found) return 'none';
  if (!found.head) return refusedAt(path, found.stats, label);
  return marker.test(found.head) ? 'ours' : new WriteError(path, NOT_OURS, 'not-ours', label);
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
export async function refusalOf(files: readonly { path: string; ours: Marker; label: string }[], instead: string): Promise<string | undefined> {
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
 * the earlier file, if any, stays until the new one is complete, and is
 * replaced only when `ours` says the suite wrote it. Throws a
 * {@link WriteError} (`label` starts its message; default `path`).
 */
export async function writeFileAtomic(path: string, content: string | Uint8Array, { label, ours }: { label?: string; ours: Marker }): Promise<void> {
  await checkReplaceable(path, ours, { ...(label === undefined ? {} : { label }) });
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
    // What appeared at the name while this was written (another program's file, a link) is refused as before.
    const now = await replaceable(path, ours, label);
    if (now instanceof WriteError) throw now;
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
 * Removes, from `dir`, the files of the tool's own names that are not in
 * `written` and that their marker says the suite wrote (`markerOf` gives the
 * marker of each name of the tool's, undefined for any other: a fixed list,
 * or names made from data, such as the matrix's badges), and the temporary
 * files of writes to such a name that never finished (a process killed while
 * writing; their name is their mark). Anything else in the folder, a file of
 * such a name that the suite did not write, and a link or folder at one of
 * them, is left as it is. Returns the names removed. Call it holding the
 * folder's lock.
 */
export async function removeStale(dir: string, markerOf: (name: string) => Marker | undefined, written: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const entry of entries) {
    const path = join(dir, entry);
    const partialOf = PARTIAL.exec(entry)?.[1];
    if (partialOf !== undefined) {
      if (!markerOf(partialOf) || !(await entryAt(path).catch(() => undefined))?.isFile()) continue;
    } else {
      const marker = markerOf(entry);
      if (!marker || written.includes(entry) || (await replaceable(path, marker, undefined).catch(() => undefined)) !== 'ours') continue;
    }
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
/**
 * A lock that is empty or cannot be read is stale once this old: a run
 * creates its lock and fills it in one go, within milliseconds, and removes
 * it when it cannot fill it; only a run killed in between leaves one.
 */
export const UNREADABLE_LOCK_MS = 5_000;
/** How long, at most, a run waits for a lock just created by another to be filled, before it says it cannot be read. */
const FILLING_WAIT_MS = 1_000;
/** How often the holder refreshes its lock's time. */
const REFRESH_MS = 15_000;
/** The lock file's size, at most (it holds a line of JSON). */
const MAX_LOCK_BYTES = 4096;
/** The largest pid (a pid_t is 32 bits). */
const MAX_PID = 0x7fffffff;

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
    const who = holder ? `pid ${holder.pid} on ${holder.host === hostname() ? 'this host' : `host ${holder.host}`}, since ${holder.since}` : `its lock file cannot be read; it counts as abandoned once ${UNREADABLE_LOCK_MS / 1000} s old`;
    super('PC_ERR_WRITE', `${label}: another run is writing its reports there (${who}); wait for it or choose another folder (remove ${lockPath} if no run is)`);
    this.name = 'FolderLocked';
  }
}

/** The holder a lock's text names; undefined when it is not a lock's JSON (empty, cut short, something else). */
function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.since === 'string' && typeof value.nonce === 'string') return value as LockHolder;
  } catch {
    // Not a lock of ours, or one being written: read as unreadable.
  }
  return undefined;
}

/**
 * Whether `pid` can be a process's: a positive integer within a pid_t. No run
 * writes another, and `process.kill(0)` or `process.kill(-1)` would signal a
 * whole group and call such a lock alive forever.
 */
function validPid(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0 && pid <= MAX_PID;
}

/** The holder named by the lock file at `path`, not followed; undefined when there is none or it cannot be read. */
async function holderAt(path: string): Promise<LockHolder | undefined> {
  const found = await peek(path, MAX_LOCK_BYTES + 1).catch(() => undefined);
  return found?.head && found.head.length <= MAX_LOCK_BYTES ? parseHolder(found.head.toString('utf8')) : undefined;
}

/** The lock at `path`: its holder and age, or undefined when there is none. A lock that is not a regular file is refused, naming it. */
async function readLock(path: string, label: string): Promise<{ holder: LockHolder | undefined; ageMs: number } | undefined> {
  const found = await peek(path, MAX_LOCK_BYTES + 1);
  if (!found) return undefined;
  if (!found.head) throw refusedAt(path, found.stats, `${label}: its lock file ${LOCK_FILE}`);
  const holder = found.head.length > MAX_LOCK_BYTES ? undefined : parseHolder(found.head.toString('utf8'));
  return { holder, ageMs: Date.now() - found.stats.mtimeMs };
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
 * suspended with Ctrl-Z still holds it); one of another host when nobody
 * refreshed it for {@link STALE_LOCK_MS}; one that cannot be read (empty,
 * not a lock's JSON) once {@link UNREADABLE_LOCK_MS} old; one whose pid is
 * no process's (0, -1, 1.5) at once.
 */
function stale(lock: { holder: LockHolder | undefined; ageMs: number }): boolean {
  if (!lock.holder) return lock.ageMs > UNREADABLE_LOCK_MS;
  if (!validPid(lock.holder.pid)) return true;
  if (lock.holder.host === hostname()) return !alive(lock.holder.pid);
  return lock.ageMs > STALE_LOCK_MS;
}

/**
 * Takes the lock of `dir` (an existing folder), or throws {@link FolderLocked}
 * (`label` starts its message) when another run holds it. A lock whose
 * content cannot be written (a full disk) is removed before the error is
 * thrown. A stale lock is taken over: moved aside under a name of its own,
 * then removed only if it is still the stale one, so two runs taking over at
 * once cannot both win (three within the same few microseconds could:
 * accepted). A lock just created by another run and not yet filled is waited
 * for, up to {@link FILLING_WAIT_MS}.
 */
export async function lockDirectory(dir: string, label: string): Promise<DirectoryLock> {
  const path = join(dir, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), nonce: randomBytes(8).toString('hex') };
  const text = `${JSON.stringify(holder)}\n`;
  const cannotLock = (error: unknown) => failed(path, error, `${label}: cannot lock it (${path})`);
  const waitUntil = Date.now() + FILLING_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o666).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw cannotLock(error);
      return undefined;
    });
    if (handle) {
      try {
        await handle.writeFile(text);
        await handle.close();
        return held(path, holder);
      } catch (error) {
        await handle.close().catch(() => {});
        // An empty lock left behind would look like another run's until it is old enough to be stale.
        await unlink(path).catch(() => {});
        throw cannotLock(error);
      }
    }
    const found = await readLock(path, label);
    if (!found) continue;
    if (!found.holder && !stale(found) && Date.now() < waitUntil) {
      // Another run may have created it a moment ago and be filling it.
      attempt--;
      await sleep(50);
      continue;
    }
    if (!stale(found) || attempt >= 3) throw new FolderLocked(path, found.holder, label);
    const aside = `${path}.${randomBytes(6).toString('hex')}.stale`;
    if (!(await rename(path, aside).then(() => true, () => false))) continue;
    const moved = await holderAt(aside);
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
      if ((await holderAt(path))?.nonce === holder.nonce) await unlink(path).catch(() => {});
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
