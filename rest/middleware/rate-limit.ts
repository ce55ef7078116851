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
