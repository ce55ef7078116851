import type { Container } from '../../src/container.js';
import type { BenchMerchant } from './app.js';

/**
 * `count` live orders (Form B), then as many couriers going on duty: each takes the oldest queued
 * order. Returns each courier's token with the tracking number of the order it holds.
 */
export async function seedAssignedOrders(container: Container, merchant: BenchMerchant, options: { count: number; platePrefix: string }) {
  const { admin, auth, orders, couriers } = container.services;
  const principal = await auth.authenticateApiKey({ apiKey: merchant.liveKey });
  const trackingById = new Map<string, string>();
  for (let i = 0; i < options.count; i++) {
    const { order } = await orders.createOrder({
      principal,
      input: { customerName: `Customer ${i}`, customerPhone: '+56912345678', dropoff: 'Av. Apoquindo 4501, Las Condes', paymentMode: 'prepaid', totalWeightKg: 1 },
    });
    trackingById.set(order.id, order.trackingNumber);
  }
  const out: Array<{ token: string; trackingNumber: string }> = [];
  for (let i = 0; i < options.count; i++) {
    const plate = `${options.platePrefix}${String(i).padStart(4, '0')}`;
    const { token } = await admin.createCourier({ input: { name: `Courier ${i}`, phone: '+56987654321', vehicle: 'car', plate, mode: 'live' } });
    const principalCourier = await auth.authenticateCourier({ token });
    const courier = await couriers.setDuty({ courier: principalCourier.courier, input: { onDuty: true } });
    const orderId = courier.job?.kind === 'order' ? courier.job.id : null;
    const trackingNumber = orderId ? trackingById.get(orderId) : undefined;
    if (!trackingNumber) throw new Error(`courier ${i} got no order on going on duty (job ${JSON.stringify(courier.job)})`);
    out.push({ token, trackingNumber });
  }
  return out;
}
