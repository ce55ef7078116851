import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { clp, dateTime, placeOf } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { Link, type PageProps } from '../router.js';
import { BATCH_STATUS, VEHICLES } from '../ui/batch-labels.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { STATUS_LABELS } from '../../shared/ui/status.js';
import '../ui/manage.css';

const BATCH = graphql(`query ConsoleBatch($id: ID!) { batch(id: $id) { __typename
  ... on QueryBatchSuccess { data { id status vehicleType totalWeightKg geohashZone courierId createdAt
    orders { id orderNumber status customerName price dropoff { address lat lng precision } } } }
  ... on AppError { code message } } }`);

const S: Strings<'batch' | 'back' | 'status' | 'vehicle' | 'weight' | 'zone' | 'courier' | 'noCourier' | 'created' | 'orders' | 'order' | 'customer' | 'dropoff' | 'price'> = {
  es: { batch: 'Lote', back: 'Volver a lotes', status: 'Estado', vehicle: 'Vehículo', weight: 'Peso total', zone: 'Zona', courier: 'Repartidor', noCourier: 'Aún sin repartidor', created: 'Creado', orders: 'Pedidos del lote', order: 'Pedido', customer: 'Cliente', dropoff: 'Destino', price: 'Precio' },
  en: { batch: 'Batch', back: 'Back to batches', status: 'Status', vehicle: 'Vehicle', weight: 'Total weight', zone: 'Zone', courier: 'Courier', noCourier: 'No courier yet', created: 'Created', orders: "The batch's orders", order: 'Order', customer: 'Customer', dropoff: 'Drop-off', price: 'Price' },
};

/** One batch and its orders, each linking to its order page. */
export function BatchPage({ params }: PageProps) {
  const { lang } = useApp();
  const t = useStrings(S);
  const id = params.id!;
  const batch = useLoad(async (mode) => dataOf((await request(BATCH, { id }, mode)).batch), [id]);
  const b = batch.data;
  return (
    <section aria-labelledby="batch-title" id="batch" data-batch-id={b?.id}>
      <p><Link href="/console/batches">{t.back}</Link></p>
      <h1 id="batch-title">{t.batch} <span class="mono">{id}</span></h1>
      <ErrorNote error={batch.error} />
      {b && (
        <>
          <dl class="facts card">
            <dt>{t.status}</dt><dd>{BATCH_STATUS[lang][b.status as keyof (typeof BATCH_STATUS)['es']] ?? b.status}</dd>
            <dt>{t.vehicle}</dt><dd>{VEHICLES[lang][b.vehicleType]}</dd>
            <dt>{t.weight}</dt><dd>{b.totalWeightKg} kg</dd>
            <dt>{t.zone}</dt><dd class="mono">{b.geohashZone}</dd>
            <dt>{t.courier}</dt><dd>{b.courierId ?? t.noCourier}</dd>
            <dt>{t.created}</dt><dd>{dateTime(b.createdAt, lang)}</dd>
          </dl>
          <section class="card" aria-labelledby="batch-orders-title">
            <h2 id="batch-orders-title">{t.orders}</h2>
            <div class="table-wrap">
              <table id="batch-orders">
                <thead><tr><th scope="col">{t.order}</th><th scope="col">{t.customer}</th><th scope="col">{t.dropoff}</th><th scope="col">{t.status}</th><th scope="col" class="num">{t.price}</th></tr></thead>
                <tbody>
                  {b.orders.map((o) => (
                    <tr key={o.id} data-order-id={o.id}>
                      <td data-label={t.order}><Link href={`/console/orders/${encodeURIComponent(o.id)}`}>{o.orderNumber}</Link></td>
                      <td data-label={t.customer}>{o.customerName}</td>
                      <td data-label={t.dropoff}>{placeOf(o.dropoff)}</td>
                      <td data-label={t.status}><span class={`badge ${o.status}`}>{STATUS_LABELS[lang][o.status]}</span></td>
                      <td class="num" data-label={t.price}>{clp(o.price)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        </>
      )}
    </section>
  );
}
