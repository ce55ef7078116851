import { useEffect } from 'preact/hooks';
import { operatorRequest } from '../../shared/api/http.js';
import { dateTime } from '../../shared/format.js';
import { graphql, type ResultOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { STATUS_LABELS } from '../../shared/ui/status.js';
import { useApp } from '../app-state.js';
import { Link, useLocation, type PageProps } from '../router.js';
import { StatusBadge } from '../ui/words.js';

const ORDER_ROW = 'id merchantId merchantName status courierId courierName createdAt order { trackingNumber estimatedDeliveryTime deliverBefore pickup { address } dropoff { address } }';
const NOW = graphql(`query OpsNow($mode: Mode!) { adminNow(mode: $mode) { mode at
  lateOrders { count more orders(first: 10) { ${ORDER_ROW} } }
  unassignedOrders { count more orders(first: 10) { ${ORDER_ROW} } }
  couriersOnDuty { count more couriers(first: 10) { id name vehicle plate dutyStatus shiftEndsAt job { kind id } } }
  failingWebhooks { count more endpoints(first: 10) { id merchantId merchantName url enabled failingSince disabledReason } } } }`);
type Now = ResultOf<typeof NOW>['adminNow'];
type Row = Now['lateOrders']['orders'][number];

/** Polled: the four lists change with every order and courier; a socket per list would cost more than one read. */
const REFRESH_MS = 15_000;

const STRINGS: Strings<'title' | 'live' | 'test' | 'modes' | 'testNote' | 'late' | 'unassigned' | 'onDuty' | 'webhooks' | 'noLate' | 'noUnassigned' | 'noCouriers' | 'noWebhooks' | 'order' | 'merchant' | 'status' | 'courier' | 'due' | 'pickup' | 'waiting' | 'name' | 'vehicle' | 'job' | 'shiftEnd' | 'url' | 'state' | 'since' | 'failing' | 'disabled' | 'all' | 'updated' | 'loading' | 'bike' | 'motorcycle' | 'car' | 'van'> = {
  es: {
    title: 'Ahora', live: 'Real', test: 'Prueba', modes: 'Modo', testNote: 'Estás viendo datos de prueba: nada de esto es una entrega real.',
    late: 'Pedidos atrasados', unassigned: 'Pedidos sin repartidor', onDuty: 'Repartidores en turno', webhooks: 'Webhooks con fallas',
    noLate: 'Ningún pedido atrasado.', noUnassigned: 'Todos los pedidos tienen repartidor.', noCouriers: 'Ningún repartidor en turno.', noWebhooks: 'Ningún webhook con fallas.',
    order: 'Pedido', merchant: 'Comercio', status: 'Estado', courier: 'Repartidor', due: 'Debía llegar', pickup: 'Retiro', waiting: 'Creado',
    name: 'Nombre', vehicle: 'Vehículo', job: 'Trabajo', shiftEnd: 'Fin de turno', url: 'URL', state: 'Estado', since: 'Fallando desde',
    failing: 'Fallando', disabled: 'Desactivado', all: 'Ver todos', updated: 'Actualizado', loading: 'Cargando…',
    bike: 'Bicicleta', motorcycle: 'Moto', car: 'Auto', van: 'Furgón',
  },
  en: {
    title: 'Now', live: 'Live', test: 'Test', modes: 'Mode', testNote: 'You are looking at test data: none of this is a real delivery.',
    late: 'Late orders', unassigned: 'Orders without a courier', onDuty: 'Couriers on duty', webhooks: 'Failing webhooks',
    noLate: 'No late order.', noUnassigned: 'Every order has a courier.', noCouriers: 'No courier on duty.', noWebhooks: 'No failing webhook.',
    order: 'Order', merchant: 'Merchant', status: 'Status', courier: 'Courier', due: 'Was due', pickup: 'Pickup', waiting: 'Created',
    name: 'Name', vehicle: 'Vehicle', job: 'Job', shiftEnd: 'Shift end', url: 'URL', state: 'State', since: 'Failing since',
    failing: 'Failing', disabled: 'Disabled', all: 'See all', updated: 'Updated', loading: 'Loading…',
    bike: 'Bike', motorcycle: 'Motorcycle', car: 'Car', van: 'Van',
  },
};

/** "12", or "100+" when the home read its cap and there were more. */
const countText = (list: { count: number; more: boolean }) => `${list.count}${list.more ? '+' : ''}`;

/**
 * The operators' home (issue #38): what needs a person now, in one mode at a time (live unless the
 * address says ?mode=test): late orders, orders without a courier, couriers on duty, failing webhooks.
 */
export function NowPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const { search } = useLocation();
  const mode = new URLSearchParams(search).get('mode') === 'test' ? 'test' : 'live';
  const now = useLoad(async () => (await operatorRequest(NOW, { mode })).adminNow, [mode]);
  useEffect(() => {
    const timer = setInterval(() => { if (document.visibilityState === 'visible') now.reload(); }, REFRESH_MS);
    const onVisible = () => { if (document.visibilityState === 'visible') now.reload(); };
    document.addEventListener('visibilitychange', onVisible);
    return () => { clearInterval(timer); document.removeEventListener('visibilitychange', onVisible); };
  }, [now.reload]);
  const data = now.data?.mode === mode ? now.data : null;
  const tiles = data && ([
    ['now-late', t.late, data.lateOrders, 'alert'],
    ['now-unassigned', t.unassigned, data.unassignedOrders, 'alert'],
    ['now-couriers', t.onDuty, data.couriersOnDuty, 'info'],
    ['now-webhooks', t.webhooks, data.failingWebhooks, 'alert'],
  ] as const);

  return (
    <div id="now" class={`now mode-${mode}`} data-mode={mode}>
      <div class="now-head">
        <h1>{t.title}</h1>
        <nav class="mode-tabs" aria-label={t.modes}>
          <Link href="/ops" aria-current={mode === 'live' ? 'page' : undefined}>{t.live}</Link>
          <Link href="/ops?mode=test" aria-current={mode === 'test' ? 'page' : undefined}>{t.test}</Link>
        </nav>
        {data && <small class="note" id="now-updated">{t.updated} {dateTime(data.at, app.lang)}</small>}
      </div>
      {mode === 'test' && <p class="test-banner" id="now-test-note" role="note">{t.testNote}</p>}
      <ErrorNote error={now.error} id="now-error" />
      {!data ? <p aria-busy="true">{t.loading}</p> : (
        <>
          <ul class="now-counts" id="now-counts" aria-label={t.title}>
            {tiles!.map(([id, label, list, tone]) => (
              <li key={id} class={list.count > 0 ? `count-${tone}` : 'count-none'}>
                <a href={`#${id}`} id={`${id}-count`} data-count={list.count}><strong>{countText(list)}</strong> <span>{label}</span></a>
              </li>
            ))}
          </ul>
          <OrdersSection id="now-late" title={t.late} empty={t.noLate} list={data.lateOrders} late />
          <OrdersSection id="now-unassigned" title={t.unassigned} empty={t.noUnassigned} list={data.unassignedOrders} />
          <section class="card" id="now-couriers" aria-labelledby="now-couriers-title">
            <SectionHead id="now-couriers" title={t.onDuty} list={data.couriersOnDuty} href="/ops/couriers" />
            {data.couriersOnDuty.couriers.length === 0 ? <p class="note">{t.noCouriers}</p> : (
              <div class="table-wrap">
                <table>
                  <thead><tr><th>{t.name}</th><th>{t.status}</th><th>{t.vehicle}</th><th>{t.job}</th><th>{t.shiftEnd}</th></tr></thead>
                  <tbody>
                    {data.couriersOnDuty.couriers.map((c) => (
                      <tr key={c.id} data-courier={c.id}>
                        <td class="wrap" data-label={t.name}>{c.name}</td>
                        <td data-label={t.status}><StatusBadge status={c.dutyStatus} /></td>
                        <td class="wrap" data-label={t.vehicle}>{t[c.vehicle]} · {c.plate}</td>
                        <td data-label={t.job}>{c.job?.kind === 'order' ? <Link href={`/ops/orders/${c.job.id}`}>{t.order}</Link> : c.job ? <code>{c.job.id}</code> : '—'}</td>
                        <td data-label={t.shiftEnd}>{c.shiftEndsAt ? dateTime(c.shiftEndsAt, app.lang) : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <section class="card" id="now-webhooks" aria-labelledby="now-webhooks-title">
            <SectionHead id="now-webhooks" title={t.webhooks} list={data.failingWebhooks} href="/ops/webhooks" />
            {data.failingWebhooks.endpoints.length === 0 ? <p class="note">{t.noWebhooks}</p> : (
              <div class="table-wrap">
                <table>
                  <thead><tr><th>{t.merchant}</th><th>{t.url}</th><th>{t.state}</th><th>{t.since}</th></tr></thead>
                  <tbody>
                    {data.failingWebhooks.endpoints.map((e) => (
                      <tr key={e.id} data-endpoint={e.id}>
                        <td class="wrap" data-label={t.merchant}><Link href={`/ops/merchants/${e.merchantId}`}>{e.merchantName ?? e.merchantId}</Link></td>
                        <td class="wrap url" data-label={t.url}><code>{e.url}</code></td>
                        <td class="wrap" data-label={t.state}>{e.enabled ? t.failing : t.disabled}</td>
                        <td data-label={t.since}>{e.failingSince ? dateTime(e.failingSince, app.lang) : '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </div>
  );
}

function SectionHead({ id, title, list, href }: { id: string; title: string; list: { count: number; more: boolean }; href: string }) {
  const t = useStrings(STRINGS);
  return (
    <div class="section-head">
      <h2 id={`${id}-title`}>{title} <span class="badge">{countText(list)}</span></h2>
      <Link href={href}>{t.all}</Link>
    </div>
  );
}

function OrdersSection({ id, title, empty, list, late }: { id: string; title: string; empty: string; list: Now['lateOrders']; late?: boolean }) {
  const app = useApp();
  const t = useStrings(STRINGS);
  return (
    <section class="card" id={id} aria-labelledby={`${id}-title`}>
      <SectionHead id={id} title={title} list={list} href="/ops/orders" />
      {list.orders.length === 0 ? <p class="note">{empty}</p> : (
        <div class="table-wrap">
          <table>
            <thead><tr><th>{t.order}</th><th>{t.merchant}</th><th>{t.status}</th>{late ? <><th>{t.courier}</th><th>{t.due}</th></> : <><th>{t.pickup}</th><th>{t.waiting}</th></>}</tr></thead>
            <tbody>
              {list.orders.map((o: Row) => (
                <tr key={o.id} data-order={o.id}>
                  <td data-label={t.order}><Link href={`/ops/orders/${o.id}`}>{o.order.trackingNumber}</Link></td>
                  <td class="wrap" data-label={t.merchant}>{o.merchantName ?? <code>{o.merchantId}</code>}</td>
                  <td data-label={t.status}><span class={`badge order-${o.status}`}>{STATUS_LABELS[app.lang][o.status]}</span></td>
                  {late ? (
                    <>
                      <td class="wrap" data-label={t.courier} data-courier={o.courierId ?? ''}>{o.courierName ?? '—'}</td>
                      <td data-label={t.due}>{dateTime(dueOf(o), app.lang)}</td>
                    </>
                  ) : (
                    <>
                      <td class="wrap" data-label={t.pickup}>{o.order.pickup.address ?? '—'}</td>
                      <td data-label={t.waiting}>{dateTime(o.createdAt, app.lang)}</td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The earlier of the ETA and the delivery window's end: what made the order late. */
const dueOf = (o: Row) => (o.order.deliverBefore && o.order.deliverBefore < o.order.estimatedDeliveryTime ? o.order.deliverBefore : o.order.estimatedDeliveryTime);
