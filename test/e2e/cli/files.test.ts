/**
 * Files: every file the suite reads is a regular file read with a bound (a
 * FIFO or /dev/zero is refused at once, never read); the report directory is
 * checked and created before the first request; a bundle's entries are
 * bounded before they are decompressed, and verify says every problem as a
 * ✗ line.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import * as tar from 'tar';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileRefused, prepareOutputDir, readBoundedFile } from '../../../cli/files.js';
import { DISTINCTIVE_KEY, runInProcess, tempDir } from '../../helpers.js';

const dir = tempDir();
const fifo = join(dir, 'fifo');
const regular = join(dir, 'regular.txt');
beforeAll(() => {
  execFileSync('mkfifo', [fifo]);
  writeFileSync(regular, 'x'.repeat(100));
});

describe('bounded file reading (one helper, everywhere)', () => {
  it.each([
    ['a FIFO with no writer', fifo, /a FIFO \(named pipe\), not a regular file/, 'not-a-file'],
    ['/dev/zero', '/dev/zero', /a character device, not a regular file/, 'not-a-file'],
    ['a directory', dir, /a directory, not a regular file/, 'not-a-file'],
    ['a missing file', join(dir, 'nope'), /no such file/, 'missing'],
    ['a file larger than its bound', regular, /100 bytes, more than such a file may hold \(50\); not read/, 'too-large'],
  ])('%s is refused at once', async (_name, path, message, reason) => {
    // A FIFO with no writer would block its reader for ever: refused at once, within the test's default timeout.
    await expect(readBoundedFile(path, 50, 'label')).rejects.toThrow(message);
    await readBoundedFile(path, 50, 'label').catch((error: unknown) => {
      expect(error).toBeInstanceOf(FileRefused);
      expect((error as FileRefused).reason).toBe(reason);
      expect((error as Error).message.startsWith('label: ')).toBe(true);
    });
  });

  it('reads a regular file within its bound', async () => {
    expect((await readBoundedFile(regular, 100, 'x')).toString()).toBe('x'.repeat(100));
  });
});

describe('the report directory, checked before the first request', () => {
  it('is created, missing parents included, and proven writable', async () => {
    const target = join(dir, 'a', 'b', 'c');
    expect(await prepareOutputDir(target, '--report-dir')).toBe(target);
    expect(statSync(target).isDirectory()).toBe(true);
  });

  it.each([
    ['/proc/x', /--report-dir \/proc\/x: it is below \/proc, a kernel pseudo-filesystem/],
    ['/proc/self/x/y', /it is below \/proc/],
    ['/sys/x', /it is below \/sys/],
    [join(dir, 'regular.txt'), /a regular file, not a directory/],
    [join(dir, 'regular.txt', 'sub', 'dir'), /regular\.txt is a regular file, not a directory/],
  ])('%s is refused at once', async (path, message) => {
    await expect(prepareOutputDir(path, '--report-dir')).rejects.toThrow(message);
  });
});

describe('the CLI refuses unusable files and directories before anything is sent: exit 2, one line, at once', () => {
  let contacted = 0;
  let url = '';
  beforeAll(async () => {
    const server = createServer((_req, res) => {
      contacted++;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    return () => void server.close();
  });

  it.each([
    [['--report-dir', '/proc/x'], /--report-dir \/proc\/x: it is below \/proc/],
    [['--report-dir', join(dir, 'regular.txt', 'r')], /regular\.txt is a regular file, not a directory/],
    [['--config', '/dev/zero'], /cannot read the config file \/dev\/zero: a character device, not a regular file/],
    [['--config', fifo], /cannot read the config file .*fifo: a FIFO \(named pipe\)/],
    [['--ca', fifo], /--ca .*fifo: a FIFO/],
    [['--ca', '/dev/zero'], /--ca \/dev\/zero: a character device/],
    [['--cert', fifo, '--cert-key', regular], /--cert .*fifo: a FIFO/],
    [['--waivers', '/dev/zero'], /the waivers file \/dev\/zero: a character device/],
  ])('%j', async (args, message) => {
    const ran = await runInProcess(
      ['--base-url', url, '--json', ...args, ...(args.includes('--report-dir') ? [] : ['--report-dir', tempDir()])],
      { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY }, timeoutMs: 20_000 },
    );
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
    expect(contacted).toBe(0);
  });

  it('certify and verify: keys and products that are FIFOs or devices are refused at once', async () => {
    const product = join(dir, 'product.json');
    writeFileSync(product, JSON.stringify({ name: 'A', version: '1', contact: 'a@b.example' }));
    const certify = await runInProcess(['certify', '--base-url', url, '--product', '/dev/zero', '--out', join(dir, 'b.tar.gz')], {
      env: { PETSTORE_API_KEY: DISTINCTIVE_KEY },
      timeoutMs: 20_000,
    });
    expect(certify.code).toBe(2);
    expect(certify.stderr.trim()).toMatch(/--product \/dev\/zero: a character device, not a regular file/);
    const signKey = await runInProcess(
      ['certify', '--base-url', url, '--product', product, '--sign-key', fifo, '--out', join(dir, 'b.tar.gz')],
      { env: { PETSTORE_API_KEY: DISTINCTIVE_KEY }, timeoutMs: 20_000 },
    );
    expect(signKey.code).toBe(2);
    expect(signKey.stderr.trim()).toMatch(/--sign-key .*fifo: a FIFO/);
    const verify = await runInProcess(['verify', fifo], { timeoutMs: 20_000 });
    expect(verify.code).toBe(2);
    expect(verify.stderr.trim()).toMatch(/fifo: a FIFO/);
    expect(contacted).toBe(0);
  });
});

describe('verify: a bundle whose entries are too large is read within bounds, and says so', () => {
  it('a 300 MB product.json in a bundle of well under 1 MB: a ✗ line, exit 1, bounded memory, no internal error', async () => {
    const bundle = join(dir, 'bomb.tar.gz');
    const size = 300 * 1024 * 1024;
    const header = (path: string, bytes: number) => {
      const h = new tar.Header({ path, mode: 0o644, size: bytes, mtime: new Date(0), type: 'File', uid: 0, gid: 0 });
      h.encode();
      return h.block!;
    };
    const manifest = Buffer.from('{"format":"petstore-conformance-certification/1"}\n');
    async function* archive() {
      yield header('manifest.json', manifest.length);
      yield Buffer.concat([manifest, Buffer.alloc(512 - (manifest.length % 512))]);
      yield header('product.json', size);
      const zeros = Buffer.alloc(1024 * 1024, 0x20);
      for (let i = 0; i < size / zeros.length; i++) yield zeros;
      yield Buffer.alloc(1024);
    }
    await pipeline(Readable.from(archive()), createGzip({ level: 9 }), createWriteStream(bundle));
    expect(statSync(bundle).size).toBeLessThan(1024 * 1024);
    const ran = await runInProcess(['verify', bundle], { timeoutMs: 60_000 });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toMatch(
      new RegExp(`✗ product\\.json: ${size} bytes, more than a bundle's product\\.json may hold \\(65536\\); not read`),
    );
    expect(ran.stdout).toMatch(/✗ manifest\.json: not a certification manifest|✗ manifest\.json: "suiteHash" is missing/);
    expect(ran.stdout).not.toMatch(/internal error/);
  });

  it('each oddity is a ✗ line: a directory entry, a path, a file twice', async () => {
    const staging = join(dir, 'odd');
    mkdirSync(join(staging, 'sub'), { recursive: true });
    writeFileSync(join(staging, 'sub', 'x.txt'), 'x');
    writeFileSync(join(staging, 'manifest.json'), '{}');
    const bundle = join(dir, 'odd.tar.gz');
    await tar.c({ gzip: true, file: bundle, cwd: staging }, ['manifest.json', 'sub', 'manifest.json']);
    const ran = await runInProcess(['verify', bundle], { timeoutMs: 30_000 });
    expect(ran.code).toBe(1);
    const problems = ran.stdout.split('\n').filter((l) => l.startsWith('✗'));
    expect(problems).toEqual(
      expect.arrayContaining([
        '✗ "sub/": a Directory entry, not a file (a bundle holds only files)',
        '✗ "sub/x.txt": a path, not a file name (a bundle holds flat files only)',
        '✗ manifest.json: appears twice in the archive',
      ]),
    );
    expect(readFileSync(bundle).length).toBeGreaterThan(0);
  });
});
