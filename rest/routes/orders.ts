import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentBatch, presentCancellationPreview, presentEvent, presentOrder, presentOrderCreated, presentProof } from '../presenters/order.js';
import { inCallerTerms, principalOf, sendOk, type HotCall } from '../respond.js';
import { mountRoute, type DeclaredRoute } from '../route.js';
import { idempotencyKeyOf, idempotencyOf, markReplayed } from '../idempotency.js';
import { addTipCommand, cancelOrderCommand, confirmDeliveryCommand, consolidateCommand, createOrderCommand, createOrderFieldNames, listOrdersQuery } from '../wire/orders.js';

/** The order routes the fast path (rest/fast-path.ts) serves too, declared once (rest/route.ts). */
export function hotOrderRoutes(edge: Edge) {
  const { orders } = edge.services;
  const operate = { level: 'operate' } as const;
  const createOrder: DeclaredRoute = {
    method: 'POST',
    path: '/orders',
    access: operate,
    async handle({ req, res, principal, body }: HotCall) {
      const key = idempotencyKeyOf(req);
      const { order, created } = await orders
        .createOrder({ principal, input: createOrderCommand(body), rawBody: body, ...(key !== undefined && { idempotencyKey: key }) })
        .catch(inCallerTerms(createOrderFieldNames(body)));
      // Not created: the order of an earlier request with this key, answered again.
      if (!created) markReplayed(res);
      sendOk(res, presentOrderCreated(order, edge.services.trackingLinks), created ? 201 : 200);
    },
  };
  const readOrder: DeclaredRoute = {
    method: 'GET',
    path: '/orders/:id',
    access: operate,
    async handle({ res, principal, params }: HotCall) {
      const { order, courier } = await orders.getOrderDetails({ principal, ref: String(params.id) });
      sendOk(res, presentOrder(order, courier, edge.services.trackingLinks, (id) => edge.services.proofs.signedUrl(id)));
    },
  };
  return { createOrder, readOrder };
}

export function orderRoutes(router: Router, edge: Edge): void {
  const { orders, batches, delivery } = edge.services;
  const operate = requireMerchant(edge, { level: 'operate' });
  const hot = hotOrderRoutes(edge);

  mountRoute(router, edge, hot.createOrder);

  router.get('/orders', operate, async (req, res) => {
    const page = await orders.listOrders({ principal: principalOf(res), input: listOrdersQuery(req.query) });
    sendOk(res, { orders: page.orders.map((o) => presentOrder(o, null, edge.services.trackingLinks, (id) => edge.services.proofs.signedUrl(id))), next_cursor: page.nextCursor });
  });

  router.post('/orders/consolidate', operate, async (req, res) => {
    const [principal, input] = [principalOf(res), consolidateCommand(req.body)];
    const created = await batches.consolidateOrders(Object.assign({ principal, input }, idempotencyOf(req, res)));
    sendOk(res, { batches_created: created.length, batch_ids: created.map((b) => b.id), batches: created.map(presentBatch) });
  });

  mountRoute(router, edge, hot.readOrder);

  router.get('/orders/:id/events', operate, async (req, res) => {
    const events = await orders.listOrderEvents({ principal: principalOf(res), ref: String(req.params.id) });
    sendOk(res, { events: events.map(presentEvent) });
  });

  router.post('/orders/:id/cancel', operate, async (req, res) => {
    const [principal, ref, input] = [principalOf(res), String(req.params.id), cancelOrderCommand(req.body)];
    const order = await orders.cancelOrder(Object.assign({ principal, ref, input }, idempotencyOf(req, res)));
    sendOk(res, { booking_id: order.id, status: order.status, message: 'Order cancelled', reason: order.cancellation?.reason ?? null, cancellation_fee: order.cancellation?.fee ?? 0 });
  });

  router.get('/orders/:id/cancellation', operate, async (req, res) => {
    const { order, preview } = await orders.previewOrderCancellation({ principal: principalOf(res), ref: String(req.params.id) });
    sendOk(res, presentCancellationPreview(order, preview));
  });

  router.post('/orders/:id/tip', operate, async (req, res) => {
    const [principal, ref, input] = [principalOf(res), String(req.params.id), addTipCommand(req.body)];
    const order = await edge.services.tips.addTip(Object.assign({ principal, ref, input }, idempotencyOf(req, res)));
    sendOk(res, { booking_id: order.id, status: order.status, amount: input.amount, tip: order.tip ?? 0, currency: 'CLP', message: 'Tip added' });
  });

  router.post('/orders/:id/deliver', operate, async (req, res) => {
    const [principal, ref, input] = [principalOf(res), String(req.params.id), confirmDeliveryCommand(req.body)];
    const result = await delivery.confirmDelivery(Object.assign({ principal, ref, input }, idempotencyOf(req, res)));
    sendOk(res, { booking_id: result.order.id, status: result.order.status, message: 'Delivery confirmed', proof: presentProof(result.proof, (id) => edge.services.proofs.signedUrl(id)) });
  });

  router.post('/orders/:id/delivery-pin/reset', operate, async (req, res) => {
    const [principal, ref] = [principalOf(res), String(req.params.id)];
    const order = await delivery.resetDeliveryPin(Object.assign({ principal, ref }, idempotencyOf(req, res)));
    const stops = order.stops?.map((s) => ({ id: s.id, delivery_pin: order.stopPins![s.id]!.pin }));
    sendOk(res, { booking_id: order.id, delivery_pin: order.deliveryPin?.pin ?? null, message: 'Delivery PIN reset', ...(stops && { stops }) });
  });

  router.get('/batches/:id', operate, async (req, res) => {
    sendOk(res, { batch: presentBatch(await batches.getBatch({ principal: principalOf(res), id: String(req.params.id) })) });
  });
}
