export interface DependencyProbe {
  name: string;
  /** Resolves when the dependency answers; rejects otherwise. */
  check(): Promise<void>;
  /** A failing optional dependency degrades the service instead of failing it. */
  optional: boolean;
  /** Why a dependency that answers is degraded (e.g. a damaged store file), or null. */
  degradedReason?: () => string | null;
}

export type HealthService = ReturnType<typeof createHealthService>;

export function createHealthService(deps: { probes: DependencyProbe[]; version: string; service: string; now: () => Date }) {
  async function checkHealth() {
    const checks: Record<string, 'ok' | 'degraded' | 'down' | 'disabled'> = {};
    const reasons: Record<string, string> = {};
    let status = 'ok' as 'ok' | 'degraded' | 'down';
    await Promise.all(
      deps.probes.map(async (probe) => {
        try {
          await withTimeout(probe.check(), 1000);
          const reason = probe.degradedReason?.() ?? null;
          checks[probe.name] = reason === null ? 'ok' : 'degraded';
          if (reason !== null) {
            reasons[probe.name] = reason;
            if (status === 'ok') status = 'degraded';
          }
        } catch {
          checks[probe.name] = 'down';
          if (!probe.optional) status = 'down';
          else if (status === 'ok') status = 'degraded';
        }
      }),
    );
    return { status, version: deps.version, service: deps.service, timestamp: deps.now().toISOString(), checks, ...(Object.keys(reasons).length > 0 && { reasons }) };
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
