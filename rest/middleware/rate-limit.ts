import type { ServerResponse } from 'node:http';
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

/** Public endpoints and pages: one operation from the anonymous budget of the client's address. */
export function anonymousBudget(edge: Edge): RequestHandler {
  const { door } = edge;
  return async (req, res, next) => {
    setRateLimitHeaders(res, await door.frontDoor.admit({ kind: 'anonymous', address: door.addressOf(req) }));
    next();
  };
}
