import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import type { MerchantPrincipal } from '../src/domain/auth.js';
import { AppError } from '../src/domain/errors.js';
import { inWireTerms } from '../src/edge/wire-errors.js';

/**
 * Writes `{ success: true, ...body }` as JSON. Written here rather than through res.json: Express's
 * send re-parses and re-formats the Content-Type and runs its ETag/freshness path (ETags are off
 * for this API), which was measurable per request (bench/orders read). HEAD answers stay bodiless
 * (node drops the body of a HEAD response).
 */
export function sendOk(res: ServerResponse, body: Record<string, unknown>, status = 200): void {
  sendJson(res, status, successJson(body));
}

/** Writes a JSON text as res.json would (same Content-Type and Content-Length), on plain node:http too. */
export function sendJson(res: ServerResponse, status: number, json: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

/**
 * `JSON.stringify({ success: true, ...body })`, without copying the body: a copy of a big body (an
 * order's ~30 members) is a dictionary-mode object that stringifies on V8's slow path (~5 µs per
 * order read). A body carrying its own `success` takes the copy, as before.
 */
export function successJson(body: Record<string, unknown>): string {
  if (Object.hasOwn(body, 'success')) return JSON.stringify({ success: true, ...body });
  const json = JSON.stringify(body);
  return json === '{}' ? '{"success":true}' : `{"success":true,${json.slice(1)}`;
}

/** A public handler served both by Express and by the fast path (rest/fast-path.ts) gets this from either. */
export interface PublicCall {
  req: IncomingMessage;
  res: ServerResponse;
  /** The parsed JSON body (undefined when the request had none). */
  body: unknown;
  params: Record<string, string>;
}

/** The same for a merchant's handler, behind the API key. */
export interface HotCall extends PublicCall {
  principal: MerchantPrincipal;
}

/** An Express request as a PublicCall. */
export function publicCallOf(req: Request, res: Response): PublicCall {
  return { req, res, body: req.body, params: req.params as Record<string, string> };
}

/** An Express request as a HotCall (behind `requireMerchant`). */
export function callOf(req: Request, res: Response): HotCall {
  return Object.assign(publicCallOf(req, res), { principal: principalOf(res) });
}

export function principalOf(res: Response): MerchantPrincipal {
  const principal = res.locals.principal as MerchantPrincipal | undefined;
  if (!principal) throw new AppError('INTERNAL_ERROR', 'route is missing its auth middleware');
  return principal;
}

/**
 * Rethrows an AppError in the caller's terms (`{ dropoff: 'dropoff_address' }`; `dropoff.lat`
 * becomes `dropoff_address.lat`; the keys its messages name too): the domain names a field one
 * way, a request form may call it another. Every other key is rendered in snake_case when the
 * error is sent (src/edge/wire-errors.ts).
 */
export function inCallerTerms(names: Record<string, string>): (error: unknown) => never {
  return (error) => {
    throw error instanceof AppError ? inWireTerms(error, names) : error;
  };
}
