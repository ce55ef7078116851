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
    reporters: ['default'],
  },
});
