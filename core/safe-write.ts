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
import { constants, unlinkSync } from 'node:fs';
import { lstat, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { checkReplaceable, entryAt, failed, type Marker, NO_FOLLOW, refusedAt, replaceable, WriteError } from './safe-write/refusal.js';

// The checks of what is at a name, and the folder's lock, are modules of their own; callers import them from here.
export {
  checkReplaceable,
  FOREIGN_NOTE,
  kindOf,
  type Marker,
  noteOf,
  REFUSAL_NOTE,
  refusalOf,
  textMarker,
  WriteError,
  type WriteFailure,
} from './safe-write/refusal.js';
export {
  type DirectoryLock,
  FolderLocked,
  LOCK_FILE,
  lockDirectory,
  type LockHolder,
  STALE_LOCK_MS,
  removeAbandoned,
  TAKEOVER_FILE,
  UNREADABLE_LOCK_MS,
} from './safe-write/lock.js';

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
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  { label, ours }: { label?: string; ours: Marker },
): Promise<void> {
  await checkReplaceable(path, ours, { ...(label === undefined ? {} : { label }) });
  // The earlier file's permissions are kept: a report its owner made private (chmod 600) stays so when run again.
  const earlier = await lstat(path).catch(() => undefined);
  const partial = partialName(path);
  partials.add(partial);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, 0o666);
    // Only ever narrowed, only from a file of the user's own (another user's file of the suite's could widen it), and
    // a filesystem without modes changes nothing.
    if (earlier?.isFile() && earlier.uid === process.getuid?.())
      await handle.chmod(earlier.mode & 0o666 & ~process.umask()).catch(() => {});
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
 * writing: their name, and what they hold, begun as the file or nothing yet). Anything else in the folder, a file of
 * such a name that the suite did not write, and a link or folder at one of
 * them, is left as it is. Returns the names removed. Call it holding the
 * folder's lock.
 */
export async function removeStale(
  dir: string,
  markerOf: (name: string) => Marker | undefined,
  written: readonly string[],
): Promise<string[]> {
  const removed: string[] = [];
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const entry of entries) {
    const path = join(dir, entry);
    const partialOf = PARTIAL.exec(entry)?.[1];
    const partialMarker = partialOf === undefined ? undefined : markerOf(partialOf);
    if (partialOf !== undefined) {
      // Its name alone is no mark (a file of the user's may bear it): what it holds begins as the file it was to become,
      // or, killed before a byte was written, it is empty.
      const stats = await entryAt(path).catch(() => undefined);
      if (!partialMarker || !stats?.isFile()) continue;
      if (stats.size > 0 && (await replaceable(path, partialMarker, undefined).catch(() => undefined)) !== 'ours') continue;
    } else {
      const marker = markerOf(entry);
      if (!marker || written.includes(entry) || (await replaceable(path, marker, undefined).catch(() => undefined)) !== 'ours') continue;
    }
    if (
      await unlink(path).then(
        () => true,
        () => false,
      )
    )
      removed.push(entry);
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
