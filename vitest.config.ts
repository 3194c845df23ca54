import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    env: { NO_COLOR: '1' },
    // Fails the run when a test wrote into the repository (tests write only inside temporary folders).
    globalSetup: ['test/global-setup.ts'],
  },
});
