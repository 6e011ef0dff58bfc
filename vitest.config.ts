import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real servers on loopback; keep them from
    // competing for the two CI cores.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
