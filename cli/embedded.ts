import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PcError } from '../core/errors.js';
import { PACKAGE_ROOT } from '../core/version.js';

/** Set in the child's environment: it stops when its stdin ends, i.e. when the parent is gone, however it went. */
export const STOP_WITH_PARENT_ENV = 'PETSTORE_CONFORMANCE_STOP_WITH_PARENT';

/**
 * The embedded reference in a child process (`serve --port 0`): the load
 * generator's CPU share and event loop are then its own, not shared with the
 * server it measures. It never outlives the run: `close` stops it, `kill`
 * kills it at once (a second Ctrl-C), and it stops by itself when the pipe to
 * its stdin closes (the parent was killed).
 */
export async function startReferenceProcess(apiKey: string): Promise<{ url: string; pid: number; close(): Promise<void>; kill(): void }> {
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'petstore-conformance.js'), 'serve', '--port', '0'], {
    env: { ...process.env, PETSTORE_API_KEY: apiKey, [STOP_WITH_PARENT_ENV]: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Never written to; it closes when this process ends.
  child.stdin.on('error', () => {});
  child.stderr.resume();
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => fail('it did not start within 10 s'), 10_000);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new PcError('PC_ERR_INTERNAL', `the embedded reference implementation could not start: ${why}`));
    };
    child.once('exit', (code) => fail(`it exited with code ${code}`));
    child.once('error', (error) => fail(error.message));
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /(https?:\/\/\S+\/v1)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve(match[1]!);
      }
    });
  });
  return {
    url,
    pid: child.pid!,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        // SIGTERM lets it close its connections; one that has not exited 5 s later is killed.
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
