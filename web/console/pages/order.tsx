import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { actorText, noteText, VEHICLE_LABELS } from '../../shared/catalog.js';
import { clp, dateTime, placeOf, sizeText } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import type { PageProps } from '../router.js';
import { useLoad, useReconnected, useSubscription } from '../../shared/ui/hooks.js';
import { DeliveryMap, type MapPoint } from '../../shared/ui/map.js';
import { STATUS_LABELS } from '../../shared/ui/status.js';
import { CancelOrder } from './order-cancel.js';
import { AddTip } from './order-tip.js';
import { FailedAttempts } from '../ui/failed-attempts.js';
import { IdCheckFacts } from '../ui/id-check.js';
import { CodFacts } from '../ui/cod.js';
import { OrderStops } from '../ui/order-stops.js';
import { NotFoundOrOtherMode } from '../ui/other-mode.js';
import { GEOFENCE_LABELS, ProofImage } from '../ui/proof-image.js';
import { isStatusIn } from '../../shared/vocabulary.generated.js';

const ORDER = graphql(`query ConsoleOrder($id: String!) { order(id: $id) { __typename
  ... on QueryOrderSuccess { data { id orderNumber trackingNumber trackingUrl status isTest customerName customerPhone price tip paymentMode codAmount cod { collected mismatch }
    weightKg dimensions { lengthCm widthCm heightCm } items { name quantity weightKg lengthCm widthCm heightCm }
    estimatedDeliveryTime cancellable tippable cancellationReason cancellationFee cancellationPreview { cancellable fee } createdAt idCheck { minAge }
    pickup { address lat lng precision } dropoff { address lat lng precision }
    driver { name vehicleType vehiclePlate currentLocation { lat lng } }
    proof { deliveredAt geofence distanceM photoUrl signatureUrl idCheck { minAge documentLast4 checkedAt } }
    events { sequence status reason at actorKind }
    failedAttemptPolicy failedAttempts { at reason note photoUrl outcome } returnFee
    returnProof { deliveredAt geofence distanceM photoUrl signatureUrl }
    route stops { id index status eta contactName contactPhone reference trackingUrl address { address lat lng precision }
      proof { deliveredAt geofence distanceM photoUrl signatureUrl } failure { at reason note photoUrl } } } }
  ... on AppError { code message } } }`);

const STATUS_CHANGED = graphql(`subscription ConsoleOrderStatus($id: String!, $afterSequence: Int) { orderStatusChanged(id: $id, afterSequence: $afterSequence) { status sequence } }`);
const COURIER = graphql(`subscription ConsoleCourier($id: String!) { courierPosition(id: $id) { location { lat lng } at } }`);

const S: Strings<'order' | 'status' | 'customer' | 'price' | 'eta' | 'tracking' | 'timeline' | 'courier' | 'noCourier' | 'map' | 'pickup' | 'dropoff' | 'proof' | 'delivered' | 'geofence' | 'photo' | 'signature' | 'reason' | 'fee' | 'tip' | 'parcel' | 'items'> = {
  es: { order: 'Pedido', status: 'Estado', customer: 'Cliente', price: 'Precio', eta: 'Entrega estimada', tracking: 'Seguimiento público', timeline: 'Historial', courier: 'Repartidor', noCourier: 'Aún sin repartidor', map: 'Mapa del pedido y el repartidor', pickup: 'Retiro', dropoff: 'Entrega', proof: 'Prueba de entrega', delivered: 'Entregado', geofence: 'Geocerca', photo: 'Foto', signature: 'Firma', reason: 'Motivo', fee: 'Cargo por cancelar', tip: 'Propina', parcel: 'Paquete', items: 'Productos' },
  en: { order: 'Order', status: 'Status', customer: 'Customer', price: 'Price', eta: 'Estimated delivery', tracking: 'Public tracking', timeline: 'Timeline', courier: 'Courier', noCourier: 'No courier yet', map: 'Map of the order and its courier', pickup: 'Pickup', dropoff: 'Drop-off', proof: 'Proof of delivery', delivered: 'Delivered', geofence: 'Geofence', photo: 'Photo', signature: 'Signature', reason: 'Reason', fee: 'Cancellation fee', tip: 'Tip', parcel: 'Parcel', items: 'Items' },
};

export function OrderPage({ params }: PageProps) {
  const { lang } = useApp();
  const t = useStrings(S);
  const id = params.id!;
  const order = useLoad(async (mode) => dataOf((await request(ORDER, { id }, mode)).order), [id]);
  const [courier, setCourier] = useState<{ lat: number; lng: number } | null>(null);
  const o = order.data;
  // Subscribed by booking id once the order is known (the page's id may be a tracking number), from
  // the sequence shown: a change made while the subscription starts is sent, not missed.
  const shown = o && o.events.length > 0 ? Math.max(...o.events.map((e) => e.sequence)) : undefined;
  useSubscription(STATUS_CHANGED, o ? { id: o.id, afterSequence: shown } : null, () => order.reload());
  useReconnected(order.reload);
  useSubscription(COURIER, o ? { id: o.id } : null, ({ courierPosition }) => setCourier(courierPosition.location));

  if (!o) {
    return <section><h1>{t.order}</h1>{order.error ? <NotFoundOrOtherMode error={order.error} probe={async (mode) => dataOf((await request(ORDER, { id }, mode)).order)} /> : null}</section>;
  }
  const position = courier ?? o.driver?.currentLocation ?? null;
  // The parcel's outer size as given, and the order's weight (the vehicle was chosen from them).
  const parcel = sizeText(Object.assign({ weightKg: o.weightKg }, o.dimensions), lang);
  const points: MapPoint[] = [
    { lat: o.pickup.lat, lng: o.pickup.lng, kind: 'pickup', label: t.pickup },
    // A multi-stop order: every stop on the map (the drop-off is its last).
    ...(o.stops?.map((s) => ({ lat: s.address.lat, lng: s.address.lng, kind: 'dropoff' as const, label: `${t.dropoff} ${s.index + 1}` })) ?? [{ lat: o.dropoff.lat, lng: o.dropoff.lng, kind: 'dropoff' as const, label: t.dropoff }]),
    ...(position && !isStatusIn('terminal', o.status) ? [{ ...position, kind: 'courier' as const, label: t.courier }] : []),
  ];
  return (
    <section aria-labelledby="order-title" id="order" data-status={o.status} data-order-id={o.id}>
      <h1 id="order-title">{t.order} {o.orderNumber}</h1>
      <dl class="facts card">
        <dt>{t.status}</dt><dd id="order-status"><span class={`badge ${o.status}`}>{STATUS_LABELS[lang][o.status]}</span></dd>
        <dt>{t.pickup}</dt><dd id="pickup">{placeOf(o.pickup)}</dd>
        <dt>{t.dropoff}</dt><dd id="dropoff">{placeOf(o.dropoff)}</dd>
        <dt>{t.customer}</dt><dd>{o.customerName} {o.customerPhone && `· ${o.customerPhone}`}</dd>
        <dt>{t.price}</dt><dd>{clp(o.price)}</dd>
        <dt>{t.tip}</dt><dd id="order-tip" data-tip={o.tip}>{clp(o.tip)}</dd>
        {parcel && <><dt>{t.parcel}</dt><dd id="order-parcel">{parcel}</dd></>}
        {o.items.length > 0 && <>
          <dt>{t.items}</dt>
          <dd><ul id="order-items" class="items">{o.items.map((item, i) => {
            const size = sizeText(item, lang);
            return <li key={i}>{item.quantity} × {item.name ?? '—'}{size && <small class="size"> · {size}</small>}</li>;
          })}</ul></dd>
        </>}
        <dt>{t.eta}</dt><dd>{dateTime(o.estimatedDeliveryTime, lang)}</dd>
        <dt>{t.courier}</dt><dd id="courier">{o.driver ? `${o.driver.name} · ${VEHICLE_LABELS[lang][o.driver.vehicleType]} ${o.driver.vehiclePlate}` : t.noCourier}</dd>
        <dt>{t.tracking}</dt><dd><a href={o.trackingUrl}>{o.trackingNumber}</a></dd>
        <IdCheckFacts asked={o.idCheck} checked={o.proof?.idCheck} />
        <CodFacts paymentMode={o.paymentMode} amount={o.codAmount} cod={o.cod} />
        {o.cancellationReason && <><dt>{t.reason}</dt><dd id="cancellation-reason">{o.cancellationReason}</dd></>}
        {o.cancellationFee !== null && <><dt>{t.fee}</dt><dd id="cancellation-fee">{clp(o.cancellationFee)}</dd></>}
      </dl>
      <DeliveryMap label={t.map} points={points} />
      {o.proof && (
        <section class="card" id="proof" aria-labelledby="proof-title">
          <h2 id="proof-title">{t.proof}</h2>
          <dl class="facts">
            <dt>{t.delivered}</dt><dd>{dateTime(o.proof.deliveredAt, lang)}</dd>
            <dt>{t.geofence}</dt><dd id="proof-geofence" data-geofence={o.proof.geofence}>{GEOFENCE_LABELS[lang][o.proof.geofence]} · {Math.round(o.proof.distanceM)} m</dd>
          </dl>
          <div class="proof-images">
            <ProofImage id="proof-photo" url={o.proof.photoUrl} label={t.photo} />
            <ProofImage id="proof-signature" url={o.proof.signatureUrl} label={t.signature} />
          </div>
        </section>
      )}
      <OrderStops route={o.route} stops={o.stops} />
      <FailedAttempts order={o} />
      <section class="card" aria-labelledby="timeline-title">
        <h2 id="timeline-title">{t.timeline}</h2>
        <ol id="timeline" class="timeline">
          {o.events.map((e) => (
            <li key={e.sequence} data-status={e.status}><time dateTime={e.at}>{dateTime(e.at, lang)}</time> {STATUS_LABELS[lang][e.status]} · {actorText(e.actorKind, lang)}{e.reason ? ` · ${noteText(e.reason, lang)}` : ''}</li>
          ))}
        </ol>
      </section>
      <AddTip order={o} onAdded={order.reload} />
      <CancelOrder order={o} onCancelled={order.reload} />
    </section>
  );
}
