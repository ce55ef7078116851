import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import type { Courier } from '../../src/domain/types.js';
import { courierOf, requireCourier } from '../middleware/courier.js';
import { presentCourierOrder, presentEarnings, presentProof } from '../presenters/order.js';
import { presentCourierCash } from '../presenters/cod.js';
import { sendOk } from '../respond.js';
import { idempotencyOf } from '../idempotency.js';
import { advanceOrderCommand, confirmReturnCommand, earningsQuery, releaseOrderCommand, reportFailedAttemptCommand, reportPositionCommand, setDutyCommand } from '../wire/couriers.js';
import { confirmDeliveryCommand } from '../wire/orders.js';
import { courierSignInCommand } from '../wire/couriers.js';
import { courierSessionCookies } from '../../src/edge/session-cookie.js';
import { AppError } from '../../src/domain/errors.js';

export function presentCourier(c: Courier) {
  return {
    id: c.id, name: c.name, phone: c.phone, vehicle_type: c.vehicle, vehicle_plate: c.plate, status: c.status,
    is_test: c.mode === 'test', location: c.location, location_at: c.locationAt, job: c.job, shift_ends_at: c.shiftEndsAt,
  };
}

/** The courier app's API: the courier token or the courier app's session, never a merchant key or a member's session. */
export function courierRoutes(router: Router, edge: Edge): void {
  const { couriers } = edge.services;
  const { door } = edge;

  // The courier app's sign-in (issue #27): a one-time link's code for a session cookie.
  router.post('/couriers/sessions', async (req, res) => {
    const address = door.addressOf(req);
    await door.frontDoor.admit({ kind: 'anonymous', address });
    const signedIn = await door.frontDoor.signInCourier({ address, input: courierSignInCommand(req.body) });
    res.setHeader('Set-Cookie', courierSessionCookies({ sessionId: signedIn.sessionId, expiresAt: signedIn.expiresAt, secure: door.overTls(req) }));
    res.setHeader('Cache-Control', 'no-store');
    sendOk(res, { courier: presentCourier(signedIn.courier), expires_at: signedIn.expiresAt }, 201);
  });

  router.delete('/couriers/sessions/current', async (req, res) => {
    const credentials = door.courierCredentialsOf(req);
    if (credentials.courierSession && !door.hasCourierCsrfHeader(req)) {
      throw new AppError('CSRF_REQUIRED', 'Signing out with the courier session cookie needs the x-courier-csrf header');
    }
    await edge.services.courierSessions.signOut({ sessionId: credentials.courierSession });
    res.setHeader('Set-Cookie', courierSessionCookies({ sessionId: null, secure: door.overTls(req) }));
    res.status(204).end();
  });

  router.use('/couriers/me', requireCourier(edge));

  router.get('/couriers/me', async (_req, res) => {
    const { courier } = courierOf(res);
    sendOk(res, { courier: presentCourier(courier) });
  });

  router.get('/couriers/me/cash', async (_req, res) => {
    const { courier } = courierOf(res);
    sendOk(res, { cash: presentCourierCash(await edge.services.cod.getCourierCash({ courierId: courier.id })) });
  });

  router.get('/couriers/me/orders', async (_req, res) => {
    const { courier } = courierOf(res);
    const orders = await couriers.activeOrders(courier);
    sendOk(res, { orders: orders.map((o) => presentCourierOrder(o, courier, edge.services.trackingLinks)) });
  });

  router.get('/couriers/me/earnings', async (req, res) => {
    const [{ courier }, input] = [courierOf(res), earningsQuery(req.query)];
    sendOk(res, presentEarnings(await edge.services.tips.courierEarnings({ courier, input })));
  });

  router.post('/couriers/me/duty', async (req, res) => {
    const [{ courier: me }, input] = [courierOf(res), setDutyCommand(req.body)];
    const courier = await couriers.setDuty(Object.assign({ courier: me, input }, idempotencyOf(req, res)));
    sendOk(res, { courier: presentCourier(courier) });
  });

  router.post('/couriers/me/location', async (req, res) => {
    const [{ courier }, input] = [courierOf(res), reportPositionCommand(req.body)];
    const { arrivals } = await couriers.reportPosition(Object.assign({ courier, input }, idempotencyOf(req, res)));
    sendOk(res, { arrivals: arrivals.map((o) => ({ booking_id: o.id, status: o.status })) });
  });

  router.post('/couriers/me/orders/:id/status', async (req, res) => {
    const [{ courier }, ref, input] = [courierOf(res), String(req.params.id), advanceOrderCommand(req.body)];
    const order = await couriers.advanceOrder(Object.assign({ courier, ref, input }, idempotencyOf(req, res)));
    sendOk(res, { booking_id: order.id, status: order.status });
  });

  router.post('/couriers/me/orders/:id/release', async (req, res) => {
    const [{ courier }, ref, input] = [courierOf(res), String(req.params.id), releaseOrderCommand(req.body)];
    const order = await couriers.releaseOrder(Object.assign({ courier, ref, input }, idempotencyOf(req, res)));
    sendOk(res, { booking_id: order.id, status: order.status });
  });

  router.post('/couriers/me/orders/:id/deliver', async (req, res) => {
    const [{ courier }, ref, input] = [courierOf(res), String(req.params.id), confirmDeliveryCommand(req.body)];
    const result = await couriers.confirmDelivery(Object.assign({ courier, ref, input }, idempotencyOf(req, res)));
    sendOk(res, { booking_id: result.order.id, status: result.order.status, message: 'Delivery confirmed', proof: presentProof(result.proof, (id) => edge.services.proofs.signedUrl(id)) });
  });

  router.post('/couriers/me/orders/:id/failed-attempt', async (req, res) => {
    const [{ courier }, ref, input] = [courierOf(res), String(req.params.id), reportFailedAttemptCommand(req.body)];
    const order = await couriers.reportFailedAttempt(Object.assign({ courier, ref, input }, idempotencyOf(req, res)));
    sendOk(res, { booking_id: order.id, status: order.status, attempts: order.failedAttempts?.length ?? 0 });
  });

  router.post('/couriers/me/orders/:id/return', async (req, res) => {
    const [{ courier }, ref, input] = [courierOf(res), String(req.params.id), confirmReturnCommand(req.body)];
    const order = await couriers.confirmReturn(Object.assign({ courier, ref, input }, idempotencyOf(req, res)));
    sendOk(res, { booking_id: order.id, status: order.status });
  });
}
