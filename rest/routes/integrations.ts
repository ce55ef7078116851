import type { Request, Router } from 'express';
import type { Container } from '../../src/container.js';
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

function withTelemetry(container: Container, integration: IntegrationName) {
  return requireMerchant(container, {
    level: 'operate',
    integration,
    onAuthenticated: (req: Request, principal: MerchantPrincipal) =>
      container.services.integrations.recordIntegrationCall({
        merchant: principal.merchant,
        mode: principal.mode,
        integration,
        client: integrationClientFrom(req),
      }),
  });
}

export function integrationRoutes(router: Router, container: Container): void {
  const { integrations } = container.services;

  router.post('/plugin/shipping-quote', withTelemetry(container, 'plugin'), async (req, res) => {
    const rates = await integrations.quoteForPlugin({ principal: principalOf(res), input: req.body });
    sendOk(res, { rates });
  });

  router.post('/erp/rate-shipment', withTelemetry(container, 'erp'), async (req, res) => {
    try {
      sendOk(res, await integrations.quoteForErp({ principal: principalOf(res), input: req.body }));
    } catch (error) {
      if (!isAppError(error)) throw error;
      // Odoo's rate_shipment failure contract, beside the usual error object.
      res.status(error.status).json(Object.assign(presentError(error), { price: 0, error_message: error.message, warning_message: false }));
    }
  });
}
