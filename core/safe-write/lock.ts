/**
 * The lock a run holds on the folder it writes into (core/safe-write.ts):
 * {@link LOCK_FILE}, created exclusively, holding its pid, host and start;
 * the holder refreshes its time while it runs. A lock of this host whose
 * process is gone, one of another host that nobody refreshed for
 * {@link STALE_LOCK_MS}, one that is empty or cannot be read once
 * {@link UNREADABLE_LOCK_MS} old, and one whose pid is no process's (0, -1)
 * is taken over, by one run at a time ({@link TAKEOVER_FILE}); any other is
 * refused.
 */
import { randomBytes } from 'node:crypto';
import { constants, readFileSync, type Stats, unlinkSync } from 'node:fs';
import { type FileHandle, link, open, rename, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PcError } from '../errors.js';
import { entryAt, failed, NO_FOLLOW, notOursAt, peek, refusedAt } from './refusal.js';

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
    /** Why, when not the holder's lock itself. */
    why?: string,
  ) {
    const who =
      why ??
      (holder
        ? `pid ${holder.pid} on ${holder.host === hostname() ? 'this host' : `host ${holder.host}`}, since ${holder.since}`
        : `its lock file cannot be read; it counts as abandoned once ${UNREADABLE_LOCK_MS / 1000} s old`);
    super(
      'PC_ERR_WRITE',
      `${label}: another run is writing its reports there (${who}); wait for it or choose another folder (remove ${lockPath} if no run is)`,
    );
    this.name = 'FolderLocked';
  }
}

/** The holder a lock's text names; undefined when it is not a lock's JSON (empty, cut short, something else). */
function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (
      typeof value.pid === 'number' &&
      typeof value.host === 'string' &&
      typeof value.since === 'string' &&
      typeof value.nonce === 'string'
    )
      return value as LockHolder;
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
  const found = await peek(path, MAX_LOCK_BYTES + 1).catch((error: unknown) => {
    throw failed(path, error, `${label}: its lock file ${LOCK_FILE} cannot be read`);
  });
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
 * thrown. A stale lock is removed by one run at a time, the one that created
 * {@link TAKEOVER_FILE} ({@link removeStaleLock}); then whichever run creates
 * the lock first holds it, and the others find it fresh and are refused. A
 * lock just created by another run and not yet filled, or being taken over,
 * is waited for, up to {@link FILLING_WAIT_MS}.
 */
export async function lockDirectory(dir: string, label: string): Promise<DirectoryLock> {
  const path = join(dir, LOCK_FILE);
  const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), nonce: randomBytes(8).toString('hex') };
  const text = `${JSON.stringify(holder)}\n`;
  const cannotLock = (error: unknown) => failed(path, error, `${label}: cannot lock it (${path})`);
  const waitUntil = Date.now() + FILLING_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const handle = await createExclusive(path, cannotLock);
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
    // Asked once a look: for a lock of this host, whether its process still runs.
    const isStale = stale(found);
    const waiting = !isStale ? !found.holder : (await removeStaleLock(path, label, cannotLock)) === 'busy';
    if (waiting && Date.now() < waitUntil) {
      // Another run may have created it a moment ago and be filling it, or be taking the stale one over.
      attempt--;
      await sleep(WAIT_STEP_MS);
      continue;
    }
    if (waiting && isStale) throw new FolderLocked(path, undefined, label, 'another run is taking its abandoned lock over');
    if (!isStale || attempt >= 3) throw new FolderLocked(path, found.holder, label);
  }
}

/** The file a run creates, exclusively, to take a stale lock over: one run at a time. */
export const TAKEOVER_FILE = `${LOCK_FILE}.takeover`;
/** A takeover file older than this is abandoned (its run was killed within the takeover, which takes microseconds). */
const TAKEOVER_ABANDONED_MS = UNREADABLE_LOCK_MS;
/** Between two looks at a lock being filled or taken over, ms. */
const WAIT_STEP_MS = 20;

/** `path` created exclusively for writing, never through a link; undefined when something is there already. */
async function createExclusive(path: string, cannotLock: (error: unknown) => Error): Promise<FileHandle | undefined> {
  return open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o666).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw cannotLock(error);
    return undefined;
  });
}

/**
 * Removes the lock at `path` if it is stale, holding {@link TAKEOVER_FILE}
 * meanwhile: no other run removes a lock then, so the lock looked at under it
 * is the one removed, and a fresh lock, another run's, is never. `busy`:
 * another run holds the takeover file. One left behind by a run killed within
 * its takeover is removed once {@link TAKEOVER_ABANDONED_MS} old
 * ({@link removeAbandoned}).
 */
async function removeStaleLock(path: string, label: string, cannotLock: (error: unknown) => Error): Promise<'removed' | 'busy'> {
  const takeover = join(dirname(path), TAKEOVER_FILE);
  const handle = await createExclusive(takeover, cannotLock);
  if (!handle) {
    const what = `${label}: its lock's takeover file ${TAKEOVER_FILE}`;
    const stats = await entryAt(takeover).catch((error: unknown) => {
      throw failed(takeover, error, what);
    });
    if (stats && !stats.isFile()) throw refusedAt(takeover, stats, what);
    // The suite leaves it empty: one that holds anything is another's, left as it is.
    if (stats && stats.size > 0) throw notOursAt(takeover, what);
    if (stats && Date.now() - stats.mtimeMs > TAKEOVER_ABANDONED_MS) await removeAbandoned(takeover, stats);
    return 'busy';
  }
  try {
    await handle.close();
    const found = await readLock(path, label);
    if (found && stale(found)) await unlink(path).catch(() => {});
    return 'removed';
  } finally {
    await unlink(takeover).catch(() => {});
  }
}

/**
 * Removes the abandoned takeover file `stats` described: moved aside, then removed if it is that very file (device and
 * inode); otherwise it is another run's, fresh, created since (a run that removed the abandoned one a moment before
 * this one looked), and it is put back. Between the move and putting it back a third run could create one of its own:
 * two runs would then take over at once (a killed run, and three at once within microseconds: accepted).
 */
export async function removeAbandoned(takeover: string, stats: Stats): Promise<void> {
  const aside = `${takeover}.${randomBytes(6).toString('hex')}.stale`;
  if (
    !(await rename(takeover, aside).then(
      () => true,
      () => false,
    ))
  )
    return;
  const moved = await entryAt(aside).catch(() => undefined);
  if (moved && (moved.ino !== stats.ino || moved.dev !== stats.dev)) await link(aside, takeover).catch(() => {});
  await unlink(aside).catch(() => {});
}

/** The lock just taken at `path`, refreshed until released. */
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
