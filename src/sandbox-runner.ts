import type { Container } from './container.js';
import { nodeOwnerId } from './reconciler-runner.js';

/** The simulated fleet is driven by one node at a time: the holder of this lease. */
export const SIMULATOR_LEASE = 'sandbox-simulator';

/**
 * Runs the sandbox simulator on a timer, on one node at a time whatever SANDBOX_SIMULATOR says on
 * the others: each tick first takes or renews a lease in the store (five ticks long, at least
 * 5 s), so two nodes never drive the same couriers and a dead node's fleet is picked up by
 * another within the lease. A tick never overlaps the previous one.
 */
export async function startSandboxSimulator(container: Container): Promise<{ stop(): Promise<void> }> {
  const { sandbox } = container.config;
  if (!sandbox.simulator) return { stop: async () => {} };
  const { store, services, logger } = container;
  const owner = nodeOwnerId();
  const ttlMs = Math.max(sandbox.tickMs * 5, 5000);
  let fleetReady = false;
  let leading = false;
  let running: Promise<void> | null = null;

  const tick = async () => {
    const held = await store.leases.acquire({ name: SIMULATOR_LEASE, owner, ttlMs });
    if (held !== leading) logger.info({ owner }, held ? 'sandbox simulator: this node drives the fleet' : 'sandbox simulator: another node drives the fleet');
    leading = held;
    if (!held) return;
    if (!fleetReady) {
      await services.sandbox.ensureSimulatedFleet({ perVehicle: sandbox.couriersPerVehicle });
      fleetReady = true;
    }
    await services.sandbox.tick({ seconds: sandbox.tickMs / 1000, defaultSpeed: sandbox.speed });
    const scaled = await services.sandbox.scaleFleet({ base: sandbox.couriersPerVehicle, max: sandbox.fleetMax });
    if (scaled.added + scaled.retired > 0) logger.info(scaled, 'sandbox simulator: the fleet follows the waiting test orders');
  };
  const run = () => {
    if (running) return;
    running = tick()
      .catch((error: unknown) => logger.warn({ err: (error as Error).message }, 'sandbox tick failed'))
      .finally(() => (running = null));
  };
  // The first tick before start() resolves: a leading node has its fleet when it starts serving.
  await tick().catch((error: unknown) => logger.warn({ err: (error as Error).message }, 'sandbox tick failed'));
  const timer = setInterval(run, sandbox.tickMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      if (leading) await store.leases.release({ name: SIMULATOR_LEASE, owner }).catch(() => {});
    },
  };
}
