import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerProcess } from '../helpers/process.js';
import { MONGO_SKIP_REASON, sleep, startCluster, until, type Cluster } from './support.js';

const TICK_MS = 200;
/** The lease: five ticks, at least 5 s (src/sandbox-runner.ts). */
const LEASE_MS = Math.max(TICK_MS * 5, 5000);
const DRIVES = '"msg":"sandbox simulator: this node drives the fleet"';

const drivesCount = (node: ServerProcess) => node.output().split(DRIVES).length - 1;

/**
 * SANDBOX_SIMULATOR=true on both nodes of a MongoDB cluster (as docker-compose sets it): one node
 * drives the simulated fleet, by the `sandbox-simulator` lease in the store; when it dies, the
 * other takes over once the lease has run out.
 */
describe.skipIf(MONGO_SKIP_REASON)(`the sandbox simulator on two nodes${MONGO_SKIP_REASON ? ` (${MONGO_SKIP_REASON})` : ''}`, () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster({
      store: 'mongodb',
      nodes: 2,
      couriers: 0,
      env: { SANDBOX_SIMULATOR: 'true', SANDBOX_TICK_MS: String(TICK_MS), SANDBOX_COURIERS_PER_VEHICLE: '1' },
    });
  }, 120_000);
  afterAll(() => cluster?.stop());

  it('exactly one node drives the fleet, tick after tick', async () => {
    await until(() => cluster.nodes.some((n) => drivesCount(n) > 0), 'a node to drive the fleet', 10_000, 50);
    await sleep(TICK_MS * 10);
    expect(cluster.nodes.map(drivesCount).sort()).toEqual([0, 1]);
  });

  it('the leader SIGKILLed: the other node takes over once the lease runs out', async () => {
    const leader = cluster.nodes.find((n) => drivesCount(n) > 0)!;
    const follower = cluster.nodes.find((n) => n !== leader)!;
    await leader.kill();
    const killedAt = Date.now();
    await until(() => drivesCount(follower) > 0, 'the other node to drive the fleet', LEASE_MS + 10_000, 50);
    const takeoverMs = Date.now() - killedAt;
    console.info(`simulator-lease: takeover ${takeoverMs} ms after SIGKILL (lease ${LEASE_MS} ms)`);
    expect(takeoverMs).toBeLessThan(LEASE_MS + 10_000);
  });
});
