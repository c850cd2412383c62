import { availableParallelism } from 'node:os';
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
    // vitest's default is one worker fewer than the cores: one on a two-core machine. The quick
    // tier's files are small and many (their time is mostly module loading), so it runs a worker
    // per core; the full tier's long runs and browsers keep the default.
    ...(tier === 'quick' ? { maxWorkers: Math.max(2, availableParallelism()), isolate: false } : {}),
  },
});
