import { generateSigningKey } from './webhooks/signing.js';
import { z } from 'zod';
import type { Clock } from '../ports/clock.js';
import type { IdSource } from '../ports/ids.js';
import type { Store } from '../ports/store.js';
import type { CourierService } from './couriers.js';
import type { CourierSessionService } from './courier-sessions.js';
import {
  type SecretBox,
  displayPrefix,
  generateApiKey,
  generateApiSecret,
  generateCourierToken,
  hashToken,
} from './credentials.js';
import { parseIdCursor } from './cursors.js';
import { AppError } from './errors.js';
import { DEFAULT_SETTINGS } from './merchants.js';
import { DEFAULT_NOTIFICATION_COUNTRIES } from './notifications/types.js';
import { phoneSchema } from './phone.js';
import { normalizeRut } from './rut.js';
import {
  type ApiKeyRecord,
  type Courier,
  INTEGRATION_NAMES,
  INTEGRATION_STATUSES,
  MERCHANT_STATUSES,
  MODES,
  type Merchant,
  type Mode,
  VEHICLE_TYPES,
} from './types.js';
import { parseInput } from './validation.js';
import { ORDER_NOTES } from './orders/notes.js';
import { isSandboxRunCourier } from './sandbox-run-couriers.js';
import { checkShiftEnd } from './shifts.js';

const idSchema = z.string().trim().min(1).max(64);

export const adminInputSchemas = {
  createMerchant: z.strictObject({
    name: z.string().trim().min(1).max(200),
    address: z.string().trim().min(3).max(300).optional(),
  }),
  merchantRef: z.strictObject({ merchantId: idSchema }),
  merchantSearch: z.string().trim().min(1).max(100),
  failingEndpoints: z.strictObject({ merchantId: idSchema.optional(), limit: z.number().int().min(1).max(200).default(100) }),
  keyRef: z.strictObject({ merchantId: idSchema, mode: z.enum(MODES) }),
  setMerchantStatus: z.strictObject({ merchantId: idSchema, status: z.enum(MERCHANT_STATUSES) }),
  setIntegrationStatus: z.strictObject({
    merchantId: idSchema,
    integration: z.enum(INTEGRATION_NAMES),
    status: z.enum(INTEGRATION_STATUSES),
  }),
  setRateLimit: z.strictObject({ merchantId: idSchema, perMin: z.number().int().min(1).max(1_000_000).nullable() }),
  /** Country calling codes ("56", "+54"); null goes back to the default (Chile alone); [] allows none. */
  setNotificationCountries: z.strictObject({
    merchantId: idSchema,
    countries: z
      .array(z.string().trim().regex(/^\+?[1-9]\d{0,2}$/, 'a country calling code: 1 to 3 digits, e.g. 56').transform((c) => c.replace(/^\+/, '')))
      .max(60)
      .transform((v) => [...new Set(v)].sort())
      .nullable(),
  }),
  rotateSecret: z.strictObject({ merchantId: idSchema, overlapHours: z.number().min(0).max(168).default(24) }),
  createCourier: z.strictObject({
    name: z.string().trim().min(1).max(200),
    phone: phoneSchema,
    vehicle: z.enum(VEHICLE_TYPES),
    plate: z.string().trim().min(1).max(16).toUpperCase(),
    mode: z.enum(MODES).default('live'),
  }),
  courierRef: z.strictObject({ courierId: idSchema }),
  /** null clears the planned end. */
  courierShiftEnd: z.strictObject({ courierId: idSchema, shiftEndsAt: z.iso.datetime({ offset: true }).nullable() }),
  createUser: z.strictObject({
    rut: z.string().max(20).transform((v, ctx) => {
      const rut = normalizeRut(v);
      if (!rut) ctx.addIssue({ code: 'custom', message: 'not a valid RUT (format or check digit)' });
      return rut ?? '';
    }),
    name: z.string().trim().min(1).max(200).optional(),
    phone: phoneSchema.optional(),
  }),
};

export type AdminService = ReturnType<typeof createAdminService>;

/** Administrative operations; the CLI and the admin GraphQL mutations both call these. */
export function createAdminService(deps: {
  store: Store;
  clock: Clock;
  ids: IdSource;
  secretBox: SecretBox;
  couriers: Pick<CourierService, 'withdrawCourier' | 'activeOrders' | 'changeShiftEnd'>;
  /** The courier app's sign-in links and sessions (issue #27). */
  courierSessions: Pick<CourierSessionService, 'issueSignInLink' | 'inviteCourier' | 'revokeAll'>;
  /** Every node's credential caches forget the merchant (revocation, rotation, status). */
  credentialsChanged?: (options: { merchantId: string }) => Promise<void>;
}) {
  const { store, clock, ids, secretBox, couriers, courierSessions } = deps;
  const changed = async <T>(merchantId: string, result: T): Promise<T> => {
    await deps.credentialsChanged?.({ merchantId });
    return result;
  };
  const now = () => clock.now().toISOString();

  function newKey(merchantId: string, mode: Mode): { key: string; record: ApiKeyRecord } {
    const key = generateApiKey(mode);
    return {
      key,
      record: { id: ids.next('key'), merchantId, mode, hash: hashToken(key), prefix: displayPrefix(key), status: 'active', createdAt: now(), revokedAt: null },
    };
  }

  async function requireMerchant(merchantId: string): Promise<Merchant> {
    const merchant = await store.merchants.findById(merchantId);
    if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', `No merchant ${merchantId}`);
    return merchant;
  }

  async function createMerchant(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.createMerchant, options.input);
    const at = now();
    const merchant: Merchant = {
      id: ids.next('m'),
      name: input.name,
      status: 'active',
      address: input.address ?? null,
      integrations: { plugin: 'pending_approval', storefront: 'pending_approval', erp: 'pending_approval' },
      settings: { ...DEFAULT_SETTINGS },
      rateLimitPerMin: null,
      createdAt: at,
      updatedAt: at,
    };
    const live = newKey(merchant.id, 'live');
    const test = newKey(merchant.id, 'test');
    const apiSecret = generateApiSecret();
    await store.merchants.create({
      merchant,
      keys: [live.record, test.record],
      secret: { id: ids.next('sec'), merchantId: merchant.id, ciphertext: secretBox.seal(apiSecret), createdAt: at, expiresAt: null, signingKey: secretBox.seal(generateSigningKey()) },
    });
    return { merchantId: merchant.id, liveKey: live.key, testKey: test.key, apiSecret };
  }

  async function rotateApiKey(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.keyRef, options.input);
    await requireMerchant(input.merchantId);
    const fresh = newKey(input.merchantId, input.mode);
    const revoked = await store.apiKeys.replace(fresh.record, now());
    return changed(input.merchantId, { merchantId: input.merchantId, mode: input.mode, apiKey: fresh.key, revoked });
  }

  async function revokeApiKeys(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.keyRef, options.input);
    await requireMerchant(input.merchantId);
    const revoked = await store.apiKeys.revoke({ merchantId: input.merchantId, mode: input.mode, revokedAt: now() });
    return changed(input.merchantId, { merchantId: input.merchantId, mode: input.mode, revoked });
  }

  async function setMerchantStatus(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.setMerchantStatus, options.input);
    await requireMerchant(input.merchantId);
    return changed(input.merchantId, (await store.merchants.update(input.merchantId, { status: input.status }, now()))!);
  }

  async function setIntegrationStatus(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.setIntegrationStatus, options.input);
    await requireMerchant(input.merchantId);
    return changed(input.merchantId, (await store.merchants.update(input.merchantId, { integrations: { [input.integration]: input.status } }, now()))!);
  }

  async function setMerchantRateLimit(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.setRateLimit, options.input);
    await requireMerchant(input.merchantId);
    return changed(input.merchantId, (await store.merchants.update(input.merchantId, { rateLimitPerMin: input.perMin }, now()))!);
  }

  /**
   * The operator's approval of the countries a merchant's live SMS and WhatsApp may reach (issue
   * #39 item 3); messages to others are written `blocked` (`country_not_allowed`).
   */
  async function setNotificationCountries(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.setNotificationCountries, options.input);
    await requireMerchant(input.merchantId);
    const countries = input.countries ?? [...DEFAULT_NOTIFICATION_COUNTRIES];
    return changed(input.merchantId, (await store.merchants.update(input.merchantId, { settings: { notificationCountries: countries } }, now()))!);
  }

  async function rotateApiSecret(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.rotateSecret, options.input);
    await requireMerchant(input.merchantId);
    const apiSecret = generateApiSecret();
    const at = clock.now();
    const previousExpiresAt = new Date(at.getTime() + input.overlapHours * 3_600_000).toISOString();
    await store.merchants.rotateSecret(
      { id: ids.next('sec'), merchantId: input.merchantId, ciphertext: secretBox.seal(apiSecret), createdAt: at.toISOString(), expiresAt: null, signingKey: secretBox.seal(generateSigningKey()) },
      previousExpiresAt,
    );
    return { merchantId: input.merchantId, apiSecret, previousExpiresAt };
  }

  async function createCourier(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.createCourier, options.input);
    const token = generateCourierToken();
    const at = now();
    const courierId = ids.next('cr');
    await store.couriers.insert({
      id: courierId, mode: input.mode, name: input.name, phone: input.phone, vehicle: input.vehicle, plate: input.plate,
      tokenHash: hashToken(token), accountStatus: 'active', status: 'off_duty', job: null, shiftEndsAt: null, location: null, locationAt: null, createdAt: at, updatedAt: at,
    });
    const link = await courierSessions.issueSignInLink({ courierId });
    return { courierId, token, mode: input.mode, signInUrl: link.signInUrl, signInExpiresAt: link.expiresAt };
  }

  /** A new one-time sign-in link for the courier app; the courier's older unused links stop working. */
  async function inviteCourier(options: { input: unknown }) {
    const { courierId } = parseInput(adminInputSchemas.courierRef, options.input);
    const link = await courierSessions.inviteCourier({ courierId });
    return { courierId, signInUrl: link.signInUrl, signInExpiresAt: link.expiresAt };
  }

  const courierNotFound = (courierId: string) => new AppError('COURIER_NOT_FOUND', `No courier ${courierId}`);

  /** A new token, shown once; the old one stops authenticating at once. */
  async function rotateCourierToken(options: { input: unknown }) {
    const { courierId } = parseInput(adminInputSchemas.courierRef, options.input);
    const token = generateCourierToken();
    const courier = await store.couriers.replaceTokenHash({ id: courierId, tokenHash: hashToken(token), updatedAt: now() });
    if (!courier) throw courierNotFound(courierId);
    // The courier app's sessions end with the old token (sockets within the credential recheck).
    await courierSessions.revokeAll({ courierId });
    return { courierId, token, accountStatus: courier.accountStatus };
  }

  /** The courier's token stops authenticating at once; it drops out of dispatch (see withdrawCourier). */
  async function disableCourier(options: { input: unknown }) {
    const { courierId } = parseInput(adminInputSchemas.courierRef, options.input);
    if (!(await store.couriers.setAccountStatus({ id: courierId, accountStatus: 'disabled', updatedAt: now() }))) throw courierNotFound(courierId);
    await courierSessions.revokeAll({ courierId });
    const withdrawn = await couriers.withdrawCourier({ courierId, reason: ORDER_NOTES.courierDisabled });
    return {
      courierId, accountStatus: withdrawn.courier.accountStatus, dutyStatus: withdrawn.courier.status,
      releasedOrderIds: withdrawn.releasedOrderIds, keptOrderIds: withdrawn.keptOrderIds,
    };
  }

  /**
   * Sets or changes (null: clears) the planned end of an on-duty courier's duty (issue #37): the
   * same bounds as the courier's own (future, at most 16 h ahead); CONFLICT while it is off duty.
   */
  async function setCourierShiftEnd(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.courierShiftEnd, options.input);
    const shiftEndsAt = checkShiftEnd({ shiftEndsAt: input.shiftEndsAt, now: clock.now(), field: 'shiftEndsAt' });
    const courier = await couriers.changeShiftEnd({ courierId: input.courierId, shiftEndsAt });
    if (courier) return { courierId: courier.id, dutyStatus: courier.status, shiftEndsAt: courier.shiftEndsAt };
    if (!(await store.couriers.findById(input.courierId))) throw courierNotFound(input.courierId);
    throw new AppError('CONFLICT', `Courier ${input.courierId} is off duty: a planned end is given going on duty`, { details: { courierId: input.courierId } });
  }

  /** The token authenticates again; the courier comes back off duty, or busy on orders it kept. */
  async function enableCourier(options: { input: unknown }) {
    const { courierId } = parseInput(adminInputSchemas.courierRef, options.input);
    let courier = await store.couriers.setAccountStatus({ id: courierId, accountStatus: 'active', updatedAt: now() });
    if (!courier) throw courierNotFound(courierId);
    // Kept orders finished meanwhile (by the merchant) could not free a disabled courier.
    if (courier.status === 'busy' && courier.job && (await couriers.activeOrders(courier)).length === 0) {
      const { job } = courier;
      courier = (await store.couriers.setStatus({ id: courierId, status: 'off_duty', from: ['busy'], fromJobId: job.id, job: null, updatedAt: now() })) ?? courier;
    }
    return { courierId, accountStatus: courier.accountStatus, dutyStatus: courier.status };
  }

  async function createUser(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.createUser, options.input);
    const userId = ids.next('usr');
    const inserted = await store.users.insert({ id: userId, rut: input.rut, name: input.name ?? null, phone: input.phone ?? null, createdAt: now() });
    if (!inserted) throw new AppError('CONFLICT', `RUT ${input.rut} is already registered`);
    return { userId, rut: input.rut };
  }

  async function listIntegrationTelemetry(options: { merchantId: string }) {
    await requireMerchant(options.merchantId);
    return store.telemetry.listByMerchant(options.merchantId);
  }

  /** A keyset page of merchants; with `search`, the first `limit` whose id or name (case-insensitive) starts with it, no paging. */
  async function listMerchants(options: { limit?: number; afterId?: string; search?: string }) {
    if (options.search !== undefined) {
      const search = parseInput(adminInputSchemas.merchantSearch, options.search);
      const idPrefix = /^m_/i.test(search) ? `m_${search.slice(2).toUpperCase()}` : search;
      return store.merchants.search({ idPrefix, namePrefix: search.toLowerCase(), limit: Math.min(Math.max(options.limit ?? 50, 1), 200) });
    }
    return store.merchants.list({ limit: Math.min(Math.max(options.limit ?? 50, 1), 200), ...(options.afterId !== undefined && { afterId: parseIdCursor('m', options.afterId) }) });
  }

  /** Every courier, a keyset page at a time (the operators' list); `afterId` is the last id of the previous page. */
  async function listCouriers(options: { mode?: Mode; status?: Courier['status']; limit?: number; afterId?: string }) {
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
    const page = await store.couriers.listPage({
      limit, ...(options.mode && { mode: options.mode }), ...(options.status && { status: options.status }),
      ...(options.afterId !== undefined && { afterId: parseIdCursor('cr', options.afterId) }),
    });
    // A sandbox run's couriers are the run's, not the fleet's: never listed (the cursor still follows the page read).
    const couriers = page.filter((c) => !isSandboxRunCourier(c));
    return { couriers, nextCursor: page.length === limit ? page.at(-1)!.id : null };
  }

  /** Endpoints failing or disabled with a reason (issue #29), each with its merchant's name. */
  async function listFailingWebhookEndpoints(options: { input: unknown }) {
    const input = parseInput(adminInputSchemas.failingEndpoints, options.input);
    const endpoints = await store.webhooks.listTroubledEndpoints(input);
    const ids = [...new Set(endpoints.map((e) => e.merchantId))];
    const names = new Map(await Promise.all(ids.map(async (id) => [id, (await store.merchants.findById(id))?.name ?? null] as const)));
    return endpoints.map((endpoint) => ({ endpoint, merchantName: names.get(endpoint.merchantId) ?? null }));
  }

  return {
    listFailingWebhookEndpoints,
    createMerchant, rotateApiKey, revokeApiKeys, setMerchantStatus, setIntegrationStatus,
    setMerchantRateLimit, setNotificationCountries, rotateApiSecret, createCourier, inviteCourier, rotateCourierToken, disableCourier, enableCourier, setCourierShiftEnd, createUser, listMerchants, listCouriers, listIntegrationTelemetry, getMerchant: requireMerchant,
  };
}
