import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A test file spends most of its time waiting (on a CLI child process, a server, a deadline), so files run at
    // least two at a time: vitest's default (cores - 1) runs them one by one on a two-core machine.
    maxWorkers: Math.max(2, availableParallelism()),
    testTimeout: 120_000,
    hookTimeout: 60_000,
    env: { NO_COLOR: '1' },
    // Fails the run when a test wrote into the repository (tests write only inside temporary folders).
    globalSetup: ['test/global-setup.ts'],
  },
});
