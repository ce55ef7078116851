import { useState } from 'preact/hooks';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useCourier } from '../state.js';
import { JobCard } from '../ui/job-card.js';
import { CashCard } from '../ui/cash.js';
import { LangSwitch } from '../ui/lang-switch.js';
import { COURIER_ERRORS } from '../words.js';
import { EarningsPage } from './earnings.js';
import { clockTime, nextOccurrence, withinShiftBound } from '../../shared/shift.js';

const S: Strings<
  'onDuty' | 'offDuty' | 'busy' | 'goOn' | 'goOff' | 'live' | 'connecting' | 'offline' | 'kept' | 'noJob' | 'newJob' | 'signOut'
  | 'geoDenied' | 'geoUnavailable' | 'test' | 'delivered' | 'duty' | 'returned' | 'disposed' | 'earnings'
  | 'until' | 'untilHint' | 'untilTooLate' | 'endsAt'
> = {
  es: {
    duty: 'Turno', onDuty: 'En turno: disponible', offDuty: 'Fuera de turno', busy: 'En turno: con pedido', goOn: 'Comenzar turno', goOff: 'Terminar turno',
    live: 'En línea', connecting: 'Conectando…', offline: 'Sin conexión', kept: 'posiciones guardadas en el teléfono',
    noJob: 'Sin pedidos asignados. El próximo aparecerá aquí solo.', newJob: 'Nuevo pedido asignado', signOut: 'Cerrar sesión',
    geoDenied: 'La ubicación está bloqueada: permítela para esta app en los ajustes del navegador.', geoUnavailable: 'No se pudo obtener tu ubicación: revisa el GPS.',
    test: 'Modo de prueba: los pedidos no son reales.', delivered: 'Pedido entregado', returned: 'Pedido devuelto en la tienda', disposed: 'Pedido cerrado: no hay que devolverlo',
    earnings: 'Ganancias',
    until: '¿Hasta qué hora?', untilHint: 'Opcional. No recibirás pedidos que no alcances a retirar antes de esa hora.',
    untilTooLate: 'Elige una hora dentro de las próximas 16 horas.', endsAt: 'Turno hasta las',
  },
  en: {
    duty: 'Shift', onDuty: 'On duty: available', offDuty: 'Off duty', busy: 'On duty: on a job', goOn: 'Go on duty', goOff: 'Go off duty',
    live: 'Online', connecting: 'Connecting…', offline: 'Offline', kept: 'positions kept on the phone',
    noJob: 'No orders assigned. The next one will show up here by itself.', newJob: 'New order assigned', signOut: 'Sign out',
    geoDenied: 'Location is blocked: allow it for this app in the browser settings.', geoUnavailable: 'Your location could not be read: check the GPS.',
    test: 'Test mode: the orders are not real.', delivered: 'Order delivered', returned: 'Order returned to the shop', disposed: 'Order closed: no return needed',
    earnings: 'Earnings',
    until: 'Until what time?', untilHint: 'Optional. You will not get orders you could not pick up before then.',
    untilTooLate: 'Pick a time within the next 16 hours.', endsAt: 'On duty until',
  },
};

export function HomePage({ announcement }: { announcement: string }) {
  const t = useStrings(S);
  const c = useCourier();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [ended, setEnded] = useState<{ id: string; status: 'completed' | 'returned' | 'disposed' } | null>(null);
  const [earnings, setEarnings] = useState(false);
  const [until, setUntil] = useState('');
  const [tooLate, setTooLate] = useState(false);
  const status = c.courier.status;
  const shiftEndsAt = c.courier.shift_ends_at ?? null;
  const toggle = () => {
    const goingOn = status === 'off_duty';
    // Going on duty: the planned end is the next time the phone shows the picked time (none when left empty).
    const now = new Date();
    const end = goingOn && until ? nextOccurrence(until, now) : null;
    if (end && !withinShiftBound(end, now)) return setTooLate(true);
    setTooLate(false);
    setBusy(true);
    setError(null);
    c.setDuty(goingOn, end?.toISOString()).then(() => (setBusy(false), setUntil('')), (e: unknown) => (setBusy(false), setError(e)));
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
          {status !== 'off_duty' && shiftEndsAt && (
            <p id="shift-ends" class="shift-ends" data-shift-ends-at={shiftEndsAt}>{t.endsAt} <strong>{clockTime(shiftEndsAt, c.lang)}</strong></p>
          )}
          {status === 'off_duty' && (
            <div class="shift-until">
              <label for="shift-until">{t.until}</label>
              <input id="shift-until" type="time" value={until} aria-describedby="shift-until-hint" aria-invalid={tooLate || undefined}
                onInput={(e) => (setUntil((e.currentTarget as HTMLInputElement).value), setTooLate(false))} />
              <small id="shift-until-hint">{t.untilHint}</small>
              {tooLate && <p class="error" role="alert" id="shift-until-error">{t.untilTooLate}</p>}
            </div>
          )}
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
