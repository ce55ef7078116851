import { join } from 'node:path';
import type { Logger } from '../../logger.js';
import type { Store } from '../../ports/store.js';
import { createDamageRecord, damaged, inspectStoreFile, isDamage, markStoreCreated, startQuickCheck } from './integrity.js';
import { createSqliteStore, SQLITE_FILE_NAME } from './store.js';

/**
 * The embedded store as the server and the admin CLI open it: the file is inspected first (a
 * missing, empty, foreign, truncated or unreadable file stops the start with a DamagedStoreError
 * naming what is wrong and how to restore), then opened, then `quick_check`ed for up to
 * `checkBudgetMs` before serving; a check still running then goes on in the background, and damage
 * it finds — or any statement meets later — turns the store degraded (/health) and answers 503.
 */
export async function openSqliteStore(options: { dataDir: string; create: boolean; checkBudgetMs: number; logger: Logger; lockWaitMs?: number }): Promise<Store> {
  const file = join(options.dataDir, SQLITE_FILE_NAME);
  inspectStoreFile({ file, create: options.create });
  const damage = createDamageRecord((reason) => options.logger.error({ file, reason }, 'store damaged: restore it from a backup (docs/operations.md "Backups and restore")'));
  let store: Store;
  try {
    store = createSqliteStore({ dataDir: options.dataDir, damage, lockWaitMs: options.lockWaitMs });
  } catch (error) {
    if (isDamage(error)) throw damaged(file, `SQLite: ${(error as Error).message}`);
    throw error;
  }
  const check = startQuickCheck({ file, budgetMs: options.checkBudgetMs, onLate: (reason) => damage.report(reason) });
  const outcome = await check.outcome;
  if (outcome.state === 'damaged') {
    check.stop();
    await store.close().catch(() => {});
    throw damaged(file, outcome.reason);
  }
  if (outcome.state === 'running') {
    options.logger.warn({ file, budgetMs: options.checkBudgetMs }, 'quick_check of the store goes on in the background (STORE_CHECK_BUDGET_MS passed); damage it finds turns /health degraded');
  }
  if (outcome.state === 'unchecked') options.logger.warn({ file, reason: outcome.reason }, 'quick_check of the store could not run');
  markStoreCreated(file);
  const close = store.close.bind(store);
  store.close = async () => {
    check.stop();
    await close();
  };
  return store;
}
