import { useEffect, useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { Link, type PageProps } from '../router.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { DELIVERY_STATUS_LABELS, EVENT_LABELS } from '../ui/webhook-labels.js';
import '../ui/manage.css';

const DELIVERY = graphql(`query ConsoleWebhookDelivery($id: ID!) { webhookDelivery(id: $id) { __typename
  ... on QueryWebhookDeliverySuccess { data { id endpointId event orderId status attempts nextAttemptAt lastStatusCode lastError createdAt deliveredAt payload
    attemptLog { attempt at statusCode latencyMs error } } }
  ... on AppError { code message } }
  webhookEndpoints { id url description } }`);
const REDELIVER = graphql(`mutation ConsoleRedeliverWebhook($id: ID!, $key: String) { redeliverWebhook(id: $id, idempotencyKey: $key) {
  __typename ... on MutationRedeliverWebhookSuccess { data { id status } } ... on AppError { code message } } }`);

/** While a delivery is pending, how often the page reads it again. */
const PENDING_POLL_MS = 1000;

const S: Strings<'title' | 'back' | 'status' | 'event' | 'endpoint' | 'order' | 'created' | 'delivered' | 'nextAttempt' | 'payload' | 'attempts' | 'attempt' | 'at' | 'code' | 'latency' | 'error' | 'none' | 'redeliver' | 'requeued'> = {
  es: { title: 'Entrega de webhook', back: 'Volver a webhooks', status: 'Estado', event: 'Evento', endpoint: 'Destino', order: 'Pedido', created: 'Creada', delivered: 'Entregada', nextAttempt: 'Próximo intento', payload: 'Cuerpo enviado', attempts: 'Intentos', attempt: 'Intento', at: 'Hora', code: 'Código HTTP', latency: 'Latencia', error: 'Error', none: 'Aún sin intentos.', redeliver: 'Reenviar', requeued: 'En cola para reenvío.' },
  en: { title: 'Webhook delivery', back: 'Back to webhooks', status: 'Status', event: 'Event', endpoint: 'Endpoint', order: 'Order', created: 'Created', delivered: 'Delivered', nextAttempt: 'Next attempt', payload: 'Body sent', attempts: 'Attempts', attempt: 'Attempt', at: 'Time', code: 'HTTP status', latency: 'Latency', error: 'Error', none: 'No attempts yet.', redeliver: 'Redeliver', requeued: 'Queued for redelivery.' },
};

/** Pretty-printed when it is JSON (it always is today); the raw text otherwise. */
function pretty(body: string): string {
  try { return JSON.stringify(JSON.parse(body), null, 2); } catch { return body; }
}

/** The payload viewer: one delivery's body and every attempt; redeliver (dispatcher and owner). */
export function WebhookDeliveryPage({ params }: PageProps) {
  const app = useApp();
  const t = useStrings(S);
  const id = params.id!;
  const delivery = useLoad(async (mode) => {
    const result = await request(DELIVERY, { id }, mode);
    const found = dataOf(result.webhookDelivery);
    return { ...found, endpoint: result.webhookEndpoints.find((e) => e.id === found.endpointId) ?? null };
  }, [id]);
  const [error, setError] = useState<unknown>(null);
  const [requeued, setRequeued] = useState(false);
  const [key, setKey] = useState(() => crypto.randomUUID());
  const d = delivery.data;
  useEffect(() => {
    if (d?.status !== 'pending') return;
    const timer = setTimeout(delivery.reload, PENDING_POLL_MS);
    return () => clearTimeout(timer);
  }, [d]);

  const onRedeliver = async () => {
    setError(null);
    try {
      dataOf((await request(REDELIVER, { id, key }, app.mode)).redeliverWebhook);
      setRequeued(true);
      setKey(crypto.randomUUID());
      delivery.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="delivery-title" id="delivery" data-status={d?.status} data-attempts={d?.attempts}>
      <p><Link href="/console/webhooks">{t.back}</Link></p>
      <h1 id="delivery-title">{t.title} <span class="mono">{id}</span></h1>
      <ErrorNote error={delivery.error} />
      {d && (
        <>
          <dl class="facts card">
            <dt>{t.status}</dt><dd id="delivery-status"><span class={`badge ${d.status}`}>{DELIVERY_STATUS_LABELS[app.lang][d.status]}</span></dd>
            <dt>{t.event}</dt><dd>{EVENT_LABELS[app.lang][d.event]}</dd>
            <dt>{t.endpoint}</dt><dd class="mono" id="delivery-endpoint">{d.endpoint ? d.endpoint.url : d.endpointId}{d.endpoint?.description ? ` · ${d.endpoint.description}` : ''}</dd>
            <dt>{t.order}</dt><dd>{d.orderId ? <Link href={`/console/orders/${encodeURIComponent(d.orderId)}`}>{d.orderId}</Link> : '—'}</dd>
            <dt>{t.created}</dt><dd>{dateTime(d.createdAt, app.lang)}</dd>
            {d.deliveredAt && <><dt>{t.delivered}</dt><dd>{dateTime(d.deliveredAt, app.lang)}</dd></>}
            {d.nextAttemptAt && <><dt>{t.nextAttempt}</dt><dd>{dateTime(d.nextAttemptAt, app.lang)}</dd></>}
          </dl>
          <div class="actions" hidden={app.me?.role === 'viewer'}>
            <button type="button" id="redeliver" disabled={d.status === 'pending'} onClick={() => void onRedeliver()}>{t.redeliver}</button>
            <span aria-live="polite">{requeued ? t.requeued : ''}</span>
          </div>
          <ErrorNote error={error} />
          <section class="card" aria-labelledby="attempts-title">
            <h2 id="attempts-title">{t.attempts}</h2>
            {d.attemptLog.length === 0 ? <p>{t.none}</p> : (
              <div class="table-wrap">
                <table id="attempts">
                  <thead><tr><th scope="col" class="num">{t.attempt}</th><th scope="col">{t.at}</th><th scope="col" class="num">{t.code}</th><th scope="col" class="num">{t.latency}</th><th scope="col">{t.error}</th></tr></thead>
                  <tbody>
                    {d.attemptLog.map((a, i) => (
                      // Keyed by position: a redelivery numbers its attempts from 1 again.
                      <tr key={i} data-status-code={a.statusCode ?? ''}>
                        <td class="num" data-label={t.attempt}>{a.attempt}</td>
                        <td data-label={t.at}><time dateTime={a.at}>{dateTime(a.at, app.lang)}</time></td>
                        <td class="num" data-label={t.code}>{a.statusCode ?? '—'}</td>
                        <td class="num" data-label={t.latency}>{a.latencyMs} ms</td>
                        <td data-label={t.error}>{a.error ?? '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <section class="card" aria-labelledby="payload-title">
            <h2 id="payload-title">{t.payload}</h2>
            <pre class="payload" id="payload" tabIndex={0} aria-labelledby="payload-title">{pretty(d.payload)}</pre>
          </section>
        </>
      )}
    </section>
  );
}
