import type { Courier } from '../src/domain/types.js';
import { adminOf, adminScopes } from './admin-access.js';
import { CourierAccountStatusEnum, CourierDutyStatusEnum, VehicleEnum } from './admin.js';
import { builder } from './builder.js';
import { ModeEnum } from './merchants.js';

const CourierJobKindEnum = builder.enumType('CourierJobKind', { values: ['order', 'batch'] as const });

const CourierJobRef = builder.objectRef<NonNullable<Courier['job']>>('AdminCourierJob').implement({
  fields: (t) => ({ kind: t.field({ type: CourierJobKindEnum, resolve: (j) => j.kind }), id: t.exposeID('id') }),
});

const PositionRef = builder.objectRef<{ lat: number; lng: number; at: string }>('AdminCourierPosition').implement({
  fields: (t) => ({ lat: t.exposeFloat('lat'), lng: t.exposeFloat('lng'), at: t.field({ type: 'DateTime', resolve: (p) => p.at }) }),
});

/** A courier as operators see it: never its token hash or phone. */
export const AdminCourierRef = builder.objectRef<Courier>('AdminCourier').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    mode: t.field({ type: ModeEnum, resolve: (c) => c.mode }),
    vehicle: t.field({ type: VehicleEnum, resolve: (c) => c.vehicle }),
    plate: t.exposeString('plate'),
    dutyStatus: t.field({ type: CourierDutyStatusEnum, resolve: (c) => c.status }),
    accountStatus: t.field({ type: CourierAccountStatusEnum, resolve: (c) => c.accountStatus }),
    lastPosition: t.field({
      type: PositionRef,
      nullable: true,
      description: 'The latest reported position and when it was recorded; null before the first.',
      resolve: (c) => (c.location && c.locationAt ? { lat: c.location.lat, lng: c.location.lng, at: c.locationAt } : null),
    }),
    job: t.field({ type: CourierJobRef, nullable: true, description: 'The order or batch the courier is on while busy.', resolve: (c) => c.job }),
    shiftEndsAt: t.field({ type: 'DateTime', nullable: true, description: 'When the duty is planned to end; null: no planned end, or off duty.', resolve: (c) => c.shiftEndsAt }),
    cashInHand: t.int({
      description: 'Cash on delivery: CLP collected at doors minus handed over (one ledger sum per courier asked).',
      resolve: async (c, _a, ctx) => (await ctx.services.cod.getCourierCash({ courierId: c.id })).balance,
    }),
  }),
});

const AdminCourierPageRef = builder.objectRef<{ couriers: Courier[]; nextCursor: string | null }>('AdminCourierPage').implement({
  fields: (t) => ({
    couriers: t.field({ type: [AdminCourierRef], resolve: (p) => p.couriers }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as `after` for the next page; null on the last.' }),
  }),
});

builder.queryFields((t) => ({
  adminCouriers: t.field({
    type: AdminCourierPageRef,
    description: 'Every courier in id order, a keyset page at a time (first: 1–200, default 50).',
    authScopes: adminScopes('adminCouriers'),
    args: { mode: t.arg({ type: ModeEnum }), status: t.arg({ type: CourierDutyStatusEnum }), first: t.arg.int(), after: t.arg.id() },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).listCouriers({
        ...(args.mode && { mode: args.mode }), ...(args.status && { status: args.status }),
        ...(args.first != null && { limit: args.first }), ...(args.after != null && { afterId: String(args.after) }),
      }),
  }),
}));
