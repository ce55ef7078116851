import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentAttempt, presentDelivery, presentEndpoint } from '../presenters/webhook.js';
import { principalOf, sendOk } from '../respond.js';
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
    const { requeued, more, limit } = await log.redeliverFailed({ principal: principalOf(res), input: redeliverFailedCommand(req.body) });
    sendOk(res, { requeued, more, limit });
  });
  router.get('/webhooks/deliveries/:id', merchant, async (req, res) => {
    const { delivery, attempts } = await log.getDelivery({ principal: principalOf(res), id: String(req.params.id) });
    sendOk(res, { delivery: presentDelivery(delivery), attempts: attempts.map(presentAttempt) });
  });
  router.post('/webhooks/deliveries/:id/redeliver', merchant, async (req, res) => {
    const delivery = await log.redeliver({ principal: principalOf(res), id: String(req.params.id) });
    sendOk(res, { delivery: presentDelivery(delivery) });
  });

  router.post('/webhooks', merchant, async (req, res) => {
    const endpoint = await endpoints.createEndpoint({ principal: principalOf(res), input: createEndpointCommand(req.body) });
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
    const endpoint = await endpoints.updateEndpoint({ principal: principalOf(res), id: String(req.params.id), input: updateEndpointCommand(req.body) });
    sendOk(res, { endpoint: presentEndpoint(endpoint) });
  });
  router.delete('/webhooks/:id', merchant, async (req, res) => {
    await endpoints.deleteEndpoint({ principal: principalOf(res), id: String(req.params.id) });
    sendOk(res, { deleted: true });
  });
}
