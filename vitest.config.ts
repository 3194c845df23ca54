import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A test file spends part of its time waiting (on a server, a load profile's seconds, a deadline), so files run one
    // more at a time than there are cores: vitest's default (cores - 1) runs them one by one on a two-core machine.
    // On two cores: 153 s with two workers, 131 s with three, 125 s with four (more contention for timed tests).
    maxWorkers: Math.max(2, availableParallelism() + 1),
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
