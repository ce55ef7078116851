import type { StoreCondition } from '../ports/store-condition.js';

export interface DependencyProbe {
  name: string;
  /** Resolves when the dependency answers (with its condition, when it can say it is degraded); rejects otherwise. */
  check(): Promise<StoreCondition | void>;
  /** A failing optional dependency degrades the service instead of failing it. */
  optional: boolean;
}

export type HealthService = ReturnType<typeof createHealthService>;

export function createHealthService(deps: { probes: DependencyProbe[]; version: string; service: string; now: () => Date }) {
  async function checkHealth() {
    const checks: Record<string, 'ok' | 'degraded' | 'down' | 'disabled'> = {};
    // Why a dependency that answers is degraded (e.g. store: "the disk holding the database is full").
    const reasons: Record<string, string> = {};
    let status = 'ok' as 'ok' | 'degraded' | 'down';
    await Promise.all(
      deps.probes.map(async (probe) => {
        try {
          const condition = await withTimeout(probe.check(), 1000);
          checks[probe.name] = condition?.status ?? 'ok';
          if (condition?.status === 'degraded') {
            reasons[probe.name] = condition.reason;
            if (status === 'ok') status = 'degraded';
          }
        } catch {
          checks[probe.name] = 'down';
          if (!probe.optional) status = 'down';
          else if (status === 'ok') status = 'degraded';
        }
      }),
    );
    const timestamp = deps.now().toISOString();
    return { status, version: deps.version, service: deps.service, timestamp, checks, ...(Object.keys(reasons).length > 0 && { reasons }) };
  }
  /** Name and version, without probing anything (the landing page). */
  const describeService = () => ({ service: deps.service, version: deps.version });
  return { checkHealth, describeService };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
