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
    // vitest's default is one worker fewer than the cores: one on a two-core machine, which
    // re-imported the library for every file (a third of the quick tier's time). The quick tier
    // runs a worker per core (two to four), each loading the library once for all its files
    // (isolate: false: a test must leave no state behind — the CLI helper puts back the backend,
    // the catalogue tests range over the built-in layers); the full tier keeps the defaults.
    ...(tier === 'quick' ? { maxWorkers: Math.min(4, Math.max(2, availableParallelism())), isolate: false } : {}),
  },
});
