import { useState } from 'preact/hooks';
import { clp, placeOf, sizeText, time } from '../../shared/format.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ConfirmButton } from '../../shared/ui/confirm-button.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { DeliveryMap, type MapPoint } from '../../shared/ui/map.js';
import { hasTiles, SchematicMap } from '../../shared/ui/schematic-map.js';
import { STATUS_LABELS } from '../../shared/ui/status.js';
import { isStopOpen, type CourierMove } from '../../shared/vocabulary.generated.js';
import { courierApi, type CourierOrder, type CourierStop, type Stop } from '../api.js';
import { useCourier } from '../state.js';
import { COURIER_ERRORS } from '../words.js';
import { FailedAttemptForm } from './failed-attempt-form.js';
import { IdCheckFact } from './id-check-fields.js';
import { ProofForm } from './proof-form.js';

const S: Strings<
  'order' | 'pickup' | 'dropoff' | 'customer' | 'call' | 'items' | 'payment' | 'prepaid' | 'cod' | 'codUnknown' | 'notes' | 'navigate' | 'mapsApp' | 'map'
  | 'you' | 'arrived_pickup' | 'picked_up' | 'arrived_dropoff' | 'qArrivedPickup' | 'qPickedUp' | 'qArrivedDropoff' | 'unit' | 'by' | 'floor'
  | 'returnStep' | 'retry' | 'parcel' | 'tip' | 'route' | 'stop' | 'pending' | 'arrived' | 'delivered' | 'failed' | 'contact'
  | 'release' | 'qRelease'
> = {
  es: {
    order: 'Pedido', pickup: 'Retiro', dropoff: 'Entrega', customer: 'Cliente', call: 'Llamar', items: 'Productos', payment: 'Pago',
    prepaid: 'Pagado: no cobrar', cod: 'Cobrar al entregar', codUnknown: 'monto no informado', notes: 'Notas', navigate: 'Navegar', mapsApp: 'Mapa web', map: 'Mapa del pedido',
    you: 'Tú', arrived_pickup: 'Llegué al retiro', picked_up: 'Retiré el pedido', arrived_dropoff: 'Llegué a la entrega',
    qArrivedPickup: '¿Estás en el punto de retiro?', qPickedUp: '¿Tienes el pedido contigo?', qArrivedDropoff: '¿Estás en la dirección de entrega?',
    unit: 'Depto./oficina', by: 'antes de las', floor: 'Indicaciones',
    returnStep: 'No se entregó: lleva el pedido de vuelta a la tienda (el punto de retiro) y entrégalo con foto y firma.',
    retry: 'Intento registrado: el pedido sigue contigo para intentarlo de nuevo.',
    parcel: 'Paquete', tip: 'Propina',
    route: 'Ruta', stop: 'Parada', pending: 'pendiente', arrived: 'en la puerta', delivered: 'entregada', failed: 'no entregada', contact: 'Contacto',
    release: 'No puedo tomarlo: devolver el pedido', qRelease: '¿Devolver este pedido? Se asignará a otro repartidor.',
  },
  en: {
    order: 'Order', pickup: 'Pickup', dropoff: 'Drop-off', customer: 'Customer', call: 'Call', items: 'Items', payment: 'Payment',
    prepaid: 'Prepaid: collect nothing', cod: 'Collect on delivery', codUnknown: 'amount unknown', notes: 'Notes', navigate: 'Navigate', mapsApp: 'Web map', map: 'Order map',
    you: 'You', arrived_pickup: 'At the pickup', picked_up: 'Picked up the order', arrived_dropoff: 'At the drop-off',
    qArrivedPickup: 'Are you at the pickup point?', qPickedUp: 'Do you have the order with you?', qArrivedDropoff: 'Are you at the drop-off address?',
    unit: 'Unit', by: 'by', floor: 'Instructions',
    returnStep: 'Not delivered: take the order back to the shop (the pickup) and hand it over with a photo and a signature.',
    retry: 'Attempt recorded: the order stays with you to try again.',
    parcel: 'Parcel', tip: 'Tip',
    route: 'Route', stop: 'Stop', pending: 'pending', arrived: 'at the door', delivered: 'delivered', failed: 'not delivered', contact: 'Contact',
    release: 'I cannot take it: hand the order back', qRelease: 'Hand this order back? It will go to another courier.',
  },
};

type Step = CourierMove;
const NEXT: Partial<Record<CourierOrder['status'], Step>> = { assigned: 'arrived_pickup', arrived_pickup: 'picked_up', picked_up: 'arrived_dropoff' };
const QUESTION = { arrived_pickup: 'qArrivedPickup', picked_up: 'qPickedUp', arrived_dropoff: 'qArrivedDropoff' } as const;

/** A `geo:` URI (the phone's navigation app) and a web map URL for a stop. */
function NavLinks({ stop, label, id }: { stop: Stop; label: string; id: string }) {
  const t = useStrings(S);
  const { lat, lng } = stop.coords;
  return (
    <p class="nav-links">
      <a class="button" id={`${id}-geo`} href={`geo:${lat},${lng}?q=${lat},${lng}(${encodeURIComponent(label)})`}>{t.navigate}</a>
      <a class="button secondary" id={`${id}-maps`} href={`https://www.google.com/maps/dir/?api=1&destination=${lat},${lng}`} target="_blank" rel="noopener noreferrer">{t.mapsApp}</a>
    </p>
  );
}

function StopView({ id, title, stop, when }: { id: string; title: string; stop: Stop; when: string | null }) {
  const t = useStrings(S);
  const c = useCourier();
  return (
    <section class={`stop ${id}`} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}><span class={`dot ${id}`} />{title}{when && <small> · {t.by} {time(when, c.lang)}</small>}</h3>
      <p class="address" id={`${id}-address`}>{placeOf({ address: stop.address, lat: stop.coords.lat, lng: stop.coords.lng, precision: stop.precision })}</p>
      {stop.number && <p>{t.unit}: {stop.number}</p>}
      {stop.instructions && <p class="instructions">{t.floor}: {stop.instructions}</p>}
      <NavLinks stop={stop} label={title} id={id} />
    </section>
  );
}

/**
 * A multi-stop order seen at its current stop (the first still open): that stop's address, contact,
 * items, ETA and PIN stand in for the drop-off's, so every step below acts on it and names it.
 */
function atCurrentStop(order: CourierOrder): { job: CourierOrder; current: CourierStop | null } {
  const current = order.stops?.find((s) => s.status === 'pending' || s.status === 'arrived') ?? null;
  if (!current) return { job: order, current };
  return {
    current,
    job: {
      ...order, dropoff: current.address, customer_name: current.contact_name, customer_phone: current.contact_phone ?? order.customer_phone,
      items: current.items ?? order.items, estimated_delivery_time: current.eta, delivery_pin_required: current.delivery_pin_required, stop_id: current.id,
    },
  };
}

/** A multi-stop job's route: every stop in order with its status and ETA, the current one marked. */
function RouteList({ stops, current }: { stops: readonly CourierStop[]; current: CourierStop | null }) {
  const t = useStrings(S);
  const c = useCourier();
  return (
    <section class="route" aria-labelledby="route-title">
      <h3 id="route-title">{t.route} · {stops.length}</h3>
      <ol id="route-stops">
        {stops.map((s) => (
          <li key={s.id} data-stop-id={s.id} data-status={s.status} class={s.id === current?.id ? 'current' : undefined} aria-current={s.id === current?.id ? 'step' : undefined}>
            <span class="stop-name">{t.stop} {s.index + 1}</span> · <span class="stop-status">{t[s.status]}</span> · {time(s.eta, c.lang)}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** One job; `onEnded` says how it left this phone (delivered, returned to the shop or disposed). */
export function JobCard({ order: given, onEnded }: { order: CourierOrder; onEnded: (id: string, status: CourierOrder['status']) => void }) {
  const { job: order, current } = atCurrentStop(given);
  const t = useStrings(S);
  const c = useCourier();
  const [retried, setRetried] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [pending, setPending] = useState(false);
  const next = NEXT[order.status];
  const points: MapPoint[] = [
    { kind: 'pickup', lat: order.pickup.coords.lat, lng: order.pickup.coords.lng, label: t.pickup },
    { kind: 'dropoff', lat: order.dropoff.coords.lat, lng: order.dropoff.coords.lng, label: t.dropoff },
    ...(c.here ? [{ kind: 'courier' as const, lat: c.here.lat, lng: c.here.lng, label: t.you }] : []),
  ];
  const advance = (step: Step) => {
    setPending(true);
    setError(null);
    courierApi.advance(order.booking_id, step, order.stop_id).then(
      () => c.reloadOrders(),
      (e: unknown) => setError(e),
    ).catch(setError).finally(() => setPending(false));
  };
  // Before the pickup only (the API's rule): the order goes back to dispatch, the job leaves this phone.
  const release = () => {
    setPending(true);
    setError(null);
    courierApi.release(order.booking_id).then(() => c.reloadOrders(), (e: unknown) => setError(e)).catch(setError).finally(() => setPending(false));
  };
  const label = order.order_number ?? order.tracking_number;
  const d = order.dimensions;
  const parcel = sizeText({ lengthCm: d?.length_cm, widthCm: d?.width_cm, heightCm: d?.height_cm, weightKg: order.total_weight_kg }, c.lang);
  const ended = (status: CourierOrder['status']) => { onEnded(order.booking_id, status); void c.reloadOrders(); };
  // A stop delivered or failed before the last: the order goes on to the next stop.
  const delivered = () => (current && given.stops!.filter((s) => isStopOpen(s.status)).length > 1 ? void c.reloadOrders() : ended('completed'));
  const failed = (status: CourierOrder['status']) => {
    setRetried(status === 'picked_up' && !current);
    if (status === 'disposed' || status === 'completed') ended(status);
    else void c.reloadOrders();
  };
  return (
    <article class="card job" id="job" data-order-id={order.booking_id} data-status={order.status} aria-labelledby="job-title">
      <h2 id="job-title">{t.order} {label} <span class={`badge ${order.status}`} id="job-status">{STATUS_LABELS[c.lang][order.status]}</span></h2>
      {hasTiles() ? <DeliveryMap points={points} label={t.map} /> : <SchematicMap points={points} label={t.map} />}
      <StopView id="pickup" title={t.pickup} stop={order.pickup} when={order.estimated_pickup_time} />
      {given.stops && <RouteList stops={given.stops} current={current} />}
      <StopView id="dropoff" title={current ? `${t.stop} ${current.index + 1}` : t.dropoff} stop={order.dropoff} when={order.estimated_delivery_time} />
      <dl class="facts">
        <dt>{t.customer}</dt>
        <dd><span id="customer-name">{order.customer_name}</span>{order.customer_phone && <> · <a id="customer-call" href={`tel:${order.customer_phone.replace(/[^\d+]/g, '')}`}>{t.call} {order.customer_phone}</a></>}</dd>
        <dt>{t.payment}</dt>
        <dd id="payment" data-mode={order.payment_mode ?? 'prepaid'} class={order.payment_mode === 'cash_on_delivery' ? 'collect' : undefined}>
          {order.payment_mode === 'cash_on_delivery' ? t.cod : t.prepaid}{order.cod_amount != null && <> · <strong id="cod-amount">{clp(order.cod_amount)}</strong></>}
          {order.payment_mode === 'cash_on_delivery' && order.cod_amount == null && <> · <span id="cod-amount-unknown">{t.codUnknown}</span></>}
        </dd>
        {parcel && <><dt>{t.parcel}</dt><dd id="parcel">{parcel}</dd></>}
        {!!order.tip && <><dt>{t.tip}</dt><dd id="job-tip">{clp(order.tip)}</dd></>}
        {order.id_check && <IdCheckFact minAge={order.id_check.min_age} />}
        {order.order_notes && <><dt>{t.notes}</dt><dd id="notes">{order.order_notes}</dd></>}
        {!!order.items?.length && <>
          <dt>{t.items}</dt>
          <dd><ul id="items">{order.items.map((item, i) => {
            const size = sizeText({ lengthCm: item.length_cm, widthCm: item.width_cm, heightCm: item.height_cm, weightKg: item.weight_kg }, c.lang);
            return <li key={i}>{item.quantity ?? 1} × {item.name ?? '—'}{size && <small class="size"> · {size}</small>}</li>;
          })}</ul></dd>
        </>}
      </dl>
      {next && (
        <div class="step">
          <ConfirmButton id="step" label={t[next]} question={t[QUESTION[next]]} disabled={pending} onConfirm={() => advance(next)} />
        </div>
      )}
      {order.status === 'assigned' && (
        <div class="step release">
          <ConfirmButton id="release" label={t.release} question={t.qRelease} danger disabled={pending} onConfirm={release} />
        </div>
      )}
      <ErrorNote id="step-error" error={error} words={COURIER_ERRORS} />
      {retried && order.status === 'picked_up' && <p class="note" id="retry-note" role="status">{t.retry}</p>}
      {order.status === 'arrived_dropoff' && <ProofForm key={order.stop_id} order={order} onDelivered={delivered} />}
      {(order.status === 'picked_up' || order.status === 'arrived_dropoff') && <FailedAttemptForm key={order.stop_id} order={order} onReported={failed} />}
      {order.status === 'returning' && <>
        <p class="note" id="return-step">{t.returnStep}</p>
        <NavLinks stop={order.pickup} label={t.pickup} id="return" />
        <ProofForm order={order} leg="return" onDelivered={() => ended('returned')} />
      </>}
    </article>
  );
}
