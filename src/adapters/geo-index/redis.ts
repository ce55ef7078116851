import type { Redis } from 'ioredis';
import { distanceMeters } from '../../domain/geo.js';
import type { LatLng, Mode, VehicleType } from '../../domain/types.js';
import type { CourierGeoIndex, NearbyCourier } from '../../ports/geo-index.js';

/**
 * Search radius when the caller gives none: more than the diagonal of the service area
 * (~245 km), so "no limit" means the same here as in the embedded adapter.
 */
const UNBOUNDED_RADIUS_M = 300_000;

/**
 * Redis measures with a larger earth radius (6,372,797.56 m) than distanceMeters, so its
 * distances are ~0.03% longer: search slightly wider, then cut with distanceMeters.
 */
const RADIUS_MARGIN = 1.001;

/**
 * The distributed geo index: a Redis GEO set per mode and vehicle type
 * (`{keyPrefix}:{mode}:{vehicle}`), shared by every node. A courier's vehicle never changes, so
 * an upsert touches only its own set.
 *
 * Redis down: the client has no offline queue, so upsert, remove and nearest reject at once;
 * callers decide (dispatch queues the order, the store stays the source of truth).
 */
export function createRedisGeoIndex(options: { redis: Redis; keyPrefix?: string }): CourierGeoIndex {
  const { redis } = options;
  const prefix = options.keyPrefix ?? 'geo:couriers';
  const keyOf = (mode: Mode, vehicle: VehicleType) => `${prefix}:${mode}:${vehicle}`;

  return {
    async upsert({ courierId, mode, vehicle, location }) {
      await redis.geoadd(keyOf(mode, vehicle), location.lng, location.lat, courierId);
    },

    async remove({ courierId, mode, vehicle }) {
      await redis.zrem(keyOf(mode, vehicle), courierId);
    },

    async nearest({ mode, vehicles, point, limit, maxDistanceM }): Promise<NearbyCourier[]> {
      if (limit <= 0 || vehicles.length === 0) return [];
      const radius = (maxDistanceM ?? UNBOUNDED_RADIUS_M) * RADIUS_MARGIN;
      const pipeline = redis.pipeline();
      for (const vehicle of new Set(vehicles)) {
        pipeline.geosearch(keyOf(mode, vehicle), 'FROMLONLAT', point.lng, point.lat, 'BYRADIUS', radius, 'm', 'ASC', 'COUNT', limit, 'WITHCOORD');
      }
      const replies = (await pipeline.exec()) ?? [];

      // Distances from the stored (geohash-rounded) coordinates, with the same formula as the
      // embedded adapter; nearest occurrence wins should a courier sit in two vehicle sets.
      const best = new Map<string, number>();
      for (const [error, reply] of replies) {
        if (error) throw error;
        for (const [courierId, location] of parseWithCoord(reply)) {
          const distanceM = distanceMeters(point, location);
          if (maxDistanceM !== undefined && distanceM > maxDistanceM) continue;
          const known = best.get(courierId);
          if (known === undefined || distanceM < known) best.set(courierId, distanceM);
        }
      }
      return [...best]
        .map(([courierId, distanceM]) => ({ courierId, distanceM }))
        .sort((a, b) => a.distanceM - b.distanceM)
        .slice(0, limit);
    },
  };
}

/** GEOSEARCH … WITHCOORD replies `[[member, [lng, lat]], …]` with numbers as strings. */
function parseWithCoord(reply: unknown): Array<[string, LatLng]> {
  return (reply as Array<[string, [string, string]]>).map(([member, [lng, lat]]) => [member, { lat: Number(lat), lng: Number(lng) }]);
}
