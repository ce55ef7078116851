import type { Router } from 'express';
import type { Container } from '../../src/container.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentQuote } from '../presenters/quote.js';
import { principalOf, sendOk } from '../respond.js';
import { quoteCommand } from '../wire/quotes.js';

export function quoteRoutes(router: Router, container: Container): void {
  router.post('/shipping/quote', requireMerchant(container, { level: 'operate' }), async (req, res) => {
    const { merchant, mode } = principalOf(res);
    const quote = await container.services.quotes.quoteDelivery({ merchant, mode, input: quoteCommand(req.body) });
    sendOk(res, presentQuote(quote));
  });
}
