import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import type { AuditActor } from '../../src/domain/types.js';
import { AppError } from '../../src/domain/errors.js';

/**
 * The operators' REST paths (issue #39) take the ADMIN_TOKEN (`Authorization: Bearer …`), as the
 * admin GraphQL fields do for automation: a merchant key or courier token is not it (401
 * INVALID_ADMIN_TOKEN); failures count towards the address's admin lockout. The operator app uses
 * GraphQL with its session cookie.
 */
export function requireAdmin(edge: Edge): RequestHandler {
  const { door } = edge;
  return async (req: Request, res: Response, next: NextFunction) => {
    const credentials = door.credentialsOf(req);
    if (!credentials.token || credentials.token.startsWith('ak_') || credentials.token.startsWith('ct_')) {
      throw new AppError('INVALID_ADMIN_TOKEN', 'Admin token missing or invalid');
    }
    const { caller } = await door.frontDoor.enter(credentials);
    if (caller.kind !== 'admin') throw new AppError('INVALID_ADMIN_TOKEN', 'Admin token missing or invalid');
    res.locals.adminActor = { kind: 'admin_token' } satisfies AuditActor;
    next();
  };
}
