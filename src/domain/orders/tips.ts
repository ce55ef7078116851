import { z } from 'zod';
import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { Store } from '../../ports/store.js';
import type { MerchantPrincipal } from '../auth.js';
import { AppError } from '../errors.js';
import { assertPermitted } from '../members/roles.js';
import { merchantScope, type IdempotencyService, type IdempotentCall } from '../idempotency.js';
import type { Courier, LedgerEntry, Order } from '../types.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { isStatusIn, ORDER_STATUS_SETS } from '../vocabulary.js';

/** A tip (CLP, integer pesos), at creation or in total after additions (issue #30 item 4). */
export const TIP_MAX = 200_000;
/** A tip may still be added this long after the delivery. */
export const TIP_WINDOW_MS = 24 * 3_600_000;

export const tipSchema = z.number().int().min(0).max(TIP_MAX);
export const addTipCommandSchema = z.strictObject({ amount: z.number().int().min(1).max(TIP_MAX) });
export type AddTipCommand = z.output<typeof addTipCommandSchema>;


/** TIP_NOT_ALLOWED when the order takes no tip now. */
export function assertTippable(order: Pick<Order, 'id' | 'status' | 'proof'>, now: Date): void {
  if (!isStatusIn('tippable', order.status)) throw new AppError('TIP_NOT_ALLOWED', `Order ${order.id} is ${order.status}: a tip goes only to an order on its way or delivered`);
  const deliveredAt = order.status === 'completed' ? order.proof?.deliveredAt : undefined;
  if (deliveredAt && now.getTime() - Date.parse(deliveredAt) > TIP_WINDOW_MS) {
    throw new AppError('TIP_NOT_ALLOWED', `Order ${order.id} was delivered more than 24 h ago (${deliveredAt}): tips are added until 24 h after the delivery`);
  }
}

/** The live ledger's entry of a tip: charged to the merchant, paid to the courier. The sandbox never charges. */
export function tipLedgerEntry(options: { order: Order; amount: number; ids: IdSource; at: string }): LedgerEntry | null {
  const { order, amount } = options;
  if (order.mode !== 'live' || amount <= 0) return null;
  return { id: options.ids.next('led'), merchantId: order.merchantId, mode: order.mode, orderId: order.id, kind: 'tip', amount, at: options.at };
}

/** A courier's delivered order in the earnings: what the tariff pays for it (none yet) and the tip. */
export interface EarningsLine {
  order: Order;
  deliveredAt: string;
  /** The courier's pay for the delivery: the tariff has no courier pay, so null (earnings are the tips). */
  deliveryPay: number | null;
  tip: number;
}

export interface CourierEarnings {
  from: string;
  to: string;
  lines: EarningsLine[];
  totals: { deliveries: number; deliveryPay: number | null; tips: number; earnings: number };
  /** More deliveries than one answer lists fell in the range (the totals count the listed ones). */
  truncated: boolean;
}

/** At most this many deliveries per earnings answer. */
export const EARNINGS_MAX_LINES = 500;
/** The longest range one question may ask about. */
const EARNINGS_MAX_RANGE_MS = 93 * 24 * 3_600_000;

const instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s).toISOString());
export const earningsQuerySchema = z
  .strictObject({ from: instant, to: instant })
  .refine((q) => q.from < q.to, { message: 'from must be before to', path: ['to'] })
  .refine((q) => Date.parse(q.to) - Date.parse(q.from) <= EARNINGS_MAX_RANGE_MS, { message: 'the range may span at most 93 days', path: ['to'] });
export type EarningsQuery = z.output<typeof earningsQuerySchema>;

export type TipService = ReturnType<typeof createTipService>;

/** The operation of addTip's idempotency records. */
export const ADD_TIP = 'orders.tip';

export function createTipService(deps: {
  store: Store;
  outbox: WebhookOutbox;
  clock: Clock;
  ids: IdSource;
  getOrder: (options: { principal: MerchantPrincipal; ref: string }) => Promise<Order>;
  idempotency: IdempotencyService;
}) {
  const { store, outbox, clock, ids, idempotency } = deps;

  /**
   * Adds to the order's tip: a change of record, not a transition (the status and sequence stay).
   * The ledger entry (live only), the order.tip_added webhooks and the feed event are written with it.
   * Money: it runs only under an idempotency key (a retry after a lost answer must not pay twice).
   */
  async function addTip(options: { principal: MerchantPrincipal; ref: string; input: AddTipCommand } & IdempotentCall): Promise<Order> {
    const { principal, ref, input } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, ADD_TIP), request: { ref, input }, keyRequired: true }, () => tip({ principal, ref, input }));
  }

  async function tip(options: { principal: MerchantPrincipal; ref: string; input: AddTipCommand }): Promise<Order> {
    assertPermitted(options.principal, 'dispatch');
    const { amount } = options.input;
    const order = await deps.getOrder(options);
    const now = clock.now();
    assertRoom(order, amount, now);
    const at = now.toISOString();
    const { outbox: deliveries, feed } = await outbox.prepareTipAdded({ order, amount, at });
    const updated = await store.orders.addTip({
      id: order.id, from: [...ORDER_STATUS_SETS.tippable], amount, maxTotal: TIP_MAX, feed,
      ledger: (o) => tipLedgerEntry({ order: o, amount, ids, at }),
      ...(deliveries && { outbox: deliveries }),
    });
    if (updated) return updated;
    // Refused by the store: the order moved on, or another tip took the room meanwhile; say which.
    const current = await store.orders.findById(order.id);
    if (current) assertRoom(current, amount, now);
    throw new AppError('TIP_NOT_ALLOWED', `Order ${order.id} changed meanwhile and takes no tip now`);
  }

  /** TIP_NOT_ALLOWED, or VALIDATION_ERROR on `amount` when the order's tip would pass TIP_MAX. */
  function assertRoom(order: Order, amount: number, now: Date): void {
    assertTippable(order, now);
    if ((order.tip ?? 0) + amount > TIP_MAX) {
      throw new AppError('VALIDATION_ERROR', `The order's tip would exceed ${TIP_MAX} CLP`, {
        fields: [{ field: 'amount', message: `at most ${TIP_MAX - (order.tip ?? 0)} more (the tip is ${order.tip ?? 0} of at most ${TIP_MAX})` }],
      });
    }
  }

  /** Whether addTip would take a tip now: a tippable status, within 24 h of the delivery, below TIP_MAX. */
  function isTippable(options: { order: Order }): boolean {
    const { order } = options;
    if ((order.tip ?? 0) >= TIP_MAX) return false;
    try {
      assertTippable(order, clock.now());
      return true;
    } catch {
      return false;
    }
  }

  /** The courier's delivered orders in [from, to) with their tips and totals (the app's "Ganancias"). */
  async function courierEarnings(options: { courier: Pick<Courier, 'id'>; input: EarningsQuery }): Promise<CourierEarnings> {
    const { from, to } = options.input;
    const found = await store.orders.listDeliveredBy({ courierId: options.courier.id, from, to, limit: EARNINGS_MAX_LINES + 1 });
    const lines = found.slice(0, EARNINGS_MAX_LINES).map((order) => ({ order, deliveredAt: order.proof!.deliveredAt, deliveryPay: null, tip: order.tip ?? 0 }));
    const tips = lines.reduce((sum, l) => sum + l.tip, 0);
    return { from, to, lines, totals: { deliveries: lines.length, deliveryPay: null, tips, earnings: tips }, truncated: found.length > EARNINGS_MAX_LINES };
  }

  return { addTip, isTippable, courierEarnings };
}
