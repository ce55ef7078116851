import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentAttempt, presentDelivery, presentEndpoint, presentPublicKey } from '../presenters/webhook.js';
import { principalOf, sendOk } from '../respond.js';
import { idempotencyOf } from '../idempotency.js';
import { createEndpointCommand, listDeliveriesQuery, redeliverFailedCommand, updateEndpointCommand } from '../wire/webhooks.js';

/** Webhook endpoints (per merchant and mode) and their delivery log. */
export function webhookRoutes(router: Router, edge: Edge): void {
  const { webhookEndpoints: endpoints, webhookDeliveries: log } = edge.services;
  const merchant = requireMerchant(edge, { level: 'settings' });

  router.get('/webhooks/deliveries', merchant, async (req, res) => {
    const page = await log.listDeliveries({ principal: principalOf(res), input: listDeliveriesQuery(req.query) });
    sendOk(res, { deliveries: page.deliveries.map(presentDelivery), next_cursor: page.nextCursor });
  });
  router.post('/webhooks/deliveries/redeliver-failed', merchant, async (req, res) => {
    const [principal, input] = [principalOf(res), redeliverFailedCommand(req.body)];
    const { requeued, more, limit } = await log.redeliverFailed(Object.assign({ principal, input }, idempotencyOf(req, res)));
    sendOk(res, { requeued, more, limit });
  });
  router.get('/webhooks/deliveries/:id', merchant, async (req, res) => {
    const { delivery, attempts } = await log.getDelivery({ principal: principalOf(res), id: String(req.params.id) });
    sendOk(res, { delivery: presentDelivery(delivery), attempts: attempts.map(presentAttempt) });
  });
  router.post('/webhooks/deliveries/:id/redeliver', merchant, async (req, res) => {
    const [principal, id] = [principalOf(res), String(req.params.id)];
    const delivery = await log.redeliver(Object.assign({ principal, id }, idempotencyOf(req, res)));
    sendOk(res, { delivery: presentDelivery(delivery) });
  });

  router.get('/webhooks/public-keys', merchant, async (_req, res) => {
    const keys = await edge.services.signingKeys.publicKeys({ principal: principalOf(res) });
    sendOk(res, { keys: keys.map(presentPublicKey) });
  });
  router.post('/webhooks', merchant, async (req, res) => {
    const [principal, input] = [principalOf(res), createEndpointCommand(req.body)];
    const endpoint = await endpoints.createEndpoint(Object.assign({ principal, input }, idempotencyOf(req, res)));
    sendOk(res, { endpoint: presentEndpoint(endpoint) }, 201);
  });
  router.get('/webhooks', merchant, async (_req, res) => {
    const list = await endpoints.listEndpoints({ principal: principalOf(res) });
    sendOk(res, { endpoints: list.map(presentEndpoint) });
  });
  router.get('/webhooks/:id', merchant, async (req, res) => {
    sendOk(res, { endpoint: presentEndpoint(await endpoints.getEndpoint({ principal: principalOf(res), id: String(req.params.id) })) });
  });
  router.patch('/webhooks/:id', merchant, async (req, res) => {
    const [principal, id, input] = [principalOf(res), String(req.params.id), updateEndpointCommand(req.body)];
    const endpoint = await endpoints.updateEndpoint(Object.assign({ principal, id, input }, idempotencyOf(req, res)));
    sendOk(res, { endpoint: presentEndpoint(endpoint) });
  });
  router.delete('/webhooks/:id', merchant, async (req, res) => {
    await endpoints.deleteEndpoint({ principal: principalOf(res), id: String(req.params.id) });
    sendOk(res, { deleted: true });
  });
}
