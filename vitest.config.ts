import { defineConfig } from 'vitest/config';

// Two tiers: `npm test` is the quick one; `npm run test:full` (PARALENS_TEST_TIER=full) adds the
// files named *.full.test.ts — long training runs, corpora, browsers, kill loops, the docs
// examples. `.ci/run` runs `npm test` and then the rest alone (PARALENS_TEST_TIER=full-only).
const tier = process.env.PARALENS_TEST_TIER ?? 'quick';
const FULL = 'test/**/*.full.test.ts';

export default defineConfig({
  test: {
    include: tier === 'full-only' ? [FULL] : ['test/**/*.test.ts'],
    exclude: tier === 'quick' ? ['**/node_modules/**', FULL] : ['**/node_modules/**'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
