import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { seedDemoMerchant } from './domain/seed.js';

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
  const { port } = await app.start();

  if (config.seedDemo && container.store.kind === 'sqlite') {
    const demo = await seedDemoMerchant({ store: container.store, admin: container.services.admin, merchants: container.services.merchants });
    // Printed once, straight to the terminal and never through the logger: only hashes are kept.
    if (demo) {
      process.stdout.write(
        [
          '',
          'Demo merchant created (these credentials are shown only now):',
          `  merchant_id  ${demo.merchantId}`,
          `  live key     ${demo.liveKey}`,
          `  test key     ${demo.testKey}`,
          `  api secret   ${demo.apiSecret}`,
          `  try: curl -H "Authorization: Bearer ${demo.testKey}" http://localhost:${port}/api/v1/merchants/me`,
          '',
        ].join('\n') + '\n',
      );
    }
  }

  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    container.logger.info({ signal }, 'draining and shutting down');
    app.stop().then(
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
