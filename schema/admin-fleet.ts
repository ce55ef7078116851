import type { FleetCourier, FleetFrame } from '../src/domain/watch/fleet.js';
import { adminScopes } from './admin-access.js';
import { builder } from './builder.js';
import { LatLngRef } from './locations.js';
import { ModeEnum } from './merchants.js';

const FleetCourierRef = builder.objectRef<FleetCourier>('FleetCourier').implement({
  fields: (t) => ({
    courierId: t.exposeID('courierId'),
    mode: t.field({ type: ModeEnum, resolve: (c) => c.mode }),
    name: t.exposeString('name'),
    vehicle: t.exposeString('vehicle'),
    dutyStatus: t.exposeString('status', { description: 'off_duty, available or busy.' }),
    jobKind: t.string({ nullable: true, description: 'order or batch, while busy.', resolve: (c) => c.job?.kind ?? null }),
    jobId: t.id({ nullable: true, description: 'The order or batch the courier is on.', resolve: (c) => c.job?.id ?? null }),
    active: t.exposeBoolean('active', { description: 'False once the account is disabled.' }),
    location: t.field({ type: LatLngRef, nullable: true, resolve: (c) => c.location }),
    locationAt: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.locationAt }),
  }),
});

const FleetFrameRef = builder.objectRef<FleetFrame>('FleetFrame').implement({
  description: 'The first frame lists every active courier; each later one the couriers that moved or changed in one interval, each once.',
  fields: (t) => ({
    couriers: t.field({ type: [FleetCourierRef], resolve: (f) => f.couriers }),
    at: t.field({ type: 'DateTime', resolve: (f) => f.at }),
  }),
});

builder.subscriptionFields((t) => ({
  adminFleet: t.field({
    type: FleetFrameRef,
    description: 'Every courier’s position and duty status (mode: one mode, else both), coalesced: at most one entry per courier per second.',
    authScopes: adminScopes('adminFleet'),
    args: { mode: t.arg({ type: ModeEnum }) },
    subscribe: (_r, args, ctx) => ctx.services.fleet.watch({ mode: args.mode ?? null }),
    resolve: (frame) => frame,
  }),
}));
