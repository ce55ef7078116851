import type { Logger } from '../../logger.js';
import type { CourierGeoIndex } from '../../ports/geo-index.js';

/**
 * Keeps dispatch working while the geo index's backend (Redis) is down: a failed lookup proposes
 * no courier (orders queue, as when none is near), a failed update is skipped (the courier's next
 * position report puts it back). One warning per outage, one notice when it answers again.
 */
export function withGeoIndexFallback(index: CourierGeoIndex, logger: Logger): CourierGeoIndex & { healthy(): boolean } {
  let down = false;
  const failed = (error: unknown) => {
    if (!down) logger.warn({ err: (error as Error).message }, 'courier geo index unavailable; orders queue until it returns');
    down = true;
  };
  const ok = () => {
    if (down) logger.info('courier geo index available again');
    down = false;
  };
  const guard = async <T>(call: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      const result = await call();
      ok();
      return result;
    } catch (error) {
      failed(error);
      return fallback;
    }
  };
  return {
    upsert: (options) => guard(() => index.upsert(options), undefined),
    remove: (options) => guard(() => index.remove(options), undefined),
    nearest: (options) => guard(() => index.nearest(options), []),
    healthy: () => !down,
  };
}
