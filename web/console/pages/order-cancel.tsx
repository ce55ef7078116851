import { useEffect, useRef, useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { clp } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useFieldErrors } from '../../shared/ui/field-errors.js';

const CANCEL = graphql(`mutation ConsoleCancelOrder($id: String!, $reason: String, $key: String) { cancelOrder(id: $id, reason: $reason, idempotencyKey: $key) {
  __typename ... on MutationCancelOrderSuccess { data { id status } } ... on AppError { code message fields { field message } } } }`);

const S: Strings<'title' | 'reason' | 'reasonHint' | 'submit' | 'question' | 'fee' | 'free' | 'confirm' | 'back'> = {
  es: { title: 'Cancelar el pedido', reason: 'Motivo (opcional)', reasonHint: 'Queda en el historial del pedido.', submit: 'Cancelar pedido', question: '¿Cancelar el pedido {order}? No se puede deshacer.', fee: 'Cargo por cancelar ahora: {fee} (el resto del precio se devuelve).', free: 'Cancelarlo ahora no tiene cargo.', confirm: 'Sí, cancelar el pedido', back: 'No, volver' },
  en: { title: 'Cancel the order', reason: 'Reason (optional)', reasonHint: "It stays in the order's history.", submit: 'Cancel order', question: 'Cancel order {order}? This cannot be undone.', fee: 'Fee for cancelling now: {fee} (the rest of the price is refunded).', free: 'Cancelling it now is free of charge.', confirm: 'Yes, cancel the order', back: 'No, go back' },
};

/**
 * Two steps: the first press asks, with the reason still in view and editable; only "yes" sends.
 * Hidden (not left out) for a viewer: the role rule lives in the API, so a forced submit is still
 * sent and its FORBIDDEN_ROLE shown.
 */
export function CancelOrder({ order, onCancelled }: { order: { id: string; orderNumber: string; cancellable: boolean; cancellationPreview: { cancellable: boolean; fee: number | null } | null }; onCancelled: () => void }) {
  const app = useApp();
  const t = useStrings(S);
  const [error, setError] = useState<unknown>(null);
  const f = useFieldErrors(error, 'cancel', { reason: 'reason' });
  const [asking, setAsking] = useState(false);
  const [key] = useState(() => crypto.randomUUID());
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => void (asking && confirm.current?.focus()), [asking]);
  if (!order.cancellable) return null;
  // What cancelling costs now, as the API computes it (read with the order, fresh after each status change).
  const fee = order.cancellationPreview?.fee ?? null;

  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (!asking) return setAsking(true);
    const reason = String(new FormData(event.currentTarget as HTMLFormElement).get('reason') ?? '').trim();
    setError(null);
    try {
      dataOf((await request(CANCEL, { id: order.id, reason: reason || null, key }, app.mode)).cancelOrder);
      onCancelled();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section class={app.me?.role === 'viewer' ? undefined : 'card'} aria-labelledby="cancel-title" id="cancel-section">
      <form id="cancel-order" data-step={asking ? 'confirm' : 'start'} hidden={app.me?.role === 'viewer'} onSubmit={(e) => void onSubmit(e)}>
        <h2 id="cancel-title">{t.title}</h2>
        <label>{t.reason}<input name="reason" maxLength={500} autocomplete="off" {...f.input('reason', 'cancel-reason-hint')} /></label>{f.reason('reason')}
        <small id="cancel-reason-hint">{t.reasonHint}</small>
        {asking ? (
          <div class="confirm" role="group" aria-labelledby="cancel-question">
            <p id="cancel-question">{t.question.replace('{order}', order.orderNumber)}</p>
            {fee !== null && <p id="cancel-fee" data-fee={fee}>{fee > 0 ? t.fee.replace('{fee}', clp(fee)) : t.free}</p>}
            <button type="submit" ref={confirm} class="danger" id="cancel-confirm">{t.confirm}</button>
            <button type="button" class="secondary" id="cancel-back" onClick={() => setAsking(false)}>{t.back}</button>
          </div>
        ) : <button type="submit" class="danger" id="cancel-button">{t.submit}</button>}
      </form>
      <ErrorNote error={error} shown={f.shown} />
    </section>
  );
}
