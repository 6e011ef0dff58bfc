import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A proxy in the developer's environment must not reach the tests' daemons (see the file).
    setupFiles: ['test/support/no-ambient-proxy.ts'],
    // Integration tests start real servers on loopback; keep them from
    // competing for the two CI cores.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
