import { defineConfig } from 'vitest/config';
import full from './vitest.config.js';

/**
 * The fast lane (`npm run test:fast`): unit, property and contract tests — no app server, no
 * browser, no web build. The contract suites still run on both stores (SQLite on disk, jongodb and
 * redis-server), as in the full run; `npm test` runs these files too. (Replaced, not merged: vite's
 * mergeConfig would concatenate the include and globalSetup lists.)
 */
export default defineConfig({
  ...full,
  test: {
    ...full.test,
    include: ['test/domain/**/*.test.ts', 'test/contract/**/*.test.ts', 'test/adapters/**/*.test.ts'],
    // These two start an app: they stay in the full run only.
    exclude: ['test/adapters/master-key-check.test.ts', 'test/adapters/sqlite-damaged-store.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
  },
});
