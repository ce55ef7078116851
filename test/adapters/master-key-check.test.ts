/** A master key that cannot open the stored secrets stops the boot with a message that says so. */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDataDir, startTestApp } from '../helpers/app.js';
import { mongoForTestFile, mongoNodeEnv, uniqueDbName } from '../helpers/mongo.js';

const ROOT = new URL('../../', import.meta.url);

describe('boot check: the master key must open the stored secrets', () => {
  const dataDir = makeDataDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('the key the secrets were written with starts again', async () => {
    const first = await startTestApp({ dataDir });
    await first.createMerchant({ name: 'Key Shop' });
    await first.stop();
    const again = await startTestApp({ dataDir });
    await again.stop();
  });

  it('another MASTER_KEY is refused, naming the key, the store and the way out', async () => {
    await expect(startTestApp({ dataDir, env: { MASTER_KEY: randomBytes(32).toString('base64') } })).rejects.toThrow(
      /^Refusing to start: the master key \(MASTER_KEY\) cannot decrypt the API secrets stored in .*exd-test-.*deploy\/init-secrets\.sh/,
    );
  });

  it('a replaced DATA_DIR/master.key is refused too; the original one works again', async () => {
    const file = join(dataDir, 'master.key');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, randomBytes(32).toString('base64'));
    await expect(startTestApp({ dataDir })).rejects.toThrow(`the master key (${dataDir}/master.key) cannot decrypt`);
    writeFileSync(file, original);
    await (await startTestApp({ dataDir })).stop();
  });

  it('the server process prints the refusal and exits 1', async () => {
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', MASTER_KEY: randomBytes(32).toString('base64'), SANDBOX_SIMULATOR: 'false' },
    });
    const failure = (await run.then(() => null, (error: unknown) => error)) as { code: number; stderr: string } | null;
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain('Refusing to start: the master key (MASTER_KEY) cannot decrypt the API secrets');
  });
});

const { mongo, skipReason } = await mongoForTestFile();
if (!mongo) console.warn(skipReason);

describe.skipIf(!mongo)('boot check with MongoDB: every node must bring the MASTER_KEY the secrets were written with', () => {
  const env = { ...(mongo ? mongoNodeEnv(mongo) : { MONGODB_URL: '' }), MONGODB_DB: uniqueDbName('masterkey'), MASTER_KEY: randomBytes(32).toString('base64'), WEBHOOK_WORKER: 'false' };
  afterAll(() => mongo?.stop());

  it('starts with its key, refuses a new one (as a regenerated MASTER_KEY would be)', async () => {
    const first = await startTestApp({ env });
    await first.createMerchant({ name: 'Mongo Key Shop' });
    await first.stop();
    await (await startTestApp({ env })).stop();
    await expect(startTestApp({ env: { ...env, MASTER_KEY: randomBytes(32).toString('base64') } })).rejects.toThrow(
      `the master key (MASTER_KEY) cannot decrypt the API secrets stored in MongoDB database ${env.MONGODB_DB}`,
    );
  });
});
