import type { Store } from '../../ports/store.js';
import { timeScaleOf } from '../sandbox-time.js';
import { vehicleTariff, type Tariff } from '../tariffs.js';
import type { Courier, EtaAnnouncement, LatLng, Order, WebhookDelivery } from '../types.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { EtaChangeReason } from '../webhooks/payloads.js';
import { ORDER_STATUS_SETS } from '../vocabulary.js';
import { estimateDeliveries } from './route-estimate.js';

/** A new estimate is written only when it moved this much (of the order's own pace): reports stay cheap. */
export const ETA_WRITE_THRESHOLD_MS = 60_000;
/** Never below this in the sandbox, however fast it runs. */
const ETA_WRITE_FLOOR_MS = 5_000;
/** order.eta_changed when the estimate moved this much (of the order's own pace) from the last one announced… */
export const ETA_ANNOUNCE_THRESHOLD_MS = 3 * 60_000;
/** …at most once per order in this (wall-clock) interval, across every node. */
export const ETA_ANNOUNCE_INTERVAL_MS = 2 * 60_000;
/** The store slot that holds an order's announcement interval across nodes. */
export const etaAnnouncementSlot = (orderId: string) => `eta-changed:${orderId}`;

/** The statuses whose estimate follows the courier; a finished or cancelled order is never written. */
/** A merchant's sandbox speed is read at most this often per node. */
const SCALE_CACHE_MS = 10_000;

export type LiveEtaService = ReturnType<typeof createLiveEtaService>;

/**
 * The live ETA: every courier report recomputes the delivery estimate of the orders of its job
 * (src/domain/eta/route-estimate.ts) and writes it only when it moved by a minute or more; a move of
 * 3 minutes or more from the estimate last announced becomes an order.eta_changed webhook, written
 * with the estimate (transactional outbox), at most once per 2 minutes per order across nodes.
 */
export function createLiveEtaService(deps: { store: Store; outbox: WebhookOutbox; tariff: Tariff; sandboxSpeed: number }) {
  const { store, outbox, tariff } = deps;
  const scales = new Map<string, { scale: number; until: number }>();

  async function timeScaleFor(order: Order, nowMs: number): Promise<number> {
    if (order.mode === 'live') return 1;
    const cached = scales.get(order.merchantId);
    if (cached && cached.until > nowMs) return cached.scale;
    const merchant = await store.merchants.findById(order.merchantId);
    const scale = timeScaleOf({ mode: order.mode, merchant, defaultSpeed: deps.sandboxSpeed });
    if (scales.size > 10_000) scales.clear();
    scales.set(order.merchantId, { scale, until: nowMs + SCALE_CACHE_MS });
    return scale;
  }

  /**
   * Follows the courier's report: returns each order's estimate as it stands after the report (for
   * the live feeds) and whether webhook deliveries were written. `orders` are the job's active
   * orders in the job's order, as read for this report.
   */
  async function followCourier(options: { courier: Courier; location: LatLng; orders: Order[]; at: string }): Promise<{ estimates: Record<string, string>; wroteWebhooks: boolean }> {
    const { courier, orders, at } = options;
    const estimates: Record<string, string> = {};
    let wroteWebhooks = false;
    if (orders.length === 0) return { estimates, wroteWebhooks };
    const nowMs = Date.parse(at);
    // A batch belongs to one merchant and mode: one pace for the whole job.
    const timeScale = await timeScaleFor(orders[0]!, nowMs);
    const speedKmh = vehicleTariff(tariff, courier.vehicle)?.speed_kmh ?? 20;
    const computed = estimateDeliveries({ from: options.location, speedKmh, detourFactor: tariff.detour_factor, orders, now: new Date(nowMs), timeScale });
    for (const order of orders) {
      estimates[order.id] = order.estimatedDeliveryAt;
      const next = computed.get(order.id);
      if (!next || Math.abs(next.getTime() - Date.parse(order.estimatedDeliveryAt)) < Math.max(ETA_WRITE_THRESHOLD_MS / timeScale, ETA_WRITE_FLOOR_MS)) continue;
      const written = await writeEstimate({ order, courier, estimate: next.toISOString(), at, timeScale });
      if (!written) continue;
      estimates[order.id] = written.order.estimatedDeliveryAt;
      wroteWebhooks ||= written.wroteWebhooks;
    }
    return { estimates, wroteWebhooks };
  }

  /** Writes a moved estimate, announcing it when it moved enough from the last announced one and the order's interval is free. */
  async function writeEstimate(options: { order: Order; courier: Courier; estimate: string; at: string; timeScale: number }) {
    const { order, courier, estimate, at } = options;
    // Until a first announcement, the merchant knows the estimate the order had when the live ETA began.
    const last: EtaAnnouncement = order.etaAnnounced ?? { deliveryAt: order.estimatedDeliveryAt, at: null };
    const moved = Date.parse(estimate) - Date.parse(last.deliveryAt);
    const due = Math.abs(moved) >= ETA_ANNOUNCE_THRESHOLD_MS / options.timeScale && (last.at === null || Date.parse(last.at) + ETA_ANNOUNCE_INTERVAL_MS <= Date.parse(at));
    // The baseline is stored only where none is (the store decides), then only announcements replace it: a node with an older copy never rewinds it.
    let announcement: EtaAnnouncement | undefined;
    let build: ((updated: Order) => WebhookDelivery[]) | undefined;
    if (due && (await store.leases.takeSlot({ name: etaAnnouncementSlot(order.id), at, intervalMs: ETA_ANNOUNCE_INTERVAL_MS }))) {
      announcement = { deliveryAt: estimate, at };
      const reason: EtaChangeReason = moved > 0 && (order.status === 'assigned' || order.status === 'arrived_pickup') ? 'pickup_delayed' : 'courier_position';
      build = await outbox.prepareEtaChange({ order, courier, change: { previous: last.deliveryAt, current: estimate, reason }, at });
    }
    // The announcement's webhook deliveries are written with the estimate (transactional outbox).
    const updated = await store.orders.updateEstimate(
      Object.assign(
        { id: order.id, courierId: courier.id, from: [...ORDER_STATUS_SETS.followed], estimatedDeliveryAt: estimate },
        announcement ? { etaAnnounced: announcement } : { etaBaseline: last },
        build && { outbox: build },
      ),
    );
    return updated ? { order: updated, wroteWebhooks: build !== undefined } : null;
  }

  return { followCourier };
}
