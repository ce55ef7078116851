import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One Meal Delivery Routing Problem instance (grubhub/mdrplib): tab-separated files with a header
 * line; metres on a plane, minutes from the start of the day.
 */
export interface MdrpOrder { id: string; x: number; y: number; placement: number; restaurant: string; ready: number }
export interface MdrpRestaurant { id: string; x: number; y: number }
export interface MdrpCourier { id: string; x: number; y: number; on: number; off: number }
export interface MdrpInstance {
  name: string;
  orders: MdrpOrder[];
  restaurants: Map<string, MdrpRestaurant>;
  couriers: MdrpCourier[];
  metersPerMinute: number;
  pickupServiceMins: number;
  dropoffServiceMins: number;
  targetClickToDoor: number;
  maxClickToDoor: number;
}

function table(dir: string, file: string): string[][] {
  const lines = readFileSync(join(dir, file), 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  return lines.slice(1).map((l) => l.split(/\t| +/).map((c) => c.trim()));
}

export function readInstance(dir: string): MdrpInstance {
  const orders = table(dir, 'orders.txt').map(([id, x, y, placement, restaurant, ready]) => ({
    id: id!, x: Number(x), y: Number(y), placement: Number(placement), restaurant: restaurant!, ready: Number(ready),
  }));
  const restaurants = new Map(table(dir, 'restaurants.txt').map(([id, x, y]) => [id!, { id: id!, x: Number(x), y: Number(y) }]));
  const couriers = table(dir, 'couriers.txt').map(([id, x, y, on, off]) => ({ id: id!, x: Number(x), y: Number(y), on: Number(on), off: Number(off) }));
  const [params] = table(dir, 'instance_parameters.txt');
  const [mpm, pickup, dropoff, target, max] = params!.map(Number);
  return {
    name: dir.replace(/\/+$/, '').split('/').at(-1)!,
    orders, restaurants, couriers,
    metersPerMinute: mpm!, pickupServiceMins: pickup!, dropoffServiceMins: dropoff!, targetClickToDoor: target!, maxClickToDoor: max!,
  };
}

/** The evaluator's travel time: whole minutes, rounded up, in a straight line. */
export function travelMinutes(instance: MdrpInstance, a: { x: number; y: number }, b: { x: number; y: number }): number {
  return Math.ceil(Math.hypot(a.x - b.x, a.y - b.y) / instance.metersPerMinute);
}

/** Where an instance's place (order, restaurant or courier start) is, by its id. */
export function locationsOf(instance: MdrpInstance): Map<string, { x: number; y: number }> {
  const places = new Map<string, { x: number; y: number }>();
  for (const o of instance.orders) places.set(o.id, o);
  for (const r of instance.restaurants.values()) places.set(r.id, r);
  for (const c of instance.couriers) places.set(c.id, c);
  return places;
}
