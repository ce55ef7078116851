import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Load graphql as Node does in production (its CommonJS build). Vite would pick index.mjs for
    // our sources while CJS dependencies (graphql-armor) get index.js: two GraphQLError classes.
    alias: [{ find: /^graphql$/, replacement: fileURLToPath(new URL('node_modules/graphql/index.js', import.meta.url)) }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/web-build.ts'],
    // Every REST response and webhook delivery a test sees is checked against the OpenAPI document.
    setupFiles: ['test/helpers/wire-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files share their worker's module cache: isolation re-evaluated the whole server (and the
    // OpenAPI validator) for each of 250 files, about 40% of the run. Nothing a test changes is
    // global (each app has its own container, registry and data directory); wire-setup wraps fetch once.
    isolate: false,
    // Vitest's default on 2 cores is one worker, and most of a test's time is spent waiting on a
    // server, a browser or a child process (docs/decisions/0063-suite-time-shared-workers-two-of-them-a-jongodb-per-file.md: 33 min → 12 min with isolate: false).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
  },
});
