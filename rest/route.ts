import type { Request, Response, Router } from 'express';
import type { Edge } from '../src/edge/edge.js';
import { requireMerchant, type MerchantAccess } from './middleware/auth.js';
import { trackingViewBudget } from './middleware/rate-limit.js';
import { callOf, publicCallOf, type HotCall, type PublicCall } from './respond.js';

/**
 * A REST route declared once: its method, its path under /api/v1 (Express's syntax, `:name` for a
 * parameter), who may call it and its handler. Express mounts it (`mountRoute`, in the route's own
 * module) and the fast path (rest/fast-path.ts) serves its plainest requests from the same object:
 * there is no second table of paths or access rules to keep in step.
 */
export type DeclaredRoute =
  | { method: 'GET' | 'POST'; path: string; access: MerchantAccess; handle: (call: HotCall) => Promise<void> }
  /** A public tracking view: the link's budget with its capability (`?k=`), else the address's anonymous one. */
  | { method: 'GET' | 'POST'; path: string; access: 'tracking-view'; handle: (call: PublicCall) => Promise<void> };

/** Mounts a declared route on an /api/v1 router, behind its access rule. */
export function mountRoute(router: Router, edge: Edge, route: DeclaredRoute): void {
  const on = route.method === 'GET' ? router.get.bind(router) : router.post.bind(router);
  if (route.access === 'tracking-view') {
    const { handle } = route;
    on(route.path, trackingViewBudget(edge), (req: Request, res: Response) => handle(publicCallOf(req, res)));
  } else {
    const { handle } = route;
    on(route.path, requireMerchant(edge, route.access), (req: Request, res: Response) => handle(callOf(req, res)));
  }
}
