import type { Request, Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import type { MerchantPrincipal } from '../../src/domain/auth.js';
import type { IntegrationClient } from '../../src/domain/integrations/service.js';
import type { IntegrationName } from '../../src/domain/types.js';
import { isAppError, presentError } from '../../src/domain/errors.js';
import { requireMerchant } from '../middleware/auth.js';
import { principalOf, sendOk } from '../respond.js';

/** What the calling plugin tells about itself: X-Plugin-Version / X-Site-Url, else its User-Agent. */
export function integrationClientFrom(req: Request): IntegrationClient {
  const header = (name: string) => {
    const v = req.headers[name];
    return typeof v === 'string' && v.trim() ? v.trim() : null;
  };
  const userAgent = header('user-agent');
  const uaVersion = userAgent ? /express-delivery[\w-]*\/([\w.-]+)/i.exec(userAgent)?.[1] : undefined;
  const uaSite = userAgent ? /(https?:\/\/[^\s;)]+)/i.exec(userAgent)?.[1] : undefined;
  return {
    userAgent,
    pluginVersion: header('x-plugin-version') ?? uaVersion ?? null,
    site: header('x-site-url') ?? uaSite ?? header('origin') ?? null,
  };
}

function withTelemetry(edge: Edge, integration: IntegrationName) {
  return requireMerchant(edge, {
    level: 'operate',
    integration,
    onAuthenticated: (req: Request, principal: MerchantPrincipal) =>
      edge.services.integrations.recordIntegrationCall({
        merchant: principal.merchant,
        mode: principal.mode,
        integration,
        client: integrationClientFrom(req),
      }),
  });
}

export function integrationRoutes(router: Router, edge: Edge): void {
  const { integrations } = edge.services;

  router.post('/plugin/shipping-quote', withTelemetry(edge, 'plugin'), async (req, res) => {
    const rates = await integrations.quoteForPlugin({ principal: principalOf(res), input: req.body });
    sendOk(res, { rates });
  });

  router.post('/erp/rate-shipment', withTelemetry(edge, 'erp'), async (req, res) => {
    try {
      sendOk(res, await integrations.quoteForErp({ principal: principalOf(res), input: req.body }));
    } catch (error) {
      if (!isAppError(error)) throw error;
      // Odoo's rate_shipment failure contract, beside the usual error object.
      res.status(error.status).json(Object.assign(presentError(error), { price: 0, error_message: error.message, warning_message: false }));
    }
  });
}
