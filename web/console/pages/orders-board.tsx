import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { clp, dateTime, placeOf } from '../../shared/format.js';
import { graphql, type ResultOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { Link, type PageProps } from '../router.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { stopCount } from '../ui/order-stops.js';
import { useLoad, useReconnected, useSocketState, useSubscription } from '../../shared/ui/hooks.js';
import { STATUS_LABELS, STATUSES, type Status } from '../../shared/ui/status.js';

const PAGE_SIZE = 20;

const ORDERS = graphql(`query ConsoleOrders($first: Int, $after: String, $status: [OrderStatus!]) {
  orders(first: $first, after: $after, status: $status) { __typename
    ... on QueryOrdersSuccess { data { nodes { id orderNumber status customerName price createdAt stops { id } dropoff { address lat lng precision } } pageInfo { hasNextPage endCursor } } }
    ... on AppError { code message } } }`);

const ORDER_EVENTS = graphql(`subscription ConsoleOrderEvents { orderEvents { orderId status
  order { id orderNumber status customerName price createdAt stops { id } dropoff { address lat lng precision } } } }`);

type Row = NonNullable<ResultOf<typeof ORDER_EVENTS>['orderEvents']['order']>;

const STRINGS: Strings<'title' | 'filter' | 'all' | 'order' | 'customer' | 'dropoff' | 'status' | 'price' | 'created' | 'empty' | 'next' | 'previous' | 'live' | 'connecting' | 'reconnecting' | 'loading'> = {
  es: { title: 'Pedidos', filter: 'Estado', all: 'Todos', order: 'Pedido', customer: 'Cliente', dropoff: 'Destino', status: 'Estado', price: 'Precio', created: 'Creado', empty: 'No hay pedidos.', next: 'Siguiente', previous: 'Anterior', live: 'Se actualiza en vivo', connecting: 'Conectando…', reconnecting: 'Sin conexión, reintentando…', loading: 'Cargando…' },
  en: { title: 'Orders', filter: 'Status', all: 'All', order: 'Order', customer: 'Customer', dropoff: 'Drop-off', status: 'Status', price: 'Price', created: 'Created', empty: 'No orders.', next: 'Next', previous: 'Previous', live: 'Updates live', connecting: 'Connecting…', reconnecting: 'Connection lost, retrying…', loading: 'Loading…' },
};

/** The live board: one page of orders, a status filter, and the merchant-wide subscription. */
export function OrdersBoard(_props: PageProps) {
  const { lang } = useApp();
  const t = useStrings(STRINGS);
  const socket = useSocketState();
  const [status, setStatus] = useState<Status | ''>('');
  // Cursors of the pages before this one: "previous" pops one.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const page = useLoad(
    async (mode) => dataOf((await request(ORDERS, { first: PAGE_SIZE, after, status: status ? [status] : null }, mode)).orders),
    [status, after],
  );

  useSubscription(ORDER_EVENTS, {}, ({ orderEvents: event }) => {
    const current = page.data;
    const row = event.order;
    if (!current || !row) return;
    const known = current.nodes.some((o) => o.id === row.id);
    const fits = !status || row.status === status;
    let nodes: Row[] = current.nodes.map((o) => (o.id === row.id ? row : o)).filter((o) => o.id !== row.id || fits);
    if (!known && fits && after === null) nodes = [row, ...nodes].slice(0, PAGE_SIZE);
    page.setData({ nodes, pageInfo: current.pageInfo });
  });

  useReconnected(page.reload);

  const filter = (value: string) => {
    setStatus(value as Status | '');
    setCursors([null]);
  };

  return (
    <section aria-labelledby="board-title">
      <div class="section-head">
        <h1 id="board-title">{t.title}</h1>
        <span class="live-dot" id="live-state" data-state={socket} role="status">{t[socket]}</span>
        <label class="inline">{t.filter}
          <select id="status-filter" value={status} onChange={(e) => filter(e.currentTarget.value)}>
            <option value="">{t.all}</option>
            {STATUSES.map((s) => <option key={s} value={s}>{STATUS_LABELS[lang][s]}</option>)}
          </select>
        </label>
      </div>
      <ErrorNote error={page.error} />
      {page.data && (page.data.nodes.length === 0 ? <p id="orders-empty">{t.empty}</p> : (
        <div class="table-wrap">
          <table id="orders">
            <thead><tr><th scope="col">{t.order}</th><th scope="col">{t.customer}</th><th scope="col">{t.dropoff}</th><th scope="col">{t.status}</th><th scope="col" class="num">{t.price}</th><th scope="col">{t.created}</th></tr></thead>
            <tbody>
              {page.data.nodes.map((o) => (
                <tr key={o.id} data-order-id={o.id} data-status={o.status}>
                  <td data-label={t.order}><Link href={`/console/orders/${encodeURIComponent(o.id)}`}>{o.orderNumber}</Link></td>
                  <td data-label={t.customer}>{o.customerName}</td>
                  <td data-label={t.dropoff}>{placeOf(o.dropoff)}{o.stops && <> <span class="badge stops">{stopCount(o.stops.length, lang)}</span></>}</td>
                  <td data-label={t.status}><span class={`badge ${o.status}`}>{STATUS_LABELS[lang][o.status]}</span></td>
                  <td class="num" data-label={t.price}>{clp(o.price)}</td>
                  <td data-label={t.created}>{dateTime(o.createdAt, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      {page.loading && !page.data && <p aria-live="polite">{t.loading}</p>}
      <div class="pager">
        <button type="button" id="page-previous" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>{t.previous}</button>
        <button type="button" id="page-next" disabled={!page.data?.pageInfo.hasNextPage} onClick={() => setCursors([...cursors, page.data!.pageInfo.endCursor])}>{t.next}</button>
      </div>
    </section>
  );
}
