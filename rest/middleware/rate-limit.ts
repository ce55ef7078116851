import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import type { BudgetDecision as RateLimitDecision } from '../../src/domain/front-door.js';
import { rateLimitHeaders } from '../../src/edge/door.js';

/** The RateLimit-* headers of an admitted request (a refusal's are set by the error handler). */
export function setRateLimitHeaders(res: ServerResponse, decision: RateLimitDecision | null): void {
  if (!decision) return;
  const headers = rateLimitHeaders(decision);
  for (const name in headers) res.setHeader(name, headers[name]!);
}

/** One operation from the anonymous budget of the client's address (RateLimit-* set; RateLimitedError when spent). */
export async function admitAnonymous(edge: Edge, req: IncomingMessage, res: ServerResponse): Promise<void> {
  setRateLimitHeaders(res, await edge.door.frontDoor.admit({ kind: 'anonymous', address: edge.door.addressOf(req) }));
}

/** Public endpoints and pages: `admitAnonymous` as Express middleware. */
export function anonymousBudget(edge: Edge): RequestHandler {
  return async (req, res, next) => {
    await admitAnonymous(edge, req, res);
    next();
  };
}

/**
 * A tracking view (the page, REST tracking): through a valid capability link (`?k=`) one operation
 * of that link's own budget, otherwise one of the address's anonymous budget — taken before any
 * lookup, so a known and an unknown number cost and answer alike once it is spent.
 */
export async function admitTrackingView(edge: Edge, req: IncomingMessage, res: ServerResponse, options: { reference: string; capability: unknown }): Promise<void> {
  const trackingNumber = edge.services.trackingLinks.openedBy(options);
  if (!trackingNumber) return admitAnonymous(edge, req, res);
  setRateLimitHeaders(res, await edge.door.frontDoor.admitTrackingLink({ trackingNumber }));
}

/** `admitTrackingView` as Express middleware, for routes with a `:reference` and an optional `k` query parameter. */
export function trackingViewBudget(edge: Edge): RequestHandler {
  return async (req, res, next) => {
    await admitTrackingView(edge, req, res, { reference: String(req.params.reference), capability: req.query.k });
    next();
  };
}
