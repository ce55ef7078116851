import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import type { Courier } from '../../src/domain/types.js';
import { courierOf, requireCourier } from '../middleware/courier.js';
import { presentOrder, presentProof } from '../presenters/order.js';
import { sendOk } from '../respond.js';
import { advanceOrderCommand, releaseOrderCommand, reportPositionCommand, setDutyCommand } from '../wire/couriers.js';
import { confirmDeliveryCommand } from '../wire/orders.js';

function presentCourier(c: Courier) {
  return {
    id: c.id, name: c.name, phone: c.phone, vehicle_type: c.vehicle, vehicle_plate: c.plate, status: c.status,
    is_test: c.mode === 'test', location: c.location, location_at: c.locationAt, job: c.job,
  };
}

/** The courier app's API: the courier token, never a merchant key. */
export function courierRoutes(router: Router, edge: Edge): void {
  const { couriers } = edge.services;
  router.use('/couriers/me', requireCourier(edge));

  router.get('/couriers/me', async (_req, res) => {
    const { courier } = courierOf(res);
    sendOk(res, { courier: presentCourier(courier) });
  });

  router.get('/couriers/me/orders', async (_req, res) => {
    const { courier } = courierOf(res);
    const orders = await couriers.activeOrders(courier);
    sendOk(res, { orders: orders.map((o) => presentOrder(o, courier, edge.config.publicBaseUrl)) });
  });

  router.post('/couriers/me/duty', async (req, res) => {
    const courier = await couriers.setDuty({ courier: courierOf(res).courier, input: setDutyCommand(req.body) });
    sendOk(res, { courier: presentCourier(courier) });
  });

  router.post('/couriers/me/location', async (req, res) => {
    const { arrivals } = await couriers.reportPosition({ courier: courierOf(res).courier, input: reportPositionCommand(req.body) });
    sendOk(res, { arrivals: arrivals.map((o) => ({ booking_id: o.id, status: o.status })) });
  });

  router.post('/couriers/me/orders/:id/status', async (req, res) => {
    const order = await couriers.advanceOrder({ courier: courierOf(res).courier, ref: String(req.params.id), input: advanceOrderCommand(req.body) });
    sendOk(res, { booking_id: order.id, status: order.status });
  });

  router.post('/couriers/me/orders/:id/release', async (req, res) => {
    const order = await couriers.releaseOrder({ courier: courierOf(res).courier, ref: String(req.params.id), input: releaseOrderCommand(req.body) });
    sendOk(res, { booking_id: order.id, status: order.status });
  });

  router.post('/couriers/me/orders/:id/deliver', async (req, res) => {
    const result = await couriers.confirmDelivery({ courier: courierOf(res).courier, ref: String(req.params.id), input: confirmDeliveryCommand(req.body) });
    sendOk(res, { booking_id: result.order.id, status: result.order.status, message: 'Delivery confirmed', proof: presentProof(result.proof) });
  });
}
