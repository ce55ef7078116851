import type { TestProject } from 'vitest/node';
import { acquireMongo } from './mongo.js';

/**
 * Which MongoDB the test files use: MONGODB_URL, or jongodb, checked here to start (under
 * REQUIRE_FAULT_SUITE=1 a jongodb that does not start fails the run). Each file then starts a jongodb
 * of its own (test/helpers/mongo.ts: mongoForTestFile).
 */
export default async function setup(project: TestProject): Promise<void> {
  const { mongo, skipReason } = await acquireMongo();
  project.provide('mongo', { url: mongo?.kind === 'external' ? mongo.url : null, kind: mongo?.kind ?? null, skipReason });
  if (mongo?.kind === 'jongodb') await mongo.stop();
}
