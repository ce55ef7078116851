import { useEffect, useRef, useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { clp } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useFieldErrors } from '../../shared/ui/field-errors.js';

const ADD_TIP = graphql(`mutation ConsoleAddTip($id: String!, $amount: Int!, $key: String!) { addTip(id: $id, amount: $amount, idempotencyKey: $key) {
  __typename ... on MutationAddTipSuccess { data { id tip } } ... on AppError { code message fields { field message } } } }`);

const S: Strings<'title' | 'amount' | 'amountHint' | 'submit' | 'question' | 'charged' | 'sandbox' | 'confirm' | 'back' | 'added'> = {
  es: {
    title: 'Añadir propina', amount: 'Monto (CLP)', amountHint: 'Va entera al repartidor. Hasta 24 h después de la entrega.', submit: 'Añadir propina',
    question: '¿Añadir {amount} de propina al pedido {order}?', charged: 'Se cobra a tu cuenta.', sandbox: 'Modo prueba: no se cobra.',
    confirm: 'Sí, añadir la propina', back: 'No, volver', added: 'Propina añadida: ahora es {tip}.',
  },
  en: {
    title: 'Add a tip', amount: 'Amount (CLP)', amountHint: 'It all goes to the courier. Up to 24 h after the delivery.', submit: 'Add tip',
    question: 'Add a {amount} tip to order {order}?', charged: 'It is charged to your account.', sandbox: 'Test mode: not charged.',
    confirm: 'Yes, add the tip', back: 'No, go back', added: 'Tip added: it is now {tip}.',
  },
};

export const TIP_MAX = 200_000;

/** `tippable`: the API's answer when the order was read (a late or forced submit shows its TIP_NOT_ALLOWED). */
interface TippableOrder { id: string; orderNumber: string; isTest: boolean; tip: number; tippable: boolean }

/**
 * Two steps, as the cancellation: the first press asks with the amount in view, only "yes" sends.
 * One idempotency key per tip: a retry of the same tip (a lost answer) never tips twice; a new key after each success.
 */
export function AddTip({ order, onAdded }: { order: TippableOrder; onAdded: () => void }) {
  const app = useApp();
  const t = useStrings(S);
  const [error, setError] = useState<unknown>(null);
  const f = useFieldErrors(error, 'tip', { amount: 'amount' });
  const [amount, setAmount] = useState<number | null>(null);
  const [added, setAdded] = useState<number | null>(null);
  const [key, setKey] = useState(() => crypto.randomUUID());
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => void (amount !== null && confirm.current?.focus()), [amount]);
  if (!order.tippable) return null;

  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    if (amount === null) {
      if (!form.reportValidity()) return;
      setAdded(null);
      return setAmount(Number(new FormData(form).get('amount')));
    }
    setError(null);
    try {
      const result = dataOf((await request(ADD_TIP, { id: order.id, amount, key }, app.mode)).addTip);
      setAdded(result.tip);
      setAmount(null);
      setKey(crypto.randomUUID());
      form.reset();
      onAdded();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section class={app.me?.role === 'viewer' ? undefined : 'card'} aria-labelledby="tip-title" id="tip-section">
      <form id="add-tip" data-step={amount === null ? 'start' : 'confirm'} hidden={app.me?.role === 'viewer'} onSubmit={(e) => void onSubmit(e)}>
        <h2 id="tip-title">{t.title}</h2>
        <label>{t.amount}<input name="amount" type="number" inputMode="numeric" required min={1} max={TIP_MAX - order.tip} step={1} readOnly={amount !== null} {...f.input('amount', 'tip-hint')} /></label>{f.reason('amount')}
        <small id="tip-hint">{t.amountHint}</small>
        {amount !== null ? (
          <div class="confirm" role="group" aria-labelledby="tip-question">
            <p id="tip-question">{t.question.replace('{amount}', clp(amount)).replace('{order}', order.orderNumber)}</p>
            <p id="tip-charge">{order.isTest ? t.sandbox : t.charged}</p>
            <button type="submit" ref={confirm} id="tip-confirm">{t.confirm}</button>
            <button type="button" class="secondary" id="tip-back" onClick={() => setAmount(null)}>{t.back}</button>
          </div>
        ) : <button type="submit" id="tip-button">{t.submit}</button>}
        {added !== null && <p id="tip-added" role="status">{t.added.replace('{tip}', clp(added))}</p>}
      </form>
      <ErrorNote error={error} shown={f.shown} />
    </section>
  );
}
