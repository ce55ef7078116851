import { useEffect, useState } from 'preact/hooks';
import { clp } from '../../shared/format.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { courierApi, type CourierCash } from '../api.js';

const S: Strings<'collect' | 'collectHint' | 'collectUnknown' | 'differs' | 'inHand' | 'inHandHint' | 'pending'> = {
  es: {
    collect: 'Efectivo cobrado (CLP)', collectHint: 'El cliente debe pagar {amount}. Si pagó otro monto, escríbelo: quedará registrado.',
    collectUnknown: 'El comercio no informó el monto. Escribe cuánto te pagó el cliente: quedará registrado.',
    differs: 'No coincide con {amount}: se registrará la diferencia.', inHand: 'Efectivo en mano', inHandHint: 'Cobrado contra entrega y aún no entregado a la central.',
    pending: 'Por confirmar: {amount} informados muy por encima del pedido; la central los revisará.',
  },
  en: {
    collect: 'Cash collected (CLP)', collectHint: 'The customer must pay {amount}. If they paid a different amount, enter it: it will be recorded.',
    collectUnknown: 'The merchant gave no amount. Enter what the customer paid you: it will be recorded.',
    differs: 'Differs from {amount}: the difference will be recorded.', inHand: 'Cash in hand', inHandHint: 'Collected on delivery and not yet handed to your dispatcher.',
    pending: 'To confirm: {amount} reported far above the order; your dispatcher will check it.',
  },
};

/** A whole number of pesos, or null while the field is empty or malformed. */
export const pesosOf = (text: string): number | null => (/^\d{1,8}$/.test(text.trim()) ? Number(text.trim()) : null);

/**
 * The cash the courier confirms at a cash-on-delivery door (issue #30), prefilled with what the
 * order expects; an order of unknown amount (expected null) asks for it, empty, with no figure shown.
 */
export function CodCollectedField({ expected, value, onChange }: { expected: number | null; value: string; onChange: (text: string) => void }) {
  const t = useStrings(S);
  const given = pesosOf(value);
  return (
    <label class="cod-collect">
      {t.collect}
      <input id="cod-collected" inputMode="numeric" autoComplete="off" maxLength={8} value={value} aria-describedby="cod-collected-hint"
        onInput={(e) => onChange(e.currentTarget.value.replace(/\D/g, ''))} />
      <small id="cod-collected-hint">{expected === null ? t.collectUnknown : t.collectHint.replace('{amount}', clp(expected))}</small>
      {expected !== null && given !== null && given !== expected && <small class="warn" id="cod-mismatch" role="status">{t.differs.replace('{amount}', clp(expected))}</small>}
    </label>
  );
}

/** "Efectivo en mano": the courier's cash collected and not yet handed over; read again when `refreshKey` changes (after a delivery). */
export function CashCard({ refreshKey }: { refreshKey: string }) {
  const t = useStrings(S);
  const [cash, setCash] = useState<CourierCash | null>(null);
  useEffect(() => { courierApi.cash().then(setCash, () => undefined); }, [refreshKey]);
  if (!cash || (cash.balance === 0 && cash.collected === 0 && !cash.pending_confirmation)) return null;
  return (
    <section class="card cash" id="cash-card" aria-labelledby="cash-title" data-balance={cash.balance}>
      <h2 id="cash-title">{t.inHand}</h2>
      <p class="cash-amount" id="cash-balance">{clp(cash.balance)}</p>
      <p class="note">{t.inHandHint}</p>
      {!!cash.pending_confirmation && <p class="note warn" id="cash-pending">{t.pending.replace('{amount}', clp(cash.pending_confirmation))}</p>}
    </section>
  );
}
