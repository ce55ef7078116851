import { useState } from 'preact/hooks';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useCourier } from '../state.js';
import { JobCard } from '../ui/job-card.js';
import { CashCard } from '../ui/cash.js';
import { LangSwitch } from '../ui/lang-switch.js';
import { COURIER_ERRORS } from '../words.js';
import { EarningsPage } from './earnings.js';

const S: Strings<
  'onDuty' | 'offDuty' | 'busy' | 'goOn' | 'goOff' | 'live' | 'connecting' | 'offline' | 'kept' | 'noJob' | 'newJob' | 'signOut'
  | 'geoDenied' | 'geoUnavailable' | 'test' | 'delivered' | 'duty' | 'returned' | 'disposed' | 'earnings'
> = {
  es: {
    duty: 'Turno', onDuty: 'En turno: disponible', offDuty: 'Fuera de turno', busy: 'En turno: con pedido', goOn: 'Comenzar turno', goOff: 'Terminar turno',
    live: 'En línea', connecting: 'Conectando…', offline: 'Sin conexión', kept: 'posiciones guardadas en el teléfono',
    noJob: 'Sin pedidos asignados. El próximo aparecerá aquí solo.', newJob: 'Nuevo pedido asignado', signOut: 'Cerrar sesión',
    geoDenied: 'La ubicación está bloqueada: permítela para esta app en los ajustes del navegador.', geoUnavailable: 'No se pudo obtener tu ubicación: revisa el GPS.',
    test: 'Modo de prueba: los pedidos no son reales.', delivered: 'Pedido entregado', returned: 'Pedido devuelto en la tienda', disposed: 'Pedido cerrado: no hay que devolverlo',
    earnings: 'Ganancias',
  },
  en: {
    duty: 'Shift', onDuty: 'On duty: available', offDuty: 'Off duty', busy: 'On duty: on a job', goOn: 'Go on duty', goOff: 'Go off duty',
    live: 'Online', connecting: 'Connecting…', offline: 'Offline', kept: 'positions kept on the phone',
    noJob: 'No orders assigned. The next one will show up here by itself.', newJob: 'New order assigned', signOut: 'Sign out',
    geoDenied: 'Location is blocked: allow it for this app in the browser settings.', geoUnavailable: 'Your location could not be read: check the GPS.',
    test: 'Test mode: the orders are not real.', delivered: 'Order delivered', returned: 'Order returned to the shop', disposed: 'Order closed: no return needed',
    earnings: 'Earnings',
  },
};

export function HomePage({ announcement }: { announcement: string }) {
  const t = useStrings(S);
  const c = useCourier();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [ended, setEnded] = useState<{ id: string; status: 'completed' | 'returned' | 'disposed' } | null>(null);
  const [earnings, setEarnings] = useState(false);
  const status = c.courier.status;
  const toggle = () => {
    setBusy(true);
    setError(null);
    c.setDuty(status === 'off_duty').then(() => setBusy(false), (e: unknown) => (setBusy(false), setError(e)));
  };
  return (
    <>
      <header class="top">
        <div class="who">
          <strong id="courier-name">{c.courier.name}</strong>
          <small>{c.courier.vehicle_plate}</small>
        </div>
        <span id="link-state" class="live-dot" data-state={c.link} role="status">
          {t[c.link === 'live' ? 'live' : c.link === 'offline' ? 'offline' : 'connecting']}
          {c.backlog > 0 && <> · <span id="backlog" data-count={c.backlog}>{c.backlog} {t.kept}</span></>}
        </span>
        <LangSwitch setLang={c.setLang} />
      </header>
      {c.courier.is_test && <p class="test-banner">{t.test}</p>}
      {earnings ? <EarningsPage onBack={() => setEarnings(false)} /> : <main id="main" data-courier-status={status}>
        <section class="card duty" aria-labelledby="duty-title">
          <h1 id="duty-title">{t.duty}</h1>
          <p id="duty-status" data-status={status}>{status === 'off_duty' ? t.offDuty : status === 'busy' ? t.busy : t.onDuty}</p>
          <button type="button" id="duty-toggle" class={status === 'off_duty' ? 'big' : 'big secondary'} disabled={busy} onClick={toggle}>
            {status === 'off_duty' ? t.goOn : t.goOff}
          </button>
          <ErrorNote error={error} words={COURIER_ERRORS} />
          {c.geoError && status !== 'off_duty' && <p class="error" role="alert" id="geo-error">{c.geoError === 'denied' ? t.geoDenied : t.geoUnavailable}</p>}
        </section>
        <div aria-live="assertive" class="visually-hidden" id="job-alert">{announcement && c.orders.length ? t.newJob : ''}</div>
        {ended && !c.orders.length && (
          <p class="card success" id="delivered" role="status" data-order-id={ended.id} data-outcome={ended.status}>✓ {t[ended.status === 'completed' ? 'delivered' : ended.status]}</p>
        )}
        <CashCard refreshKey={ended?.id ?? ''} />
        {c.orders.map((order) => (
          <JobCard key={order.booking_id} order={order} onEnded={(id, status) => setEnded({ id, status: status === 'returned' || status === 'disposed' ? status : 'completed' })} />
        ))}
        {!c.orders.length && status !== 'off_duty' && <p class="card note" id="no-job">{t.noJob}</p>}
        <p class="sign-out">
          <button type="button" class="secondary" id="earnings-open" onClick={() => setEarnings(true)}>{t.earnings}</button>{' '}
          <button type="button" class="link" id="sign-out" onClick={() => void c.signOut()}>{t.signOut}</button>
        </p>
      </main>}
    </>
  );
}
