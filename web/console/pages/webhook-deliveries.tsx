import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { Link } from '../router.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { fromSantiagoInput } from '../../shared/ui/santiago-time.js';
import { DELIVERY_STATUS_LABELS, DELIVERY_STATUSES, EVENT_LABELS, type DeliveryStatus } from '../ui/webhook-labels.js';
import type { Endpoint } from './webhook-endpoints.js';
import '../ui/manage.css';

const PAGE_SIZE = 20;

const DELIVERIES = graphql(`query ConsoleWebhookDeliveries($endpointId: ID, $status: WebhookDeliveryStatus, $from: DateTime, $to: DateTime, $first: Int, $after: ID) {
  webhookDeliveries(endpointId: $endpointId, status: $status, createdFrom: $from, createdTo: $to, first: $first, after: $after) { __typename
    ... on QueryWebhookDeliveriesSuccess { data { id endpointId event orderId status attempts lastStatusCode createdAt } }
    ... on AppError { code message } } }`);

const S: Strings<'title' | 'status' | 'endpoint' | 'all' | 'from' | 'to' | 'created' | 'event' | 'order' | 'attempts' | 'lastCode' | 'view' | 'empty' | 'next' | 'previous' | 'refresh' | 'loading'> = {
  es: { title: 'Registro de entregas', status: 'Estado', endpoint: 'Destino', all: 'Todos', from: 'Desde (hora de Santiago)', to: 'Hasta (hora de Santiago)', created: 'Creada', event: 'Evento', order: 'Pedido', attempts: 'Intentos', lastCode: 'HTTP', view: 'ver la entrega', empty: 'No hay entregas con estos filtros.', next: 'Siguiente', previous: 'Anterior', refresh: 'Actualizar', loading: 'Cargando…' },
  en: { title: 'Delivery log', status: 'Status', endpoint: 'Endpoint', all: 'All', from: 'From (Santiago time)', to: 'To (Santiago time)', created: 'Created', event: 'Event', order: 'Order', attempts: 'Attempts', lastCode: 'HTTP', view: 'view the delivery', empty: 'No deliveries match these filters.', next: 'Next', previous: 'Previous', refresh: 'Refresh', loading: 'Loading…' },
};

/** The delivery log, newest first: status, endpoint and time filters; pages where `after` is the last id shown. */
export function WebhookDeliveries({ endpoints }: { endpoints: Endpoint[] }) {
  const { lang } = useApp();
  const t = useStrings(S);
  const [filter, setFilter] = useState({ status: '' as DeliveryStatus | '', endpointId: '', from: '', to: '' });
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const log = useLoad(async (mode) => {
    const rows = dataOf((await request(DELIVERIES, {
      endpointId: filter.endpointId || null, status: filter.status || null,
      from: filter.from ? fromSantiagoInput(filter.from) : null, to: filter.to ? fromSantiagoInput(filter.to) : null,
      first: PAGE_SIZE + 1, after,
    }, mode)).webhookDeliveries);
    return { rows: rows.slice(0, PAGE_SIZE), hasNext: rows.length > PAGE_SIZE };
  }, [filter, after]);
  const set = (patch: Partial<typeof filter>) => {
    setFilter({ ...filter, ...patch });
    setCursors([null]);
  };
  /** An endpoint by its description, else its URL without the scheme. */
  const nameOf = (id: string) => {
    const endpoint = endpoints.find((e) => e.id === id);
    return endpoint ? (endpoint.description ?? endpoint.url.replace(/^https?:\/\//, '')) : id;
  };

  return (
    <section class="card" aria-labelledby="deliveries-title" id="deliveries-section">
      <div class="section-head">
        <h2 id="deliveries-title">{t.title}</h2>
        <button type="button" class="secondary" id="deliveries-refresh" onClick={log.reload}>{t.refresh}</button>
      </div>
      <div class="filters">
        <label>{t.status}
          <select id="delivery-status-filter" value={filter.status} onChange={(e) => set({ status: e.currentTarget.value as DeliveryStatus | '' })}>
            <option value="">{t.all}</option>
            {DELIVERY_STATUSES.map((s) => <option key={s} value={s}>{DELIVERY_STATUS_LABELS[lang][s]}</option>)}
          </select>
        </label>
        <label>{t.endpoint}
          <select id="delivery-endpoint-filter" value={filter.endpointId} onChange={(e) => set({ endpointId: e.currentTarget.value })}>
            <option value="">{t.all}</option>
            {endpoints.map((e) => <option key={e.id} value={e.id}>{e.description ? `${e.description} · ${e.url}` : e.url}</option>)}
          </select>
        </label>
        <label>{t.from}<input type="datetime-local" id="delivery-from" value={filter.from} onChange={(e) => set({ from: e.currentTarget.value })} /></label>
        <label>{t.to}<input type="datetime-local" id="delivery-to" value={filter.to} onChange={(e) => set({ to: e.currentTarget.value })} /></label>
      </div>
      <ErrorNote error={log.error} />
      {log.data && (log.data.rows.length === 0 ? <p id="deliveries-empty">{t.empty}</p> : (
        <div class="table-wrap">
          <table id="deliveries" aria-busy={log.loading}>
            <thead><tr><th scope="col">{t.created}</th><th scope="col">{t.event}</th><th scope="col">{t.endpoint}</th><th scope="col">{t.order}</th><th scope="col">{t.status}</th><th scope="col" class="num">{t.attempts}</th><th scope="col" class="num">{t.lastCode}</th></tr></thead>
            <tbody>
              {log.data.rows.map((d) => (
                <tr key={d.id} data-delivery-id={d.id} data-status={d.status} data-endpoint-id={d.endpointId}>
                  <td data-label={t.created}><Link href={`/console/webhooks/deliveries/${encodeURIComponent(d.id)}`}>{dateTime(d.createdAt, lang)}<span class="visually-hidden"> · {t.view}</span></Link></td>
                  <td data-label={t.event}>{EVENT_LABELS[lang][d.event]}</td>
                  <td class="endpoint" data-label={t.endpoint}>{nameOf(d.endpointId)}</td>
                  <td class="order" data-label={t.order}>{d.orderId ? <Link href={`/console/orders/${encodeURIComponent(d.orderId)}`}>{d.orderId}</Link> : '—'}</td>
                  <td data-label={t.status}><span class={`badge ${d.status}`}>{DELIVERY_STATUS_LABELS[lang][d.status]}</span></td>
                  <td class="num" data-label={t.attempts}>{d.attempts}</td>
                  <td class="num" data-label={t.lastCode}>{d.lastStatusCode ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      {log.loading && !log.data && <p aria-live="polite">{t.loading}</p>}
      <div class="pager">
        <button type="button" id="deliveries-previous" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>{t.previous}</button>
        <button type="button" id="deliveries-next" disabled={!log.data?.hasNext} onClick={() => setCursors([...cursors, log.data!.rows.at(-1)!.id])}>{t.next}</button>
      </div>
    </section>
  );
}
