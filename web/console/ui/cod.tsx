import { useState } from 'preact/hooks';
import { clp } from '../../shared/format.js';
import { useStrings, type Strings } from '../../shared/i18n.js';

const S: Strings<'payment' | 'prepaid' | 'cod' | 'amount' | 'amountHint' | 'expected' | 'unknown' | 'collected' | 'mismatch'> = {
  es: {
    payment: 'Pago', prepaid: 'Pagado', cod: 'Contra entrega', amount: 'Monto a cobrar (CLP)', amountHint: 'Opcional: sin monto, el repartidor registra lo que cobró.',
    expected: 'Cobro contra entrega', unknown: 'Monto no informado', collected: 'Efectivo cobrado', mismatch: 'No coincide con el monto a cobrar',
  },
  en: {
    payment: 'Payment', prepaid: 'Prepaid', cod: 'Cash on delivery', amount: 'Amount to collect (CLP)', amountHint: 'Optional: without an amount, the courier records what was collected.',
    expected: 'Cash on delivery', unknown: 'Amount unknown', collected: 'Cash collected', mismatch: 'Differs from the amount to collect',
  },
};

/** The new-order form's payment (issue #30): cash on delivery may give the amount the courier collects (left empty: unknown). */
export function PaymentFields() {
  const t = useStrings(S);
  const [cod, setCod] = useState(false);
  return (
    <>
      <label>{t.payment}<select name="payment" id="payment" onChange={(e) => setCod(e.currentTarget.value === 'cash_on_delivery')}>
        <option value="prepaid">{t.prepaid}</option><option value="cash_on_delivery">{t.cod}</option>
      </select></label>
      {cod && <>
        <label>{t.amount}<input name="codAmount" id="cod-amount" type="number" inputMode="numeric" min={1} max={10_000_000} step={1} aria-describedby="cod-amount-hint" /></label>
        <small id="cod-amount-hint">{t.amountHint}</small>
      </>}
    </>
  );
}

/** The form's payment as CreateOrderInput's paymentMode and codAmount (an empty amount: none, unknown). */
export function paymentInputOf(data: FormData): { paymentMode: 'prepaid' | 'cash_on_delivery'; codAmount?: number } {
  if (data.get('payment') !== 'cash_on_delivery') return { paymentMode: 'prepaid' };
  const amount = String(data.get('codAmount') ?? '').trim();
  return { paymentMode: 'cash_on_delivery', ...(amount !== '' && { codAmount: Number(amount) }) };
}

/** Text for an expected COD amount: the pesos, or "monto no informado" when the order gave none. */
export function useCodAmountText(): (amount: number | null) => string {
  const t = useStrings(S);
  return (amount) => (amount === null ? t.unknown : clp(amount));
}

/**
 * The order's cash-on-delivery facts, inside its <dl>: the amount (or "monto no informado"), and
 * once delivered what was collected (a mismatch flagged).
 */
export function CodFacts(props: { paymentMode: string; amount: number | null; cod: { collected: number; mismatch: boolean } | null }) {
  const t = useStrings(S);
  if (props.paymentMode !== 'cash_on_delivery' && props.amount === null) return null;
  return (
    <>
      <dt>{t.expected}</dt><dd id="cod-amount" data-known={String(props.amount !== null)}>{props.amount === null ? t.unknown : clp(props.amount)}</dd>
      {props.cod && <><dt>{t.collected}</dt><dd id="cod-collected" data-mismatch={String(props.cod.mismatch)} class={props.cod.mismatch ? 'flag' : undefined}>
        {clp(props.cod.collected)}{props.cod.mismatch && <> · <strong>{t.mismatch}</strong></>}
      </dd></>}
    </>
  );
}
