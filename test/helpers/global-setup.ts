import type { TestProject } from 'vitest/node';
import { acquireMongo } from './mongo.js';

/** Starts one MongoDB test server (jongodb unless MONGODB_URL is set) shared by every test file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { mongo, skipReason } = await acquireMongo();
  project.provide('mongo', { url: mongo?.url ?? null, kind: mongo?.kind ?? null, skipReason });
  return async () => {
    await mongo?.stop();
  };
}
