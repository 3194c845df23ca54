import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PcError } from '../core/errors.js';
import { PACKAGE_ROOT } from '../core/version.js';

/**
 * The embedded reference in a child process (`serve --port 0`): the load
 * generator's CPU share and event loop are then its own, not shared with the
 * server it measures.
 */
export async function startReferenceProcess(apiKey: string): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'petstore-conformance.js'), 'serve', '--port', '0'], {
    env: { ...process.env, PETSTORE_API_KEY: apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
