/**
 * The safe writer (core/safe-write.ts): whole files or none, never through a
 * link, never over a file the suite did not write; the folder lock, a stale
 * one taken over (an empty one, one of an impossible pid), none left when it
 * cannot be written; the tool's own stale files removed, nothing else.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendToFile,
  FolderLocked,
  LOCK_FILE,
  lockDirectory,
  type Marker,
  removeAbandoned,
  removeStale,
  STALE_LOCK_MS,
  TAKEOVER_FILE,
  textMarker,
  UNREADABLE_LOCK_MS,
  writeFileAtomic,
  WriteError,
} from '../../../core/safe-write.js';
import { tempDir } from '../../helpers.js';

/** The files these tests call the suite's: they begin with `ours`. */
const OURS: Marker = textMarker(16, /^ours/);
const mine = (name: string) => (name.endsWith('.json') || name.endsWith('.xml') ? OURS : undefined);

/** The pid of a process that has ended. */
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ['-e', '']);
  return pid!;
}

const lockText = (pid: number, host: string) =>
  `${JSON.stringify({ pid, host, since: '2020-01-01T00:00:00.000Z', nonce: 'abababababababab' })}\n`;

describe('writeFileAtomic', () => {
  it('replaces a file whole and leaves nothing beside it', async () => {
    const dir = tempDir();
    const path = join(dir, 'report.json');
    writeFileSync(path, 'ours, earlier');
    await writeFileAtomic(path, 'ours, new', { ours: OURS });
    expect(readFileSync(path, 'utf8')).toBe('ours, new');
    expect(readdirSync(dir)).toEqual(['report.json']);
  });

  it('keeps the permissions of the file it replaces: a report made private stays private', async () => {
    const dir = tempDir();
    const path = join(dir, 'report.json');
    writeFileSync(path, 'ours, earlier');
    chmodSync(path, 0o600);
    await writeFileAtomic(path, 'ours, new', { ours: OURS });
    expect(readFileSync(path, 'utf8')).toBe('ours, new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Never widened: an earlier file open to everyone (or executable) does not make the new one so.
    chmodSync(path, 0o777);
    await writeFileAtomic(path, 'ours, newer', { ours: OURS });
    expect(statSync(path).mode & 0o777).toBe(0o666 & ~process.umask());
  });

  it.each([
    [
      'a link to a file',
      (dir: string, at: string) => (writeFileSync(join(dir, 'target'), 'precious'), symlinkSync(join(dir, 'target'), at)),
      /a symbolic link, left as it is/,
    ],
    ['a dangling link', (dir: string, at: string) => symlinkSync(join(dir, 'nowhere'), at), /a symbolic link, left as it is/],
    ['a directory', (_dir: string, at: string) => mkdirSync(at), /a directory, left as it is/],
    ['a FIFO', (_dir: string, at: string) => execFileSync('mkfifo', [at]), /a FIFO \(named pipe\), left as it is/],
  ])('refuses %s at the path and touches nothing', async (_name, plant, message) => {
    const dir = tempDir();
    const at = join(dir, 'report.json');
    plant(dir, at);
    const before = readdirSync(dir).sort();
    const error = await writeFileAtomic(at, 'x', { label: 'report.json', ours: OURS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteError);
    expect((error as WriteError).refused).toBe(true);
    expect((error as WriteError).message).toMatch(message);
    expect((error as WriteError).message).toMatch(/^report\.json: .*never through a link$/);
    expect(readdirSync(dir).sort()).toEqual(before);
    if (existsSync(join(dir, 'target'))) expect(readFileSync(join(dir, 'target'), 'utf8')).toBe('precious');
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it('refuses a file of that name the suite did not write (by its marker), before and after writing, and leaves it as it was', async () => {
    const dir = tempDir();
    const path = join(dir, 'junit.xml');
    writeFileSync(path, '<testsuites name="jest"/>\n');
    const error = await writeFileAtomic(path, 'ours', { label: 'junit.xml', ours: OURS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteError);
    expect((error as WriteError).failure).toBe('not-ours');
    expect((error as WriteError).message).toBe(
      'junit.xml: not written by petstore-conformance, left as it is; the suite replaces or removes only files it wrote',
    );
    expect(readFileSync(path, 'utf8')).toBe('<testsuites name="jest"/>\n');
    expect(readdirSync(dir)).toEqual(['junit.xml']);

    // Ours when the write starts, someone else's by the time it is renamed (written while the run worked): refused then.
    writeFileSync(path, 'ours');
    let asked = 0;
    const swapping: Marker = {
      bytes: 16,
      test: (head) => {
        if (asked++ === 0) writeFileSync(path, 'theirs');
        return OURS.test(head);
      },
    };
    const late = await writeFileAtomic(path, 'ours, new', { ours: swapping }).catch((e: unknown) => e);
    expect((late as WriteError).failure).toBe('not-ours');
    expect(readFileSync(path, 'utf8')).toBe('theirs');
    expect(readdirSync(dir)).toEqual(['junit.xml']);
  });

  it('a failed write keeps the earlier file and removes its temporary file', async () => {
    const dir = tempDir();
    const path = join(dir, 'missing-folder', 'report.json');
    const error = await writeFileAtomic(path, 'x', { ours: OURS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteError);
    expect((error as WriteError).why).toBe('ENOENT: the folder is gone');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('appendToFile', () => {
  it('appends to a regular file, creates a missing one, refuses a link', async () => {
    const dir = tempDir();
    const file = join(dir, 'summary.md');
    await appendToFile(file, 'a');
    await appendToFile(file, 'b');
    expect(readFileSync(file, 'utf8')).toBe('ab');
    writeFileSync(join(dir, 'precious'), 'precious');
    symlinkSync(join(dir, 'precious'), join(dir, 'link.md'));
    await expect(appendToFile(join(dir, 'link.md'), 'x', { label: 'GITHUB_STEP_SUMMARY' })).rejects.toThrow(
      /^GITHUB_STEP_SUMMARY: a symbolic link, left as it is/,
    );
    expect(readFileSync(join(dir, 'precious'), 'utf8')).toBe('precious');
  });
});

/** `contenders` runs taking the lock of a folder `plant` filled, at once, `rounds` times: exactly one wins, nothing is left. */
async function exactlyOneWins(rounds: number, contenders: number, plant: (dir: string) => void): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const dir = tempDir();
    plant(dir);
    const tries = await Promise.allSettled(Array.from({ length: contenders }, () => lockDirectory(dir, 'x')));
    const won = tries.filter((t) => t.status === 'fulfilled');
    for (const t of tries) if (t.status === 'rejected') expect(t.reason).toBeInstanceOf(FolderLocked);
    await Promise.all(won.map((t) => t.value.release()));
    expect({ round, won: won.length, left: readdirSync(dir) }).toEqual({ round, won: 1, left: [] });
  }
}

describe('lockDirectory', () => {
  it('is refused while held, names the holder, and is free again once released', async () => {
    const dir = tempDir();
    const lock = await lockDirectory(dir, '--report-dir x');
    const refused = await lockDirectory(dir, '--report-dir x').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FolderLocked);
    expect((refused as Error).message).toMatch(
      new RegExp(
        `^--report-dir x: another run is writing its reports there \\(pid ${process.pid} on this host, since \\S+\\); wait for it or choose another folder \\(remove .*${LOCK_FILE} if no run is\\)$`,
      ),
    );
    await lock.release();
    expect(readdirSync(dir)).toEqual([]);
    const again = await lockDirectory(dir, '--report-dir x');
    again.releaseSync();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a lock left by a process of this host that is gone is taken over at once', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), lockText(deadPid(), hostname()));
    const lock = await lockDirectory(dir, 'x');
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('a lock of another host holds while it is refreshed, and is taken over once nobody refreshed it for the stale time', async () => {
    const dir = tempDir();
    const path = join(dir, LOCK_FILE);
    writeFileSync(path, lockText(1, 'another-host.example'));
    await expect(lockDirectory(dir, 'x')).rejects.toThrow(/pid 1 on host another-host\.example/);
    const old = new Date(Date.now() - STALE_LOCK_MS - 1000);
    utimesSync(path, old, old);
    const lock = await lockDirectory(dir, 'x');
    await lock.release();
  });

  it('several runs taking over one stale lock at once: exactly one gets it, every time', async () => {
    // Moving the lock aside and putting back one that was not the stale one let two or three of eight win (CI saw
    // three; 197 rounds of 300 here): a lock removed only under the takeover file, by one run at a time, lets one.
    const pid = deadPid();
    await exactlyOneWins(40, 8, (dir) => writeFileSync(join(dir, LOCK_FILE), lockText(pid, hostname())));
  });

  it('a takeover file left by a run killed within its takeover is removed once old, and the stale lock taken over', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), lockText(deadPid(), hostname()));
    const takeover = join(dir, TAKEOVER_FILE);
    writeFileSync(takeover, '');
    const old = new Date(Date.now() - UNREADABLE_LOCK_MS - 1000);
    utimesSync(takeover, old, old);
    const lock = await lockDirectory(dir, 'x');
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    await lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('while another run takes a stale lock over (its takeover file fresh), the lock is waited for, then refused; nothing of theirs is removed', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), lockText(deadPid(), hostname()));
    writeFileSync(join(dir, TAKEOVER_FILE), '');
    const refused = await lockDirectory(dir, 'x').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FolderLocked);
    // Not the dead pid of the stale lock: what is going on.
    expect((refused as Error).message).toMatch(
      /^x: another run is writing its reports there \(another run is taking its abandoned lock over\)/,
    );
    expect(readdirSync(dir).sort()).toEqual([LOCK_FILE, TAKEOVER_FILE]);
  });

  it('an abandoned takeover file, many runs at once: exactly one holds the folder, every time', async () => {
    // In one process: the interleaving 16 processes hit (2 rounds of 30 held twice) is taken step by step below.
    const pid = deadPid();
    const old = new Date(Date.now() - UNREADABLE_LOCK_MS - 1000);
    await exactlyOneWins(30, 12, (dir) => {
      writeFileSync(join(dir, LOCK_FILE), lockText(pid, hostname()));
      writeFileSync(join(dir, TAKEOVER_FILE), '');
      utimesSync(join(dir, TAKEOVER_FILE), old, old);
    });
  });

  it('an abandoned takeover file is removed only if it is still the one found abandoned; a fresh one since is put back', async () => {
    // Two runs find it abandoned; one removes it and makes its own; the other, late, moved that fresh one aside and
    // removed it: two runs then took over at once.
    const dir = tempDir();
    const takeover = join(dir, TAKEOVER_FILE);
    writeFileSync(takeover, '');
    const abandoned = lstatSync(takeover);
    const fresh = join(dir, 'fresh');
    writeFileSync(fresh, '');
    renameSync(fresh, takeover);
    const freshIno = lstatSync(takeover).ino;
    expect(freshIno).not.toBe(abandoned.ino);
    await removeAbandoned(takeover, abandoned);
    expect(readdirSync(dir)).toEqual([TAKEOVER_FILE]);
    expect(lstatSync(takeover).ino).toBe(freshIno);
    // The one found abandoned itself is removed, nothing left aside.
    await removeAbandoned(takeover, lstatSync(takeover));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a takeover file that holds anything is not the suite’s: refused and left, however old', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), lockText(deadPid(), hostname()));
    writeFileSync(join(dir, TAKEOVER_FILE), 'notes');
    const old = new Date(Date.now() - UNREADABLE_LOCK_MS - 1000);
    utimesSync(join(dir, TAKEOVER_FILE), old, old);
    await expect(lockDirectory(dir, '--report-dir rep')).rejects.toThrow(
      /^--report-dir rep: its lock's takeover file \.petstore-conformance\.lock\.takeover: not written by petstore-conformance, left as it is/,
    );
    expect(readFileSync(join(dir, TAKEOVER_FILE), 'utf8')).toBe('notes');
  });

  it('a link planted as the takeover file is refused, never followed, and named', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'precious'), 'precious');
    writeFileSync(join(dir, LOCK_FILE), lockText(deadPid(), hostname()));
    symlinkSync(join(dir, 'precious'), join(dir, TAKEOVER_FILE));
    await expect(lockDirectory(dir, '--report-dir rep')).rejects.toThrow(
      /^--report-dir rep: its lock's takeover file \.petstore-conformance\.lock\.takeover: a symbolic link, left as it is/,
    );
    expect(readFileSync(join(dir, 'precious'), 'utf8')).toBe('precious');
    expect(lstatSync(join(dir, TAKEOVER_FILE)).isSymbolicLink()).toBe(true);
  });

  it('a link planted as the lock is refused, never followed, and the message names the lock file, not the folder', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'precious'), 'precious');
    symlinkSync(join(dir, 'precious'), join(dir, LOCK_FILE));
    await expect(lockDirectory(dir, '--report-dir rep')).rejects.toThrow(
      /^--report-dir rep: its lock file \.petstore-conformance\.lock: a symbolic link, left as it is/,
    );
    expect(readFileSync(join(dir, 'precious'), 'utf8')).toBe('precious');
  });

  it.each([0, -1, 1.5, -4242])('a lock of pid %d names no process: taken over at once, not counted alive', async (pid) => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), lockText(pid, hostname()));
    const lock = await lockDirectory(dir, 'x');
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
  });

  it('an empty lock (its run died before filling it) is refused while it may be being filled, and taken over once a few seconds old', async () => {
    const dir = tempDir();
    const path = join(dir, LOCK_FILE);
    writeFileSync(path, '');
    await expect(lockDirectory(dir, 'x')).rejects.toThrow(
      /another run is writing its reports there \(its lock file cannot be read; it counts as abandoned once 5 s old\)/,
    );
    const old = new Date(Date.now() - UNREADABLE_LOCK_MS - 1000);
    utimesSync(path, old, old);
    const lock = await lockDirectory(dir, 'x');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid });
    await lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a lock whose content cannot be written (the disk full: here a file size limit of 0) is removed at once', () => {
    const dir = tempDir();
    const module = new URL('../../../dist/core/safe-write.js', import.meta.url).href;
    const script = `import(${JSON.stringify(module)}).then((m) => m.lockDirectory(${JSON.stringify(dir)}, 'x')).then(() => console.log('locked'), (e) => console.log(e.message))`;
    // The same code path as ENOSPC on a full tmpfs: creating the file works, writing into it fails.
    const ran = spawnSync('bash', ['-c', 'trap "" XFSZ; ulimit -f 0; exec "$0" -e "$1"', process.execPath, script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(ran.stdout).toMatch(/^x: cannot lock it \(.*\.petstore-conformance\.lock\): EFBIG: file too large/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('removeStale', () => {
  it('removes the files of its names not written that the suite wrote, and unfinished temporary files of those names; nothing else', async () => {
    const dir = tempDir();
    for (const name of ['report.json', 'junit.xml', 'notes.txt', '.junit.xml.0123456789ab.partial', '.notes.txt.0123456789ab.partial'])
      writeFileSync(join(dir, name), 'ours');
    // A user's file of one of the names: not the suite's, never removed.
    writeFileSync(join(dir, 'mine.xml'), '<testsuites name="jest"/>');
    mkdirSync(join(dir, 'report.html.xml'));
    writeFileSync(join(dir, 'precious'), 'ours, precious');
    symlinkSync(join(dir, 'precious'), join(dir, 'other.xml'));
    const removed = await removeStale(dir, mine, ['report.json']);
    expect(removed.sort()).toEqual(['.junit.xml.0123456789ab.partial', 'junit.xml']);
    expect(readdirSync(dir).sort()).toEqual([
      '.notes.txt.0123456789ab.partial',
      'mine.xml',
      'notes.txt',
      'other.xml',
      'precious',
      'report.html.xml',
      'report.json',
    ]);
    expect(readFileSync(join(dir, 'mine.xml'), 'utf8')).toBe('<testsuites name="jest"/>');
    expect(lstatSync(join(dir, 'other.xml')).isSymbolicLink()).toBe(true);
  });

  it("a temporary file's name is no mark alone: one that holds another's content stays; an empty one (killed before a byte) goes", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.junit.xml.aaaaaaaaaaaa.partial'), "the user's own notes");
    writeFileSync(join(dir, '.junit.xml.bbbbbbbbbbbb.partial'), '');
    writeFileSync(join(dir, '.junit.xml.cccccccccccc.partial'), 'ours, cut sh');
    const removed = await removeStale(dir, mine, []);
    expect(removed.sort()).toEqual(['.junit.xml.bbbbbbbbbbbb.partial', '.junit.xml.cccccccccccc.partial']);
    expect(readFileSync(join(dir, '.junit.xml.aaaaaaaaaaaa.partial'), 'utf8')).toBe("the user's own notes");
  });
});
