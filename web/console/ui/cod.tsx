import { useState } from 'preact/hooks';
import { clp } from '../../shared/format.js';
import { useStrings, type Strings } from '../../shared/i18n.js';

const S: Strings<'payment' | 'prepaid' | 'cod' | 'amount' | 'expected' | 'collected' | 'mismatch'> = {
  es: { payment: 'Pago', prepaid: 'Pagado', cod: 'Contra entrega', amount: 'Monto a cobrar (CLP)', expected: 'Cobro contra entrega', collected: 'Efectivo cobrado', mismatch: 'No coincide con el monto a cobrar' },
  en: { payment: 'Payment', prepaid: 'Prepaid', cod: 'Cash on delivery', amount: 'Amount to collect (CLP)', expected: 'Cash on delivery', collected: 'Cash collected', mismatch: 'Differs from the amount to collect' },
};

/** The new-order form's payment (issue #30): cash on delivery asks for the amount the courier collects. */
export function PaymentFields() {
  const t = useStrings(S);
  const [cod, setCod] = useState(false);
  return (
    <>
      <label>{t.payment}<select name="payment" id="payment" onChange={(e) => setCod(e.currentTarget.value === 'cash_on_delivery')}>
        <option value="prepaid">{t.prepaid}</option><option value="cash_on_delivery">{t.cod}</option>
      </select></label>
      {cod && <label>{t.amount}<input name="codAmount" id="cod-amount" type="number" inputMode="numeric" min={1} max={10_000_000} step={1} required /></label>}
    </>
  );
}

/** The form's payment as CreateOrderInput's paymentMode and codAmount. */
export function paymentInputOf(data: FormData): { paymentMode: 'prepaid' | 'cash_on_delivery'; codAmount?: number } {
  return data.get('payment') === 'cash_on_delivery' ? { paymentMode: 'cash_on_delivery', codAmount: Number(data.get('codAmount')) } : { paymentMode: 'prepaid' };
}

/** The order's cash-on-delivery facts, inside its <dl>: the amount, and once delivered what was collected (a mismatch flagged). */
export function CodFacts(props: { amount: number | null; cod: { collected: number; mismatch: boolean } | null }) {
  const t = useStrings(S);
  if (props.amount === null) return null;
  return (
    <>
      <dt>{t.expected}</dt><dd id="cod-amount">{clp(props.amount)}</dd>
      {props.cod && <><dt>{t.collected}</dt><dd id="cod-collected" data-mismatch={String(props.cod.mismatch)} class={props.cod.mismatch ? 'flag' : undefined}>
        {clp(props.cod.collected)}{props.cod.mismatch && <> · <strong>{t.mismatch}</strong></>}
      </dd></>}
    </>
  );
}
