import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { presentQuote } from '../presenters/quote.js';
import { inCallerTerms, sendOk, type HotCall } from '../respond.js';
import { mountRoute, type DeclaredRoute } from '../route.js';
import { QUOTE_FIELD_NAMES, quoteCommand } from '../wire/quotes.js';

/** The quote route, which the fast path (rest/fast-path.ts) serves too, declared once (rest/route.ts). */
export function hotQuoteRoute(edge: Edge): DeclaredRoute {
  return {
    method: 'POST',
    path: '/shipping/quote',
    access: { level: 'operate' },
    async handle({ res, principal: { merchant, mode }, body }: HotCall) {
      const quote = await edge.services.quotes.quoteDelivery({ merchant, mode, input: quoteCommand(body) }).catch(inCallerTerms(QUOTE_FIELD_NAMES));
      sendOk(res, presentQuote(quote));
    },
  };
}

export function quoteRoutes(router: Router, edge: Edge): void {
  mountRoute(router, edge, hotQuoteRoute(edge));
}
