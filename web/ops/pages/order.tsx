import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { operatorRequest } from '../../shared/api/http.js';
import { actorText, noteText } from '../../shared/catalog.js';
import { dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ConfirmButton } from '../../shared/ui/confirm-button.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { STATUS_LABELS } from '../../shared/ui/status.js';
import { may, useApp } from '../app-state.js';
import { Link, type PageProps } from '../router.js';
import { useCourierNames } from '../ui/courier-names.js';

const ORDER = graphql(`query OpsOrder($id: ID!) { adminOrder(id: $id) {
  order { id merchantId merchantName mode status courierId courierName late createdAt order { trackingNumber customerName pickup { address } dropoff { address } } }
  timeline { sequence at from status actorKind actorId reason } } }`);
const COURIERS = graphql(`query OpsOrderCouriers($mode: Mode) { adminCouriers(mode: $mode, status: available, first: 100) { couriers { id name vehicle } } }`);
const RESULT = '__typename ... on AppError { code message }';
const ASSIGN = graphql(`mutation OpsAssignOrder($orderId: ID!, $courierId: ID!) { adminAssignOrder(orderId: $orderId, courierId: $courierId) { ${RESULT} ... on MutationAdminAssignOrderSuccess { data { id } } } }`);
const REASSIGN = graphql(`mutation OpsReassignOrder($orderId: ID!, $courierId: ID!) { adminReassignOrder(orderId: $orderId, courierId: $courierId) { ${RESULT} ... on MutationAdminReassignOrderSuccess { data { id } } } }`);
const RELEASE = graphql(`mutation OpsReleaseOrder($orderId: ID!) { adminReleaseOrder(orderId: $orderId) { ${RESULT} ... on MutationAdminReleaseOrderSuccess { data { id } } } }`);
const CANCEL = graphql(`mutation OpsCancelOrder($orderId: ID!, $reason: String!) { adminCancelOrder(orderId: $orderId, reason: $reason) { ${RESULT} ... on MutationAdminCancelOrderSuccess { data { id } } } }`);

const STRINGS: Strings<'merchant' | 'mode' | 'status' | 'courier' | 'customer' | 'pickup' | 'dropoff' | 'created' | 'late' | 'timeline' | 'overrides' | 'chooseCourier' | 'none' | 'assign' | 'reassign' | 'release' | 'releaseQ' | 'cancel' | 'cancelQ' | 'reason' | 'loading' | 'back' | 'live' | 'test'> = {
  es: { merchant: 'Comercio', mode: 'Modo', status: 'Estado', courier: 'Repartidor', customer: 'Cliente', pickup: 'Retiro', dropoff: 'Destino', created: 'Creado', late: 'atrasado', timeline: 'Historial del pedido', overrides: 'Intervenir', chooseCourier: 'Repartidor disponible del mismo modo', none: 'Ninguno disponible', assign: 'Asignar', reassign: 'Reasignar', release: 'Liberar', releaseQ: '¿Liberar? El pedido vuelve a despacho.', cancel: 'Cancelar pedido', cancelQ: '¿Cancelar en nombre del comercio? No se puede deshacer.', reason: 'Motivo de la cancelación', loading: 'Cargando…', back: 'Pedidos', live: 'Real', test: 'Prueba' },
  en: { merchant: 'Merchant', mode: 'Mode', status: 'Status', courier: 'Courier', customer: 'Customer', pickup: 'Pickup', dropoff: 'Drop-off', created: 'Created', late: 'late', timeline: "The order's history", overrides: 'Override', chooseCourier: 'Available courier of the same mode', none: 'None available', assign: 'Assign', reassign: 'Reassign', release: 'Release', releaseQ: 'Release? The order goes back to dispatch.', cancel: 'Cancel order', cancelQ: "Cancel on the merchant's behalf? This cannot be undone.", reason: 'Reason for cancelling', loading: 'Loading…', back: 'Orders', live: 'Live', test: 'Test' },
};

/** One order of any merchant: its facts, its timeline and, for dispatchers and admins, the overrides. */
export function OrderPage({ params }: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const loaded = useLoad(() => operatorRequest(ORDER, { id: params.id! }), [params.id, version]);
  const couriers = useCourierNames(loaded.data?.adminOrder.timeline.map((e) => (e.actorKind === 'courier' ? e.actorId : null)) ?? []);
  if (!loaded.data) return loaded.error ? <ErrorNote error={loaded.error} id="order-error" /> : <p aria-busy="true">{t.loading}</p>;
  const { order: o, timeline } = loaded.data.adminOrder;
  const act = async (run: () => Promise<unknown>) => {
    try {
      await run();
      setError(null);
      setVersion((v) => v + 1);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <>
      <p><Link href="/ops/orders">← {t.back}</Link></p>
      <h1 id="order-title">{o.order.trackingNumber}</h1>
      <section class="card">
        <dl class="facts">
          <dt>ID</dt><dd><code>{o.id}</code></dd>
          <dt>{t.status}</dt><dd><span class={`badge order-${o.status}`} id="order-status" data-status={o.status}>{STATUS_LABELS[app.lang][o.status]}</span>{o.late && <> <span class="badge late">{t.late}</span></>}</dd>
          <dt>{t.merchant}</dt><dd><Link href={`/ops/merchants/${o.merchantId}`}>{o.merchantName ?? <code>{o.merchantId}</code>}</Link></dd>
          <dt>{t.mode}</dt><dd>{t[o.mode]}</dd>
          <dt>{t.courier}</dt><dd id="order-courier" data-courier={o.courierId ?? ''}>{o.courierId ? <>{o.courierName ?? ''} <small><code>{o.courierId}</code></small></> : '—'}</dd>
          <dt>{t.customer}</dt><dd>{o.order.customerName}</dd>
          <dt>{t.pickup}</dt><dd>{o.order.pickup.address ?? '—'}</dd>
          <dt>{t.dropoff}</dt><dd>{o.order.dropoff.address ?? '—'}</dd>
          <dt>{t.created}</dt><dd>{dateTime(o.createdAt, app.lang)}</dd>
        </dl>
      </section>
      {may(app.me, 'dispatch') && (o.status === 'new' || o.status === 'assigned') && (
        <Overrides orderId={o.id} mode={o.mode} status={o.status} courierId={o.courierId ?? null} act={act} version={version} />
      )}
      <ErrorNote error={error} id="override-error" />
      <section class="card" aria-labelledby="timeline-title">
        <h2 id="timeline-title">{t.timeline}</h2>
        <ol class="timeline" id="order-timeline">
          {timeline.map((e) => (
            <li key={e.sequence} data-status={e.status}>
              <time dateTime={e.at}>{dateTime(e.at, app.lang)}</time> <strong>{STATUS_LABELS[app.lang][e.status]}</strong> · {actorText(e.actorKind, app.lang)}{e.actorKind === 'courier' && e.actorId && couriers.has(e.actorId) && <> {couriers.get(e.actorId)}</>}
              {e.reason && <> · <q>{noteText(e.reason, app.lang)}</q></>}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

type Act = (run: () => Promise<unknown>) => Promise<void>;

/** Assign or reassign to a chosen available courier of the order's mode, release, or cancel with a reason. */
function Overrides(props: { orderId: string; mode: 'live' | 'test'; status: 'new' | 'assigned'; courierId: string | null; act: Act; version: number }) {
  const t = useStrings(STRINGS);
  const { orderId, act } = props;
  const [courierId, setCourierId] = useState('');
  const [reason, setReason] = useState('');
  const couriers = useLoad(async () => (await operatorRequest(COURIERS, { mode: props.mode })).adminCouriers.couriers.filter((c) => c.id !== props.courierId), [props.mode, props.version]);
  const chosen = courierId || couriers.data?.[0]?.id || '';
  const give = (event: SubmitEvent) => {
    event.preventDefault();
    if (!chosen) return;
    void act(async () => dataOf(props.status === 'new'
      ? (await operatorRequest(ASSIGN, { orderId, courierId: chosen })).adminAssignOrder
      : (await operatorRequest(REASSIGN, { orderId, courierId: chosen })).adminReassignOrder));
  };
  return (
    <section class="card" aria-labelledby="overrides-title" id="overrides">
      <h2 id="overrides-title">{t.overrides}</h2>
      <form id="assign-form" class="filters" onSubmit={give}>
        <label>{t.chooseCourier}
          <select name="courierId" id="assign-courier" value={chosen} onChange={(e) => setCourierId(e.currentTarget.value)}>
            {couriers.data?.length === 0 && <option value="">{t.none}</option>}
            {couriers.data?.map((c) => <option key={c.id} value={c.id}>{c.name} · {c.id}</option>)}
          </select>
        </label>
        <button type="submit" id="assign-submit" disabled={!chosen}>{props.status === 'new' ? t.assign : t.reassign}</button>
      </form>
      <div class="actions">
        {props.status === 'assigned' && <ConfirmButton id="release-order" label={t.release} question={t.releaseQ} onConfirm={() => void act(async () => dataOf((await operatorRequest(RELEASE, { orderId })).adminReleaseOrder))} />}
      </div>
      <label>{t.reason}<textarea id="cancel-reason" rows={2} maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} /></label>
      <div class="actions">
        <ConfirmButton id="cancel-order" label={t.cancel} question={t.cancelQ} danger disabled={reason.trim() === ''}
          onConfirm={() => void act(async () => dataOf((await operatorRequest(CANCEL, { orderId, reason: reason.trim() })).adminCancelOrder))} />
      </div>
    </section>
  );
}
