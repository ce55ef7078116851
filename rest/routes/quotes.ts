import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentQuote } from '../presenters/quote.js';
import { callOf, inCallerTerms, sendOk, type HotCall } from '../respond.js';
import { QUOTE_FIELD_NAMES, quoteCommand } from '../wire/quotes.js';

/** The quote route's handler, which the fast path (rest/fast-path.ts) serves too. */
export function hotQuoteHandler(edge: Edge) {
  return async ({ res, principal: { merchant, mode }, body }: HotCall) => {
    const quote = await edge.services.quotes.quoteDelivery({ merchant, mode, input: quoteCommand(body) }).catch(inCallerTerms(QUOTE_FIELD_NAMES));
    sendOk(res, presentQuote(quote));
  };
}

export function quoteRoutes(router: Router, edge: Edge): void {
  const quote = hotQuoteHandler(edge);
  router.post('/shipping/quote', requireMerchant(edge, { level: 'operate' }), (req, res) => quote(callOf(req, res)));
}
