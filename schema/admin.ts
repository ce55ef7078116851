import { COURIER_ACCOUNT_STATUSES, VEHICLE_TYPES, type CourierAccountStatus, type CourierDutyStatus } from '../src/domain/types.js';
import type { IntegrationTelemetry } from '../src/domain/types.js';
import { builder } from './builder.js';
import { adminOf, adminScopes } from './admin-access.js';
import { IntegrationEnum, IntegrationStatusEnum, MerchantRef, MerchantStatusEnum, ModeEnum } from './merchants.js';

export const VehicleEnum = builder.enumType('VehicleType', { values: VEHICLE_TYPES });

const CreatedMerchantRef = builder
  .objectRef<{ merchantId: string; liveKey: string; testKey: string; apiSecret: string }>('CreatedMerchant')
  .implement({
    description: 'Credentials are shown once; only hashes (keys) and ciphertext (secret) are kept.',
    fields: (t) => ({
      merchantId: t.exposeID('merchantId'),
      liveKey: t.exposeString('liveKey'),
      testKey: t.exposeString('testKey'),
      apiSecret: t.exposeString('apiSecret'),
    }),
  });

const RotatedKeyRef = builder.objectRef<{ merchantId: string; mode: 'live' | 'test'; apiKey: string; revoked: number }>('RotatedApiKey').implement({
  fields: (t) => ({
    merchantId: t.exposeID('merchantId'),
    mode: t.field({ type: ModeEnum, resolve: (r) => r.mode }),
    apiKey: t.exposeString('apiKey'),
    revoked: t.exposeInt('revoked'),
  }),
});

const RevokedKeysRef = builder.objectRef<{ merchantId: string; mode: 'live' | 'test'; revoked: number }>('RevokedApiKeys').implement({
  fields: (t) => ({
    merchantId: t.exposeID('merchantId'),
    mode: t.field({ type: ModeEnum, resolve: (r) => r.mode }),
    revoked: t.exposeInt('revoked'),
  }),
});

const RotatedSecretRef = builder.objectRef<{ merchantId: string; apiSecret: string; previousExpiresAt: string }>('RotatedApiSecret').implement({
  fields: (t) => ({
    merchantId: t.exposeID('merchantId'),
    apiSecret: t.exposeString('apiSecret'),
    previousExpiresAt: t.field({ type: 'DateTime', resolve: (r) => r.previousExpiresAt }),
  }),
});

const CreatedCourierRef = builder
  .objectRef<{ courierId: string; token: string; mode: 'live' | 'test'; signInUrl: string; signInExpiresAt: string }>('CreatedCourier')
  .implement({
    fields: (t) => ({
      courierId: t.exposeID('courierId'),
      token: t.exposeString('token'),
      mode: t.field({ type: ModeEnum, resolve: (r) => r.mode }),
      signInUrl: t.exposeString('signInUrl', { description: "The courier app's one-time sign-in link (`/courier/welcome#code=…`), single use, expiring" }),
      signInExpiresAt: t.exposeString('signInExpiresAt'),
    }),
  });

const CourierSignInLinkRef = builder.objectRef<{ courierId: string; signInUrl: string; signInExpiresAt: string }>('CourierSignInLink').implement({
  fields: (t) => ({
    courierId: t.exposeID('courierId'),
    signInUrl: t.exposeString('signInUrl'),
    signInExpiresAt: t.exposeString('signInExpiresAt'),
  }),
});

export const CourierAccountStatusEnum = builder.enumType('CourierAccountStatus', { values: COURIER_ACCOUNT_STATUSES });
export const CourierDutyStatusEnum = builder.enumType('CourierDutyStatus', { values: ['off_duty', 'available', 'busy'] as const });

const RotatedCourierTokenRef = builder
  .objectRef<{ courierId: string; token: string; accountStatus: CourierAccountStatus }>('RotatedCourierToken')
  .implement({
    description: 'The new token is shown once; the previous one stopped authenticating.',
    fields: (t) => ({
      courierId: t.exposeID('courierId'),
      token: t.exposeString('token'),
      accountStatus: t.field({ type: CourierAccountStatusEnum, resolve: (r) => r.accountStatus }),
    }),
  });

type CourierAccount = { courierId: string; accountStatus: CourierAccountStatus; dutyStatus: CourierDutyStatus };

const CourierAccountRef = builder.objectRef<CourierAccount>('CourierAccount').implement({
  fields: (t) => ({
    courierId: t.exposeID('courierId'),
    accountStatus: t.field({ type: CourierAccountStatusEnum, resolve: (r) => r.accountStatus }),
    dutyStatus: t.field({ type: CourierDutyStatusEnum, resolve: (r) => r.dutyStatus }),
  }),
});

const CourierShiftRef = builder.objectRef<{ courierId: string; dutyStatus: CourierDutyStatus; shiftEndsAt: string | null }>('CourierShift').implement({
  fields: (t) => ({
    courierId: t.exposeID('courierId'),
    dutyStatus: t.field({ type: CourierDutyStatusEnum, resolve: (r) => r.dutyStatus }),
    shiftEndsAt: t.field({ type: 'DateTime', nullable: true, description: 'The planned end of the duty; null: none.', resolve: (r) => r.shiftEndsAt }),
  }),
});

const DisabledCourierRef = builder
  .objectRef<CourierAccount & { releasedOrderIds: string[]; keptOrderIds: string[] }>('DisabledCourier')
  .implement({
    description: 'Assigned orders went back to dispatch; orders at or past the pickup stay with the courier.',
    fields: (t) => ({
      courierId: t.exposeID('courierId'),
      accountStatus: t.field({ type: CourierAccountStatusEnum, resolve: (r) => r.accountStatus }),
      dutyStatus: t.field({ type: CourierDutyStatusEnum, resolve: (r) => r.dutyStatus }),
      releasedOrderIds: t.exposeIDList('releasedOrderIds'),
      keptOrderIds: t.exposeIDList('keptOrderIds'),
    }),
  });

const CreatedUserRef = builder.objectRef<{ userId: string; rut: string }>('CreatedUser').implement({
  fields: (t) => ({ userId: t.exposeID('userId'), rut: t.exposeString('rut') }),
});

const TelemetryRef = builder.objectRef<IntegrationTelemetry>('IntegrationTelemetry').implement({
  description: 'Calls of one integration from one site, for moderation.',
  fields: (t) => ({
    mode: t.field({ type: ModeEnum, resolve: (r) => r.mode }),
    integration: t.field({ type: IntegrationEnum, resolve: (r) => r.integration }),
    site: t.exposeString('site', { nullable: true }),
    pluginVersion: t.exposeString('pluginVersion', { nullable: true }),
    userAgent: t.exposeString('userAgent', { nullable: true }),
    callCount: t.exposeInt('callCount'),
    firstSeenAt: t.field({ type: 'DateTime', resolve: (r) => r.firstSeenAt }),
    lastSeenAt: t.field({ type: 'DateTime', resolve: (r) => r.lastSeenAt }),
  }),
});

builder.queryFields((t) => ({
  adminIntegrationTelemetry: t.field({
    type: [TelemetryRef],
    authScopes: adminScopes('adminIntegrationTelemetry'),
    args: { merchantId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).listIntegrationTelemetry({ merchantId: String(args.merchantId) }),
  }),
  adminMerchants: t.field({
    type: [MerchantRef],
    authScopes: adminScopes('adminMerchants'),
    description: 'Merchants by id, a keyset page after `after`; with `search`, up to `limit` whose id or name starts with it (case-insensitive), without paging.',
    args: { limit: t.arg.int(), after: t.arg.id(), search: t.arg.string() },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).listMerchants({ limit: args.limit ?? 50, ...(args.after && { afterId: String(args.after) }), ...(args.search != null && { search: args.search }) }),
  }),
  adminMerchant: t.field({
    type: MerchantRef,
    authScopes: adminScopes('adminMerchant'),
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).getMerchant(String(args.id)),
  }),
}));

builder.mutationFields((t) => ({
  adminCreateMerchant: t.field({
    type: CreatedMerchantRef,
    authScopes: adminScopes('adminCreateMerchant'),
    errors: {},
    args: { name: t.arg.string({ required: true }), address: t.arg.string() },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).createMerchant({ input: { name: args.name, ...(args.address != null && { address: args.address }) } }),
  }),
  adminRotateApiKey: t.field({
    type: RotatedKeyRef,
    authScopes: adminScopes('adminRotateApiKey'),
    errors: {},
    args: { merchantId: t.arg.id({ required: true }), mode: t.arg({ type: ModeEnum, required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).rotateApiKey({ input: { merchantId: String(args.merchantId), mode: args.mode } }),
  }),
  adminRevokeApiKeys: t.field({
    type: RevokedKeysRef,
    authScopes: adminScopes('adminRevokeApiKeys'),
    errors: {},
    args: { merchantId: t.arg.id({ required: true }), mode: t.arg({ type: ModeEnum, required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).revokeApiKeys({ input: { merchantId: String(args.merchantId), mode: args.mode } }),
  }),
  adminSetMerchantStatus: t.field({
    type: MerchantRef,
    authScopes: adminScopes('adminSetMerchantStatus'),
    errors: {},
    args: { merchantId: t.arg.id({ required: true }), status: t.arg({ type: MerchantStatusEnum, required: true }) },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).setMerchantStatus({ input: { merchantId: String(args.merchantId), status: args.status } }),
  }),
  adminSetIntegrationStatus: t.field({
    type: MerchantRef,
    authScopes: adminScopes('adminSetIntegrationStatus'),
    errors: {},
    args: {
      merchantId: t.arg.id({ required: true }),
      integration: t.arg({ type: IntegrationEnum, required: true }),
      status: t.arg({ type: IntegrationStatusEnum, required: true }),
    },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).setIntegrationStatus({
        input: { merchantId: String(args.merchantId), integration: args.integration, status: args.status },
      }),
  }),
  adminSetMerchantRateLimit: t.field({
    type: MerchantRef,
    authScopes: adminScopes('adminSetMerchantRateLimit'),
    errors: {},
    args: { merchantId: t.arg.id({ required: true }), perMin: t.arg.int() },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).setMerchantRateLimit({ input: { merchantId: String(args.merchantId), perMin: args.perMin ?? null } }),
  }),
  adminSetNotificationCountries: t.field({
    type: MerchantRef,
    description:
      "The country calling codes (\"56\", \"54\") the merchant's live SMS and WhatsApp may reach; others are written `blocked` (`country_not_allowed`). Null: back to the default, Chile (56) alone; []: none.",
    authScopes: adminScopes('adminSetNotificationCountries'),
    errors: {},
    args: { merchantId: t.arg.id({ required: true }), countries: t.arg.stringList() },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).setNotificationCountries({ input: { merchantId: String(args.merchantId), countries: args.countries ?? null } }),
  }),
  adminRotateApiSecret: t.field({
    type: RotatedSecretRef,
    authScopes: adminScopes('adminRotateApiSecret'),
    errors: {},
    args: { merchantId: t.arg.id({ required: true }), overlapHours: t.arg.float() },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).rotateApiSecret({
        input: { merchantId: String(args.merchantId), ...(args.overlapHours != null && { overlapHours: args.overlapHours }) },
      }),
  }),
  adminCreateCourier: t.field({
    type: CreatedCourierRef,
    authScopes: adminScopes('adminCreateCourier'),
    errors: {},
    args: {
      name: t.arg.string({ required: true }),
      phone: t.arg.string({ required: true }),
      vehicle: t.arg({ type: VehicleEnum, required: true }),
      plate: t.arg.string({ required: true }),
      mode: t.arg({ type: ModeEnum }),
    },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).createCourier({
        input: { name: args.name, phone: args.phone, vehicle: args.vehicle, plate: args.plate, ...(args.mode && { mode: args.mode }) },
      }),
  }),
  adminInviteCourier: t.field({
    type: CourierSignInLinkRef,
    description: "A new one-time sign-in link for the courier app; the courier's older unused links stop working.",
    authScopes: adminScopes('adminInviteCourier'),
    errors: {},
    args: { courierId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).inviteCourier({ input: { courierId: String(args.courierId) } }),
  }),
  adminRotateCourierToken: t.field({
    type: RotatedCourierTokenRef,
    authScopes: adminScopes('adminRotateCourierToken'),
    errors: {},
    args: { courierId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).rotateCourierToken({ input: { courierId: String(args.courierId) } }),
  }),
  adminDisableCourier: t.field({
    type: DisabledCourierRef,
    authScopes: adminScopes('adminDisableCourier'),
    errors: {},
    args: { courierId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).disableCourier({ input: { courierId: String(args.courierId) } }),
  }),
  adminSetCourierShiftEnd: t.field({
    type: CourierShiftRef,
    description:
      "Sets or changes the planned end of an on-duty courier's duty (null clears it): in the future, at most 16 h ahead (VALIDATION_ERROR otherwise); " +
      'CONFLICT while the courier is off duty. Dispatch offers it nothing whose predicted pickup falls after the end; once the end passes, it goes off duty as soon as it carries nothing.',
    authScopes: adminScopes('adminSetCourierShiftEnd'),
    errors: {},
    args: { courierId: t.arg.id({ required: true }), shiftEndsAt: t.arg({ type: 'DateTime' }) },
    resolve: (_r, args, ctx) => adminOf(ctx).setCourierShiftEnd({ input: { courierId: String(args.courierId), shiftEndsAt: args.shiftEndsAt ?? null } }),
  }),
  adminEnableCourier: t.field({
    type: CourierAccountRef,
    authScopes: adminScopes('adminEnableCourier'),
    errors: {},
    args: { courierId: t.arg.id({ required: true }) },
    resolve: (_r, args, ctx) => adminOf(ctx).enableCourier({ input: { courierId: String(args.courierId) } }),
  }),
  adminCreateUser: t.field({
    type: CreatedUserRef,
    authScopes: adminScopes('adminCreateUser'),
    errors: {},
    args: { rut: t.arg.string({ required: true }), name: t.arg.string(), phone: t.arg.string() },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).createUser({
        input: { rut: args.rut, ...(args.name != null && { name: args.name }), ...(args.phone != null && { phone: args.phone }) },
      }),
  }),
}));
