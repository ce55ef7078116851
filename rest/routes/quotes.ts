import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentQuote } from '../presenters/quote.js';
import { inCallerTerms, principalOf, sendOk } from '../respond.js';
import { QUOTE_FIELD_NAMES, quoteCommand } from '../wire/quotes.js';

export function quoteRoutes(router: Router, edge: Edge): void {
  router.post('/shipping/quote', requireMerchant(edge, { level: 'operate' }), async (req, res) => {
    const { merchant, mode } = principalOf(res);
    const quote = await edge.services.quotes.quoteDelivery({ merchant, mode, input: quoteCommand(req.body) }).catch(inCallerTerms(QUOTE_FIELD_NAMES));
    sendOk(res, presentQuote(quote));
  });
}
