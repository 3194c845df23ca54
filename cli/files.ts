/**
 * Every file the suite reads from a path the user gave (config, CA and client
 * certificates, waivers, product description, keys, report.json, bundles) is
 * read here, with a bound: opened without blocking (a FIFO with no writer
 * never hangs the open), checked with fstat on the open descriptor to be a
 * regular file (a FIFO, a device such as /dev/zero, a socket or a directory
 * is refused at once), and read up to the bound plus one byte, so a file that
 * is larger than it said (or grows) is refused too. Nothing here retries.
 *
 * The report directory is checked, and created one level at a time, before a
 * run sends its first request: a directory that cannot hold the reports (or
 * is itself a symbolic link) is a one-line usage error then, not a lost run
 * afterwards. (`mkdir -p` is not
 * used: Node 20's recursive mkdir loops forever below /proc.)
 */
import { constants, type Stats } from 'node:fs';
import { access, lstat, mkdir, open, realpath, stat, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import { UsageError } from '../core/errors.js';
import { kindOf } from '../core/safe-write.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The bound of each kind of file the suite reads. */
export const FILE_LIMITS = {
  /** petstore-conformance.config.json */
  config: 1 * MiB,
  /** A PEM file: a CA bundle (the system's is about 220 KiB), a client certificate or its key. */
  pem: 1 * MiB,
  /** waivers.json */
  waivers: 1 * MiB,
  /** An Ed25519 key (PEM): a few hundred bytes. */
  key: 64 * KiB,
} as const;

/** Why a file was refused. */
export type RefusalReason = 'missing' | 'not-a-file' | 'too-large' | 'unreadable';

/** A file the suite will not read; `message` is one line, starting with the label the caller gave. */
export class FileRefused extends UsageError {
  constructor(
    message: string,
    readonly reason: RefusalReason,
  ) {
    super(message);
    this.name = 'FileRefused';
  }
}

/** Open flags: read only, never block on open (a FIFO), never become the controlling terminal. */
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
/** Bytes read at a time. */
const CHUNK = MiB;

function refusal(label: string, error: unknown): FileRefused {
  if (error instanceof FileRefused) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new FileRefused(`${label}: no such file`, 'missing');
  if (code === 'ENOTDIR') return new FileRefused(`${label}: no such file (a part of the path is not a directory)`, 'missing');
  return new FileRefused(`${label}: cannot read it (${code ?? (error as Error).message})`, 'unreadable');
}

function checkStats(stats: Stats, max: number, label: string): void {
  if (!stats.isFile())
    throw new FileRefused(`${label}: ${kindOf(stats)}, not a regular file; the suite reads only regular files`, 'not-a-file');
  if (stats.size > max)
    throw new FileRefused(`${label}: ${stats.size} bytes, more than such a file may hold (${max}); not read`, 'too-large');
}

function tooLarge(label: string, max: number): FileRefused {
  return new FileRefused(`${label}: more than ${max} bytes, more than such a file may hold; not read`, 'too-large');
}

/**
 * Reads a regular file of at most `max` bytes: the one way the CLI reads a file
 * the user names. `label` starts every message (`--config ./x.json`). Throws
 * {@link FileRefused}.
 */
export async function readBoundedFile(path: string, max: number, label: string): Promise<Buffer> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, FLAGS);
    checkStats(await handle.stat(), max, label);
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, max + 1 - size));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      size += bytesRead;
      if (size > max) throw tooLarge(label, max);
    }
    return Buffer.concat(chunks, size);
  } catch (error) {
    throw refusal(label, error);
  } finally {
    await handle?.close();
  }
}

/** Kernel pseudo-filesystems: nothing the suite writes belongs there. (/dev/shm is an ordinary tmpfs.) */
const PSEUDO = ['/proc', '/sys', '/dev'];

function pseudoFilesystem(real: string): string | undefined {
  if (sep !== '/') return undefined;
  if (real === '/dev/shm' || real.startsWith('/dev/shm/')) return undefined;
  return PSEUDO.find((root) => real === root || real.startsWith(`${root}/`));
}

/**
 * Makes sure `dir` is a directory the reports can be written to: creates it
 * (and its missing parents, one at a time) when needed, and writes and removes
 * a probe file. Returns its absolute path. Throws a one-line `UsageError`
 * starting with `label` when it cannot be. With `create: false` (a dry run) it
 * changes nothing: the nearest existing part of the path must be a directory
 * this process may write into, which is what creating and probing need
 * (a full disk or a quota is found only by writing).
 */
export async function prepareOutputDir(
  dir: string,
  label: string,
  cwd: string = process.cwd(),
  { create = true }: { create?: boolean } = {},
): Promise<string> {
  // An empty value (`--report-dir ""`, a variable left unset in a script) would write into the working folder.
  if (dir.trim() === '') throw new UsageError(`${label} is empty: give a folder (. for the working folder)`);
  const absolute = resolve(cwd, dir);
  const refuse = (why: string): never => {
    throw new UsageError(`${label} ${dir}: ${why}`);
  };
  // The folder itself a link (one committed in a cloned repository) would put the reports, and the removal of an
  // earlier run's, wherever it names: refused, saying where it leads. Links among its parents (macOS's /tmp) are followed.
  if ((await lstat(absolute).catch(() => undefined))?.isSymbolicLink()) {
    const target = await realpath(absolute).catch(() => undefined);
    refuse(
      `a symbolic link${target ? ` to ${target}` : ' to nothing'}; reports are not written through a link${target ? `: give ${target} if that is meant` : ''}`,
    );
  }
  // The nearest part of the path that exists; what lies below it is created.
  const missing: string[] = [];
  let existing = absolute;
  let info: Stats | undefined;
  for (let depth = 0; depth < 4096; depth++) {
    info = await stat(existing).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      return refuse(`cannot use it (${error.code ?? error.message})`);
    });
    if (info) break;
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  if (!info) return refuse('no part of the path exists');
  const real = await realpath(existing).catch(() => existing);
  const pseudo = pseudoFilesystem(real);
  if (pseudo) refuse(`it is below ${pseudo}, a kernel pseudo-filesystem; give a directory on an ordinary filesystem`);
  if (!info.isDirectory()) {
    const kind = info.isFile() ? 'a regular file' : kindOf(info);
    refuse(existing === absolute ? `${kind}, not a directory` : `${existing} is ${kind}, not a directory`);
  }
  if (!create) {
    await access(existing, constants.W_OK | constants.X_OK).catch((error: NodeJS.ErrnoException) =>
      refuse(`${existing === absolute ? '' : `${existing}: `}not writable (${error.code ?? error.message})`),
    );
    return absolute;
  }
  for (const path of missing) {
    await mkdir(path).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST' && (await stat(path).catch(() => undefined))?.isDirectory()) return;
      refuse(`cannot create ${path} (${error.code ?? error.message})`);
    });
  }
  const probe = join(absolute, `.petstore-conformance-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  await writeFile(probe, '', { flag: 'wx' }).catch((error: NodeJS.ErrnoException) =>
    refuse(`not writable (${error.code ?? error.message})`),
  );
  await unlink(probe).catch(() => {});
  return absolute;
}
