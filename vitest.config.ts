import { defineConfig } from 'vitest/config';

// Two tiers: `npm test` is the quick one; `npm run test:full` (PARALENS_TEST_TIER=full) adds the
// files named *.full.test.ts — long training runs, corpora, browsers, kill loops, the docs examples.
const full = process.env.PARALENS_TEST_TIER === 'full';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: full ? ['**/node_modules/**'] : ['**/node_modules/**', 'test/**/*.full.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
