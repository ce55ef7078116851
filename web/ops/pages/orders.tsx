import { useState } from 'preact/hooks';
import { operatorRequest } from '../../shared/api/http.js';
import { dateTime } from '../../shared/format.js';
import { graphql, type VariablesOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { STATUS_LABELS, STATUSES, type Status } from '../../shared/ui/status.js';
import { useApp } from '../app-state.js';
import { Link, type PageProps } from '../router.js';

const ORDERS = graphql(`query OpsOrders($status: [OrderStatus!], $merchantId: ID, $mode: Mode, $late: Boolean, $zone: String, $comuna: String, $after: String) {
  adminOrders(status: $status, merchantId: $merchantId, mode: $mode, late: $late, zone: $zone, comuna: $comuna, first: 50, after: $after) {
    orders { id merchantId merchantName mode status courierId courierName late createdAt order { trackingNumber customerName dropoff { address } } } nextCursor } }`);
const MERCHANTS = graphql(`query OpsOrderMerchants { adminMerchants(limit: 200) { id name } adminComunas }`);
type Filters = Omit<VariablesOf<typeof ORDERS>, 'after'>;

const STRINGS: Strings<'title' | 'status' | 'merchant' | 'mode' | 'late' | 'all' | 'live' | 'test' | 'onlyLate' | 'zone' | 'zoneHint' | 'comuna' | 'allComunas' | 'partial' | 'apply' | 'order' | 'created' | 'courier' | 'dropoff' | 'empty' | 'next' | 'first' | 'lateBadge'> = {
  es: { title: 'Pedidos', status: 'Estado', merchant: 'Comercio', mode: 'Modo', late: 'Atraso', all: 'Todos', live: 'Real', test: 'Prueba', onlyLate: 'Solo atrasados', zone: 'Zona de retiro (geohash)', comuna: 'Comuna de retiro', allComunas: 'Todas', partial: 'Se revisó una parte de los pedidos: hay más con «Siguientes».', zoneHint: 'Prefijo geohash, 2 a 6 caracteres (ej. 66jc)', apply: 'Filtrar', order: 'Pedido', created: 'Creado', courier: 'Repartidor', dropoff: 'Destino', empty: 'Ningún pedido coincide.', next: 'Siguientes', first: 'Primeros', lateBadge: 'atrasado' },
  en: { title: 'Orders', status: 'Status', merchant: 'Merchant', mode: 'Mode', late: 'Lateness', all: 'All', live: 'Live', test: 'Test', onlyLate: 'Late only', zone: 'Pickup zone (geohash)', comuna: 'Pickup comuna', allComunas: 'All', partial: 'Part of the orders was read: there are more under “Next”.', zoneHint: 'Geohash prefix, 2 to 6 characters (e.g. 66jc)', apply: 'Filter', order: 'Order', created: 'Created', courier: 'Courier', dropoff: 'Drop-off', empty: 'No order matches.', next: 'Next', first: 'First', lateBadge: 'late' },
};

/** Every merchant's orders, newest first, 50 a page, filtered by status, merchant, mode, lateness and pickup zone. */
export function OrdersPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const [filters, setFilters] = useState<Filters>({});
  const [after, setAfter] = useState<string | null>(null);
  const list = useLoad(async () => (await operatorRequest(ORDERS, { ...filters, ...(after && { after }) })).adminOrders, [JSON.stringify(filters), after]);
  const lists = useLoad(async () => operatorRequest(MERCHANTS, {}), []);
  const merchants = { data: lists.data?.adminMerchants };
  const names = new Map(merchants.data?.map((m) => [m.id, m.name]));
  const onFilter = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '');
    setFilters({
      ...(text('status') && { status: [text('status') as Status] }),
      ...(text('merchantId') && { merchantId: text('merchantId') }),
      ...(text('mode') && { mode: text('mode') as 'live' | 'test' }),
      ...(text('late') && { late: true }),
      ...(text('zone').trim() && !text('comuna') && { zone: text('zone').trim() }),
      ...(text('comuna') && { comuna: text('comuna') }),
    });
    setAfter(null);
  };
  const page = list.data;
  return (
    <>
      <h1>{t.title}</h1>
      <form id="order-filters" class="card filters" onSubmit={onFilter}>
        <label>{t.status}<select name="status"><option value="">{t.all}</option>{STATUSES.map((s) => <option key={s} value={s}>{STATUS_LABELS[app.lang][s]}</option>)}</select></label>
        <label>{t.merchant}<select name="merchantId"><option value="">{t.all}</option>{merchants.data?.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}</select></label>
        <label>{t.mode}<select name="mode"><option value="">{t.all}</option><option value="live">{t.live}</option><option value="test">{t.test}</option></select></label>
        <label>{t.late}<select name="late"><option value="">{t.all}</option><option value="1">{t.onlyLate}</option></select></label>
        <label>{t.comuna}<select name="comuna" id="order-comuna"><option value="">{t.allComunas}</option>{lists.data?.adminComunas.map((c) => <option key={c} value={c}>{c}</option>)}</select></label>
        <label>{t.zone}<input name="zone" id="order-zone" size={8} maxLength={6} pattern="[0-9a-zA-Z]{2,6}" placeholder="66jc" title={t.zoneHint} /></label>
        <button type="submit">{t.apply}</button>
      </form>
      <ErrorNote error={list.error} id="orders-error" />
      {page && page.orders.length === 0 && !page.nextCursor && <p id="orders-empty">{t.empty}</p>}
      {page && page.orders.length < 50 && page.nextCursor && <p class="note" id="orders-partial">{t.partial}</p>}
      {page && page.orders.length > 0 && (
        <div class="table-wrap">
          <table id="orders">
            <thead><tr><th>{t.order}</th><th>{t.merchant}</th><th>{t.mode}</th><th>{t.status}</th><th>{t.courier}</th><th>{t.dropoff}</th><th>{t.created}</th></tr></thead>
            <tbody>
              {page.orders.map((o) => (
                <tr key={o.id} data-order={o.id} data-status={o.status}>
                  <td class="wrap" data-label={t.order}><Link href={`/ops/orders/${o.id}`}>{o.order.trackingNumber}</Link><br /><code>{o.id}</code></td>
                  <td class="wrap" data-label={t.merchant}>{o.merchantName ?? names.get(o.merchantId) ?? <code>{o.merchantId}</code>}</td>
                  <td data-label={t.mode}>{t[o.mode]}</td>
                  <td data-label={t.status}><span class={`badge order-${o.status}`}>{STATUS_LABELS[app.lang][o.status]}</span>{o.late && <> <span class="badge late">{t.lateBadge}</span></>}</td>
                  <td class="wrap" data-label={t.courier} data-courier={o.courierId ?? ''}>{o.courierName ?? (o.courierId ? <code>{o.courierId}</code> : '—')}</td>
                  <td class="wrap" data-label={t.dropoff}>{o.order.dropoff.address ?? '—'}</td>
                  <td data-label={t.created}>{dateTime(o.createdAt, app.lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        {after && <button type="button" onClick={() => setAfter(null)}>{t.first}</button>}
        {page?.nextCursor && <button type="button" id="orders-next" onClick={() => setAfter(page.nextCursor)}>{t.next}</button>}
      </div>
    </>
  );
}
