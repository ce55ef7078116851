import type { RequestHandler, Router } from 'express';
import { AppError } from '../../src/domain/errors.js';

/** What this file reads of Express's router (the `router` package): a layer matches a path without keeping state. */
interface RouterLayer {
  match(path: string): { path: string } | false;
  route?: { _methods(): string[] };
  handle: { stack?: RouterLayer[] };
}

/** The methods `stack` routes for `path` (HEAD with GET), walking mounted routers as Express dispatches. */
function routedMethods(stack: readonly RouterLayer[], path: string, into: Set<string>): Set<string> {
  for (const layer of stack) {
    const match = layer.match(path);
    if (!match) continue;
    if (layer.route) for (const method of layer.route._methods()) into.add(method);
    else if (layer.handle.stack) routedMethods(layer.handle.stack, path.slice(match.path.length) || '/', into);
  }
  return into;
}

/**
 * Last in `router`: a request that no route took, on a path that a route serves with other
 * methods, is 405 METHOD_NOT_ALLOWED with `Allow` (RFC 9110 §15.5.6), not 404. A path no route
 * knows, or a route that let the request pass, goes on to the 404.
 */
export function methodNotAllowed(router: Router): RequestHandler {
  const stack = (router as unknown as { stack: RouterLayer[] }).stack;
  return (req, res, next) => {
    const allowed = routedMethods(stack, req.path, new Set());
    if (allowed.size === 0 || allowed.has(req.method)) return next();
    const allow = [...allowed].join(', ');
    res.setHeader('Allow', allow);
    next(new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.baseUrl}${req.path} (allowed: ${allow})`));
  };
}
