import type { Container } from './container.js';

/**
 * Runs the sandbox simulator on a timer (embedded default; in distributed mode enable it on one
 * node only, SANDBOX_SIMULATOR=true there and false elsewhere). A tick never overlaps the previous one.
 */
export async function startSandboxSimulator(container: Container): Promise<{ stop(): void }> {
  const { sandbox } = container.config;
  if (!sandbox.simulator) return { stop() {} };
  await container.services.sandbox.ensureSimulatedFleet({ perVehicle: sandbox.couriersPerVehicle });
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    container.services.sandbox
      .tick({ seconds: sandbox.tickMs / 1000, defaultSpeed: sandbox.speed })
      .catch((error: unknown) => container.logger.warn({ err: (error as Error).message }, 'sandbox tick failed'))
      .finally(() => (running = false));
  }, sandbox.tickMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
