import { join } from 'node:path';
import { writePrivateFile } from './adapters/private-files.js';
import { buildApp, CLOSE_BUDGET_MS } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { announceFirstOperatorLink } from './first-operator.js';
import { DEMO_CREDENTIALS_FILE, seedDemoMerchant } from './domain/seed.js';

/** Past the grace, the adapters' close budget (CLOSE_BUDGET_MS) and a margin: the last word. */
const SHUTDOWN_CLOSE_MS = 950;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const app = await buildApp({ config });
  const { container } = app;
  await app.start();

  if (config.seedDemo && container.store.kind === 'sqlite') {
    const demo = await seedDemoMerchant({ store: container.store, admin: container.services.admin, merchants: container.services.merchants });
    if (demo) {
      const text = [
        'Demo merchant created (these credentials are shown only now):',
        `  merchant_id  ${demo.merchantId}`,
        `  live key     ${demo.liveKey}`,
        `  test key     ${demo.testKey}`,
        `  api secret   ${demo.apiSecret}`,
        `  try: curl -H "Authorization: Bearer ${demo.testKey}" ${config.publicBaseUrl}/api/v1/merchants/me`,
      ].join('\n');
      if (config.production) {
        // Standard output is the log stream in production: the credentials go to an owner-only file.
        const file = join(config.dataDir, DEMO_CREDENTIALS_FILE);
        writePrivateFile(file, `${text}\n`);
        container.logger.warn({ merchantId: demo.merchantId, file }, 'demo merchant seeded (SEED_DEMO=true); its credentials are in the file, readable by this user only');
      } else {
        // Printed once, straight to the terminal and never through the logger: only hashes are kept.
        process.stdout.write(`\n${text}\n\n`);
      }
    }
  }

  await announceFirstOperatorLink(container).catch((error: unknown) => container.logger.warn({ err: (error as Error).message }, 'could not issue the first operator set-up link; use npm run admin -- operator:invite'));

  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    container.logger.info({ signal }, 'draining and shutting down');
    // The drain ends by the grace (src/http-drain.ts) and every close is bounded (store and bus
    // deadlines); this is the last word should one still hang: the process is gone within the grace + 1 s.
    setTimeout(() => {
      container.logger.warn({ signal }, 'shutdown exceeded its grace; exiting');
      container.logger.flush();
      process.exit(1);
    }, config.shutdownGraceMs + SHUTDOWN_CLOSE_MS).unref();
    app.stop({ closeBudgetMs: CLOSE_BUDGET_MS }).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
