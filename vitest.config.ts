import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A test file spends most of its time waiting (on a CLI child process, a server, a deadline), so files run at
    // least two at a time: vitest's default (cores - 1) runs them one by one on a two-core machine.
    maxWorkers: Math.max(2, availableParallelism()),
    // A worker keeps its modules (and their compiled code) from one file to the next: most files load the engine, and
    // loading it afresh per file cost a fifth of the run's CPU. No test mocks a module or changes process-wide state.
    isolate: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    env: { NO_COLOR: '1' },
    // Fails the run when a test wrote into the repository (tests write only inside temporary folders).
    globalSetup: ['test/global-setup.ts'],
  },
});
