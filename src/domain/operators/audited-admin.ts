import type { Store } from '../../ports/store.js';
import type { AdminService } from '../admin.js';
import type { CodHandOver, CodPayout, CodService } from '../cod.js';
import type { IdempotencyScope, IdempotencyService, IdempotentCall, IdempotentOperation } from '../idempotency.js';
import type { MemberService } from '../members/service.js';
import type { OperatorOrders } from '../orders/operator-orders.js';
import type { Actor } from '../orders/transitions.js';
import type { AuditActor, Merchant, Operator, Order } from '../types.js';
import { parseInput } from '../validation.js';
import type { AuditLog } from './audit.js';
import { addNoteCommandSchema } from './schemas.js';
import type { OperatorService } from './service.js';

/** A string field of an unparsed input (the wrapped operation validates it; the snapshot read only tries). */
const field = (input: unknown, name: string): string | undefined => {
  const value = (input as Record<string, unknown> | null | undefined)?.[name];
  return typeof value === 'string' && value.length <= 64 ? value : undefined;
};

const merchantSnapshot = (m: Merchant | null) =>
  m && {
    name: m.name, status: m.status, integrations: { ...m.integrations }, rateLimitPerMin: m.rateLimitPerMin,
    ...(m.settings.notificationCountries && { notificationCountries: [...m.settings.notificationCountries] }),
  };
const operatorSnapshot = (o: Operator) => ({ email: o.email, role: o.role, status: o.status });
const orderSnapshot = (o: Order | null) => o && { status: o.status, courierId: o.courierId, merchantId: o.merchantId };

/** A money write: its input and the caller's idempotency key (required: refused without one). */
interface KeyedWrite extends IdempotentCall {
  input: unknown;
}

/** The operations of the money writes' idempotency records. */
export const RECORD_COD_HAND_OVER = 'cod.handover';
export const RECORD_COD_PAYOUT = 'cod.payout';

export type AuditedAdmin = ReturnType<ReturnType<typeof createAuditedAdmin>['as']>;

/**
 * Every administrative action, whoever asks (an operator, the ADMIN_TOKEN, the CLI), goes through
 * here and is recorded in the audit log once it succeeded: `as(actor)` gives the admin service's
 * operations with that actor bound. Reads pass through unrecorded. Snapshots are small and carry
 * no secret (keys, tokens, secrets and links are never recorded: auditSnapshot drops them by name too).
 */
export function createAuditedAdmin(deps: { admin: AdminService; members: MemberService; operators: OperatorService; orders: OperatorOrders; cod: CodService; audit: AuditLog; store: Store; idempotency: IdempotencyService }) {
  const { admin, members, operators, orders, cod, audit, store, idempotency } = deps;
  const merchantBefore = async (input: unknown) => {
    const id = field(input, 'merchantId');
    return id ? merchantSnapshot(await store.merchants.findById(id)) : null;
  };
  const courierBefore = async (input: unknown) => {
    const id = field(input, 'courierId');
    const courier = id ? await store.couriers.findById(id) : null;
    return courier && { accountStatus: courier.accountStatus, dutyStatus: courier.status };
  };

  function as(actor: AuditActor) {
    /** One key space per actor (an operator, the admin token, the CLI), live mode: money writes only run under a key. */
    const scopeOf = (operation: IdempotentOperation): IdempotencyScope => ({
      ownerId: actor.kind === 'operator' ? `operator:${actor.id}` : actor.kind, mode: 'live', operation,
    });
    const idempotent = <T>(operation: IdempotentOperation, options: KeyedWrite, execute: () => Promise<T>): Promise<T> =>
      idempotency.runCommand(options, { scope: scopeOf(operation), request: options.input, keyRequired: true }, execute);
    const record = (action: string, type: Parameters<AuditLog['record']>[0]['target']['type'], id: string, before: Record<string, unknown> | null, after: Record<string, unknown> | null) =>
      audit.record({ actor, action, target: { type, id }, before, after });

    /** A merchant change: the merchant before, the operation, the merchant after. */
    const onMerchant = <R extends object>(action: string, run: (o: { input: unknown }) => Promise<R>, after: (result: R, merchant: Merchant | null) => Record<string, unknown> | null) =>
      async (options: { input: unknown }): Promise<R> => {
        const before = await merchantBefore(options.input);
        const result = await run(options);
        const merchantId = (result as { merchantId?: string; id?: string }).merchantId ?? (result as { id?: string }).id!;
        await record(action, 'merchant', merchantId, before, after(result, await store.merchants.findById(merchantId)));
        return result;
      };
    const onCourier = <R extends { courierId: string }>(action: string, run: (o: { input: unknown }) => Promise<R>, after: (result: R) => Record<string, unknown>) =>
      async (options: { input: unknown }): Promise<R> => {
        const before = await courierBefore(options.input);
        const result = await run(options);
        await record(action, 'courier', result.courierId, before, after(result));
        return result;
      };

    /** The order's events name the operator (or `admin` with no id for the token and the CLI). */
    const orderActor: Actor = { kind: 'admin', id: actor.kind === 'operator' ? actor.id : null };
    /** An order override: the order before, the move through the lifecycle, the order after. */
    const onOrder = (action: string, run: (o: { input: unknown; actor: Actor }) => Promise<Order>, extra: (input: unknown) => Record<string, unknown> = () => ({})) =>
      async (options: { input: unknown }): Promise<Order> => {
        const id = field(options.input, 'orderId');
        const before = id ? orderSnapshot(await store.orders.findById(id)) : null;
        const result = await run({ input: options.input, actor: orderActor });
        await record(action, 'order', result.id, before, { ...orderSnapshot(result), ...extra(options.input) });
        return result;
      };

    return Object.assign({}, admin, {
      assignOrder: onOrder('order.assign', orders.assignOrder),
      releaseOrder: onOrder('order.release', orders.releaseOrder, (input) => ({ reason: field(input, 'reason') ?? null })),
      reassignOrder: onOrder('order.reassign', orders.reassignOrder),
      cancelOrder: onOrder('order.cancel', orders.cancelOrder, (input) => ({ reason: (input as { reason?: unknown }).reason ?? null })),
      createMerchant: onMerchant('merchant.create', admin.createMerchant, (_r, m) => merchantSnapshot(m)),
      rotateApiKey: onMerchant('api_key.rotate', admin.rotateApiKey, (r) => ({ mode: r.mode, revoked: r.revoked })),
      revokeApiKeys: onMerchant('api_key.revoke', admin.revokeApiKeys, (r) => ({ mode: r.mode, revoked: r.revoked })),
      rotateApiSecret: onMerchant('api_secret.rotate', admin.rotateApiSecret, (r) => ({ previousExpiresAt: r.previousExpiresAt })),
      setMerchantStatus: onMerchant('merchant.set_status', admin.setMerchantStatus, (_r, m) => merchantSnapshot(m)),
      setIntegrationStatus: onMerchant('integration.set_status', admin.setIntegrationStatus, (_r, m) => merchantSnapshot(m)),
      setMerchantRateLimit: onMerchant('merchant.set_rate_limit', admin.setMerchantRateLimit, (_r, m) => merchantSnapshot(m)),
      setNotificationCountries: onMerchant('merchant.set_notification_countries', admin.setNotificationCountries, (_r, m) => merchantSnapshot(m)),
      createCourier: onCourier('courier.create', admin.createCourier, (r) => ({ mode: r.mode, accountStatus: 'active' })),
      // The link itself is a credential: the entry says only when it runs out.
      inviteCourier: onCourier('courier.invite', admin.inviteCourier, (r) => ({ signInExpiresAt: r.signInExpiresAt })),
      rotateCourierToken: onCourier('courier.rotate_token', admin.rotateCourierToken, (r) => ({ accountStatus: r.accountStatus })),
      disableCourier: onCourier('courier.disable', admin.disableCourier, (r) => ({
        accountStatus: r.accountStatus, dutyStatus: r.dutyStatus, releasedOrderIds: r.releasedOrderIds, keptOrderIds: r.keptOrderIds,
      })),
      async setCourierShiftEnd(options: { input: unknown }) {
        const id = field(options.input, 'courierId');
        const before = id ? await store.couriers.findById(id) : null;
        const result = await admin.setCourierShiftEnd(options);
        await record('courier.set_shift_end', 'courier', result.courierId, before && { dutyStatus: before.status, shiftEndsAt: before.shiftEndsAt }, { dutyStatus: result.dutyStatus, shiftEndsAt: result.shiftEndsAt });
        return result;
      },
      enableCourier: onCourier('courier.enable', admin.enableCourier, (r) => ({ accountStatus: r.accountStatus, dutyStatus: r.dutyStatus })),
      async createUser(options: { input: unknown }) {
        const result = await admin.createUser(options);
        // The RUT identifies a person: the entry names the user id only.
        await record('user.create', 'user', result.userId, null, {});
        return result;
      },
      async inviteMember(options: { input: unknown }) {
        const invitation = await members.adminInviteMember(options);
        const { member } = invitation;
        await record('member.invite', 'member', member.id, null, { merchantId: member.merchantId, email: member.email, role: member.role, status: member.status });
        return invitation;
      },
      async resetMemberPassword(options: { input: unknown }) {
        const invitation = await members.adminResetMemberPassword(options);
        await record('member.reset_password', 'member', invitation.member.id, null, { merchantId: invitation.member.merchantId, email: invitation.member.email });
        return invitation;
      },
      async inviteOperator(options: { input: unknown }) {
        const invitation = await operators.inviteOperator(options);
        await record('operator.invite', 'operator', invitation.operator.id, null, operatorSnapshot(invitation.operator));
        return invitation;
      },
      async resetOperatorPassword(options: { input: unknown }) {
        const invitation = await operators.resetOperatorPassword(options);
        await record('operator.reset_password', 'operator', invitation.operator.id, null, { email: invitation.operator.email });
        return invitation;
      },
      async setOperatorStatus(options: { input: unknown }) {
        const { before, after } = await operators.setOperatorStatus(options);
        await record('operator.set_status', 'operator', after.id, operatorSnapshot(before), operatorSnapshot(after));
        return after;
      },
      async setOperatorRole(options: { input: unknown }) {
        const { before, after } = await operators.setOperatorRole(options);
        await record('operator.set_role', 'operator', after.id, operatorSnapshot(before), operatorSnapshot(after));
        return after;
      },
      /**
       * Cash a courier handed over (issue #39), under a required idempotency key (money: a retry
       * after a lost answer must not record it twice): recorded on the courier, with its ledger lines.
       */
      async recordCodHandOver(options: KeyedWrite): Promise<CodHandOver> {
        return idempotent(RECORD_COD_HAND_OVER, options, async () => {
          const handOver = await cod.recordCodHandOver({ input: options.input });
          await record('cod.hand_over', 'courier', handOver.courierId, null, { amount: handOver.amount, lines: handOver.lines.map((l) => ({ ledgerEntryId: l.id, orderId: l.orderId, merchantId: l.merchantId, amount: l.amount })) });
          return handOver;
        });
      },
      /** A payout to a merchant (bounded by the cash handed over for it), under a required idempotency key. */
      async recordCodPayout(options: KeyedWrite): Promise<CodPayout> {
        return idempotent(RECORD_COD_PAYOUT, options, async () => {
          const payout = await cod.recordCodPayout({ input: options.input });
          await record('cod.pay_out', 'merchant', payout.merchantId, null, { ledgerEntryId: payout.id, amount: payout.amount });
          return payout;
        });
      },
      /** A decision on a claim far above its order's amount: recorded on the courier when it changed the claim. */
      async resolveCodClaim(options: { input: unknown }) {
        const { claim, changed } = await cod.resolveCodClaim(options);
        if (changed) await record(`cod.claim_${claim.status === 'confirmed' ? 'confirm' : 'reject'}`, 'courier', claim.courierId ?? 'unknown', { status: 'pending_confirmation' }, { claimId: claim.id, orderId: claim.orderId, collected: claim.collected, expected: claim.expected, status: claim.status });
        return claim;
      },
      /** A note on anything (support's one write): an audit entry of its own, listed with the target's history. */
      async addNote(options: { input: unknown }) {
        const input = parseInput(addNoteCommandSchema, options.input);
        return audit.record({ actor, action: 'note.add', target: { type: input.targetType, id: input.targetId }, before: null, after: { text: input.text } });
      },
    });
  }

  return { as };
}
