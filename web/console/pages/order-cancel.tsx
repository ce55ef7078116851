import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';

const CANCEL = graphql(`mutation ConsoleCancelOrder($id: String!, $reason: String, $key: String) { cancelOrder(id: $id, reason: $reason, idempotencyKey: $key) {
  __typename ... on MutationCancelOrderSuccess { data { id status } } ... on AppError { code message } } }`);

const S: Strings<'title' | 'reason' | 'submit'> = {
  es: { title: 'Cancelar el pedido', reason: 'Motivo', submit: 'Cancelar pedido' },
  en: { title: 'Cancel the order', reason: 'Reason', submit: 'Cancel order' },
};

const CANCELLABLE = ['new', 'assigned', 'arrived_pickup'];

/**
 * Hidden (not left out) for a viewer: the role rule lives in the API, so a forced submit is still
 * sent and its FORBIDDEN_ROLE shown.
 */
export function CancelOrder({ order, onCancelled }: { order: { id: string; status: string }; onCancelled: () => void }) {
  const app = useApp();
  const t = useStrings(S);
  const [error, setError] = useState<unknown>(null);
  const [key] = useState(() => crypto.randomUUID());
  if (!CANCELLABLE.includes(order.status)) return null;

  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
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
      <form id="cancel-order" hidden={app.me?.role === 'viewer'} onSubmit={(e) => void onSubmit(e)}>
        <h2 id="cancel-title">{t.title}</h2>
        <label>{t.reason}<input name="reason" maxLength={500} autocomplete="off" /></label>
        <button type="submit" class="danger" id="cancel-button">{t.submit}</button>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}
