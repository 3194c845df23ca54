import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A test file spends part of its time waiting (on a server, a load profile's seconds, a deadline), so files run one
    // more at a time than there are cores: vitest's default (cores - 1) runs them one by one on a two-core machine.
    // On two cores: 153 s with two workers, 131 s with three, 125 s with four (more contention for timed tests).
    maxWorkers: Math.max(2, availableParallelism() + 1),
    // A worker keeps its modules (and their compiled code) from one file to the next: most files load the engine, and
    // loading it afresh per file cost a fifth of the run's CPU. No test mocks a module or changes process-wide state.
    isolate: false,
    env: { NO_COLOR: '1' },
    // Fails the run when a test wrote into the repository (tests write only inside temporary folders).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        // No socket, process or waiting timer (test/unit/repo/unit-guard.test.ts keeps it so): vitest's own timeouts
        // (5 s a test, 10 s a hook) hold; a test that needs more CPU than that says so with its own timeout.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        // Servers on port 0, the CLI, load profiles. A test's timeout is what its step needs: one suite run of a few cases
        // against a server on loopback (2 to 6 s on a quiet two-core machine) five times over, for a runner that shares its
        // cores with other work; a file whose steps need more (a load profile's seconds, several runs, a deadline waited
        // out) sets its own from what they do.
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 30_000 },
      },
    ],
  },
});
