import { useRef, useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { operatorRequest } from '../../shared/api/http.js';
import { clp, dateTime } from '../../shared/format.js';
import { nextOccurrence, withinShiftBound } from '../../shared/shift.js';
import { graphql, type ResultOf, type VariablesOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ConfirmButton } from '../../shared/ui/confirm-button.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { OneTimeSecret } from '../../shared/ui/one-time-secret.js';
import { may, useApp } from '../app-state.js';
import type { PageProps } from '../router.js';
import { CourierName, useCourierNames } from '../ui/courier-names.js';
import { FleetMap, type FleetCourier } from '../ui/fleet-map.js';
import { History } from '../ui/history.js';
import { ShareLink } from '../ui/share-link.js';
import { StatusBadge } from '../ui/words.js';

const COURIERS = graphql(`query OpsCouriers($mode: Mode, $status: CourierDutyStatus, $after: ID) {
  adminCouriers(mode: $mode, status: $status, first: 50, after: $after) {
    couriers { id name mode vehicle plate dutyStatus accountStatus shiftEndsAt lastPosition { lat lng at } job { kind id } cashInHand } nextCursor } }`);
const CREATE = graphql(`mutation OpsCreateCourier($name: String!, $phone: String!, $vehicle: VehicleType!, $plate: String!, $mode: Mode) {
  adminCreateCourier(name: $name, phone: $phone, vehicle: $vehicle, plate: $plate, mode: $mode) {
  __typename ... on MutationAdminCreateCourierSuccess { data { courierId signInUrl } } ... on AppError { code message } } }`);
const DISABLE = graphql(`mutation OpsDisableCourier($id: ID!) { adminDisableCourier(courierId: $id) {
  __typename ... on MutationAdminDisableCourierSuccess { data { courierId } } ... on AppError { code message } } }`);
const ENABLE = graphql(`mutation OpsEnableCourier($id: ID!) { adminEnableCourier(courierId: $id) {
  __typename ... on MutationAdminEnableCourierSuccess { data { courierId } } ... on AppError { code message } } }`);
const SET_SHIFT_END = graphql(`mutation OpsSetCourierShiftEnd($id: ID!, $end: DateTime) { adminSetCourierShiftEnd(courierId: $id, shiftEndsAt: $end) {
  __typename ... on MutationAdminSetCourierShiftEndSuccess { data { courierId shiftEndsAt } } ... on AppError { code message } } }`);
const ROTATE = graphql(`mutation OpsRotateCourierToken($id: ID!) { adminRotateCourierToken(courierId: $id) {
  __typename ... on MutationAdminRotateCourierTokenSuccess { data { courierId token } } ... on AppError { code message } } }`);
const INVITE = graphql(`mutation OpsInviteCourier($id: ID!) { adminInviteCourier(courierId: $id) {
  __typename ... on MutationAdminInviteCourierSuccess { data { courierId signInUrl } } ... on AppError { code message } } }`);
const HAND_OVER = graphql(`mutation OpsCodHandOver($id: ID!, $amount: Int!, $key: String!) { adminRecordCodHandOver(courierId: $id, amount: $amount, idempotencyKey: $key) {
  __typename ... on MutationAdminRecordCodHandOverSuccess { data { courierId amount } } ... on AppError { code message } } }`);
const CLAIMS = graphql(`query OpsCodClaims { adminCodClaims(status: pending_confirmation, first: 50) {
  claims { id bookingId merchantId courierId expected collected collectedAt } nextCursor } }`);
const CONFIRM = graphql(`mutation OpsConfirmCodClaim($id: ID!) { adminConfirmCodClaim(id: $id) {
  __typename ... on MutationAdminConfirmCodClaimSuccess { data { id status } } ... on AppError { code message } } }`);
const REJECT = graphql(`mutation OpsRejectCodClaim($id: ID!) { adminRejectCodClaim(id: $id) {
  __typename ... on MutationAdminRejectCodClaimSuccess { data { id status } } ... on AppError { code message } } }`);
type Filters = Omit<VariablesOf<typeof COURIERS>, 'after'>;

const VEHICLES = ['bike', 'motorcycle', 'car', 'van'] as const;

const STRINGS: Strings<'title' | 'cash' | 'mode' | 'status' | 'all' | 'live' | 'test' | 'apply' | 'name' | 'vehicle' | 'account' | 'position' | 'job' | 'actions' | 'empty' | 'next' | 'first' | 'create' | 'phone' | 'plate' | 'add' | 'link' | 'token' | 'disable' | 'disableQ' | 'enable' | 'rotate' | 'rotateQ' | 'invite' | 'map' | 'mapNote' | 'bike' | 'motorcycle' | 'car' | 'van' | 'off_duty' | 'available' | 'busy' | 'handOver' | 'handOverQ' | 'amount' | 'claims' | 'claimsNote' | 'order' | 'expected' | 'collected' | 'confirm' | 'reject' | 'rejectQ' | 'shiftEnd' | 'until' | 'setShift' | 'clearShift' | 'tooLate'> = {
  es: { title: 'Repartidores', cash: 'Efectivo en mano', mode: 'Modo', status: 'Estado', all: 'Todos', live: 'Real', test: 'Prueba', apply: 'Filtrar', name: 'Nombre', vehicle: 'Vehículo', account: 'Cuenta', position: 'Última posición', job: 'Trabajo', actions: 'Acciones', empty: 'Ningún repartidor coincide.', next: 'Siguientes', first: 'Primeros', create: 'Nuevo repartidor', phone: 'Teléfono', plate: 'Patente', add: 'Crear repartidor', link: 'Enlace de ingreso para la app', token: 'Token nuevo', disable: 'Deshabilitar', disableQ: '¿Deshabilitar? Sus pedidos asignados vuelven a despacho.', enable: 'Habilitar', rotate: 'Rotar token', invite: 'Enlace nuevo', map: 'Mapa de la flota en vivo', mapNote: 'Flota en vivo, al segundo: verde disponible, ámbar ocupado, gris fuera de turno.', rotateQ: '¿Rotar? El token actual deja de servir.', bike: 'Bicicleta', motorcycle: 'Moto', car: 'Auto', van: 'Furgón', off_duty: 'Fuera de turno', available: 'Disponible', busy: 'Ocupado', handOver: 'Registrar entrega de efectivo', handOverQ: '¿Registrar que el repartidor entregó este efectivo?', amount: 'Monto (CLP)', claims: 'Cobros por confirmar', claimsNote: 'Montos informados muy por encima del pedido: no cuentan hasta que los confirmes.', order: 'Pedido', expected: 'Esperado', collected: 'Informado', confirm: 'Confirmar', reject: 'Rechazar', rejectQ: '¿Rechazar? El cobro no contará nunca.', shiftEnd: 'Fin de turno', until: 'Hasta las', setShift: 'Fijar fin', clearShift: 'Quitar fin de turno', tooLate: 'Elige una hora dentro de las próximas 16 horas.' },
  en: { title: 'Couriers', cash: 'Cash in hand', mode: 'Mode', status: 'Status', all: 'All', live: 'Live', test: 'Test', apply: 'Filter', name: 'Name', vehicle: 'Vehicle', account: 'Account', position: 'Last position', job: 'Job', actions: 'Actions', empty: 'No courier matches.', next: 'Next', first: 'First', create: 'New courier', phone: 'Phone', plate: 'Plate', add: 'Create courier', link: "The app's sign-in link", token: 'New token', disable: 'Disable', disableQ: 'Disable? Its assigned orders go back to dispatch.', enable: 'Enable', rotate: 'Rotate token', invite: 'New link', map: 'Map of the live fleet', mapNote: 'Live fleet, to the second: green available, amber busy, grey off duty.', rotateQ: 'Rotate? The current token stops working.', bike: 'Bike', motorcycle: 'Motorcycle', car: 'Car', van: 'Van', off_duty: 'Off duty', available: 'Available', busy: 'Busy', handOver: 'Record cash handed over', handOverQ: 'Record that the courier handed over this cash?', amount: 'Amount (CLP)', claims: 'Claims to confirm', claimsNote: 'Amounts reported far above the order: they do not count until you confirm them.', order: 'Order', expected: 'Expected', collected: 'Reported', confirm: 'Confirm', reject: 'Reject', rejectQ: 'Reject? The claim will never count.', shiftEnd: 'Shift end', until: 'Until', setShift: 'Set end', clearShift: 'Clear shift end', tooLate: 'Pick a time within the next 16 hours.' },
};

/** Every courier, 50 a page, filtered by mode and duty status; dispatchers and admins act on them. */
export function CouriersPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const [filters, setFilters] = useState<Filters>({});
  const [after, setAfter] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [shown, setShown] = useState<string | null>(null);
  const [tooLate, setTooLate] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ kind: 'link' | 'token'; courierId: string; value: string; name?: string; phone?: string } | null>(null);
  const list = useLoad(async () => (await operatorRequest(COURIERS, { ...filters, ...(after && { after }) })).adminCouriers, [JSON.stringify(filters), after, version]);
  const dispatch = may(app.me, 'dispatch');
  // Money is admins' (manage): hand-overs and decisions on claims far above their order's amount.
  const manage = may(app.me, 'manage');
  const claims = useLoad(async () => (manage ? (await operatorRequest(CLAIMS, {})).adminCodClaims.claims : []), [version, manage]);
  const claimCouriers = useCourierNames(claims.data?.map((c) => c.courierId) ?? []);
  // One key per hand-over being entered: a second click or a retry after a lost answer records it once.
  // A ref, not state: a second click before the next render must see the key the first one made.
  const handOverKeys = useRef<Record<string, string>>({});
  // What the live fleet said since the list loaded, for the rows of this page (one update per batch).
  const [live, setLive] = useState<Record<string, FleetCourier>>({});
  const onFleet = (batch: FleetCourier[]) => {
    const shown = batch.filter((c) => list.data?.couriers.some((row) => row.id === c.courierId));
    if (shown.length) setLive((before) => ({ ...before, ...Object.fromEntries(shown.map((c) => [c.courierId, c])) }));
  };

  const act = async (run: () => Promise<void>) => {
    try {
      await run();
      setError(null);
      setVersion((v) => v + 1);
    } catch (failure) {
      setError(failure);
    }
  };
  const onFilter = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const mode = String(form.get('mode') ?? '');
    const status = String(form.get('status') ?? '');
    setFilters({ ...(mode && { mode: mode as 'live' | 'test' }), ...(status && { status: status as 'off_duty' | 'available' | 'busy' }) });
    setAfter(null);
  };
  const onCreate = (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    void act(async () => {
      const created = dataOf((await operatorRequest(CREATE, { name: text('name'), phone: text('phone'), vehicle: text('vehicle') as (typeof VEHICLES)[number], plate: text('plate'), mode: text('mode') as 'live' | 'test' })).adminCreateCourier);
      setSecret({ kind: 'link', courierId: created.courierId, value: created.signInUrl, name: text('name'), phone: text('phone') });
      formElement.reset();
    });
  };
  const disable = (id: string) => act(async () => void dataOf((await operatorRequest(DISABLE, { id })).adminDisableCourier));
  const enable = (id: string) => act(async () => void dataOf((await operatorRequest(ENABLE, { id })).adminEnableCourier));
  /** The planned end (issue #37): the next time this device's clock shows the picked time; null clears it. */
  const setShiftEnd = (id: string, end: Date | null) => act(async () => {
    dataOf((await operatorRequest(SET_SHIFT_END, { id, end: end?.toISOString() ?? null })).adminSetCourierShiftEnd);
  });
  const onShiftEnd = (id: string) => (event: SubmitEvent) => {
    event.preventDefault();
    const now = new Date();
    const end = nextOccurrence(String(new FormData(event.currentTarget as HTMLFormElement).get('until') ?? ''), now);
    setTooLate(end && !withinShiftBound(end, now) ? id : null);
    if (end && withinShiftBound(end, now)) void setShiftEnd(id, end);
  };
  const rotate = (id: string) => act(async () => {
    const rotated = dataOf((await operatorRequest(ROTATE, { id })).adminRotateCourierToken);
    setSecret({ kind: 'token', courierId: rotated.courierId, value: rotated.token });
  });
  const invite = (id: string, name: string) => act(async () => {
    const link = dataOf((await operatorRequest(INVITE, { id })).adminInviteCourier);
    setSecret({ kind: 'link', courierId: link.courierId, value: link.signInUrl, name });
  });
  const handOver = (id: string, formElement: HTMLFormElement) => act(async () => {
    const amount = Number(new FormData(formElement).get('amount') ?? '');
    const key = (handOverKeys.current[id] ??= `ops-${crypto.randomUUID()}`);
    dataOf((await operatorRequest(HAND_OVER, { id, amount, key })).adminRecordCodHandOver);
    delete handOverKeys.current[id];
    formElement.reset();
  });
  const decide = (id: string, decision: 'confirm' | 'reject') => act(async () => {
    if (decision === 'confirm') dataOf((await operatorRequest(CONFIRM, { id })).adminConfirmCodClaim);
    else dataOf((await operatorRequest(REJECT, { id })).adminRejectCodClaim);
  });
  const page = list.data;

  return (
    <>
      <h1>{t.title}</h1>
      <form id="courier-filters" class="card filters" onSubmit={onFilter}>
        <label>{t.mode}<select name="mode"><option value="">{t.all}</option><option value="live">{t.live}</option><option value="test">{t.test}</option></select></label>
        <label>{t.status}<select name="status"><option value="">{t.all}</option>{(['off_duty', 'available', 'busy'] as const).map((s) => <option key={s} value={s}>{t[s]}</option>)}</select></label>
        <button type="submit">{t.apply}</button>
      </form>
      {secret?.kind === 'token' && <OneTimeSecret id="courier-secret" label={`${t.token} · ${page?.couriers.find((c) => c.id === secret.courierId)?.name ?? secret.courierId}`} value={secret.value} />}
      {secret?.kind === 'link' && <ShareLink id="courier-secret" kind="courier" label={`${t.link} · ${secret.name ?? secret.courierId}`} link={secret.value} name={secret.name ?? ''} {...(secret.phone && { phone: secret.phone })} />}
      <ErrorNote error={list.error ?? error} id="couriers-error" />
      {page && page.couriers.length === 0 && <p id="couriers-empty">{t.empty}</p>}
      {page && (
        <FleetMap
          mode={filters.mode ?? null}
          label={t.map}
          caption={t.mapNote}
          seed={page.couriers.flatMap((c) => (c.lastPosition ? [{ courierId: c.id, name: c.name, lat: c.lastPosition.lat, lng: c.lastPosition.lng }] : []))}
          onBatch={onFleet}
        />
      )}
      {page && page.couriers.length > 0 && (
        <div class="table-wrap card">
          <table id="couriers">
            <thead><tr><th>{t.name}</th><th>{t.mode}</th><th>{t.vehicle}</th><th>{t.status}</th><th>{t.account}</th><th>{t.position}</th><th>{t.job}</th>{dispatch && <th>{t.actions}</th>}</tr></thead>
            <tbody>
              {page.couriers.map((listed) => { const c = withLive(listed, live[listed.id]); return (
                <tr key={c.id} data-courier={c.id}>
                  <td class="wrap" data-label={t.name}>
                    <button type="button" class="link-like" id={`history-${c.id}`} aria-expanded={shown === c.id} onClick={() => setShown(shown === c.id ? null : c.id)}>{c.name}</button>
                    <br /><code>{c.id}</code>
                  </td>
                  <td data-label={t.mode}>{t[c.mode]}</td>
                  <td class="wrap" data-label={t.vehicle}>{t[c.vehicle]} · {c.plate}</td>
                  <td class="wrap" data-label={t.status}>
                    <StatusBadge status={c.dutyStatus} />
                    {c.shiftEndsAt && c.dutyStatus !== 'off_duty' && <><br /><small id={`shift-${c.id}`} data-shift-ends-at={c.shiftEndsAt} title={t.shiftEnd}>{t.until} {dateTime(c.shiftEndsAt, app.lang)}</small></>}
                  </td>
                  <td data-label={t.account}><StatusBadge status={c.accountStatus} id={`account-${c.id}`} /></td>
                  <td class="wrap" data-label={t.position}>{c.lastPosition ? <>{c.lastPosition.lat.toFixed(5)}, {c.lastPosition.lng.toFixed(5)}<br /><small>{dateTime(c.lastPosition.at, app.lang)}</small></> : '—'}</td>
                  <td class="wrap" data-label={t.job}>{c.job ? <code>{c.job.id}</code> : '—'}<br /><small id={`cash-${c.id}`} title={t.cash}>{t.cash}: {clp(c.cashInHand)}</small></td>
                  {dispatch && (
                    <td class="wrap" data-label={t.actions}><div class="row-actions">
                      {c.accountStatus === 'active'
                        ? <ConfirmButton id={`disable-${c.id}`} label={t.disable} question={t.disableQ} danger onConfirm={() => void disable(c.id)} />
                        : <button type="button" id={`enable-${c.id}`} onClick={() => void enable(c.id)}>{t.enable}</button>}
                      {c.accountStatus === 'active' && <button type="button" id={`invite-${c.id}`} class="secondary" onClick={() => void invite(c.id, c.name)}>{t.invite}</button>}
                      <ConfirmButton id={`rotate-${c.id}`} label={t.rotate} question={t.rotateQ} onConfirm={() => void rotate(c.id)} />
                    </div>
                    {c.dutyStatus !== 'off_duty' && (
                      <form class="shift-form" id={`shift-form-${c.id}`} onSubmit={onShiftEnd(c.id)}>
                        <label>{t.shiftEnd}<input type="time" name="until" required /></label>
                        <button type="submit" class="secondary">{t.setShift}</button>
                        {c.shiftEndsAt && <button type="button" class="link-like" id={`shift-clear-${c.id}`} onClick={() => void setShiftEnd(c.id, null)}>{t.clearShift}</button>}
                        {tooLate === c.id && <p class="error" role="alert" id={`shift-error-${c.id}`}>{t.tooLate}</p>}
                      </form>
                    )}
                    {manage && c.mode === 'live' && (
                      <form id={`hand-over-${c.id}`} class="row-actions" onSubmit={(event) => { event.preventDefault(); void handOver(c.id, event.currentTarget); }}>
                        <label>{t.amount}<input name="amount" type="number" min={1} max={c.cashInHand} step={1} required /></label>
                        <button type="submit" id={`hand-over-submit-${c.id}`} class="secondary">{t.handOver}</button>
                      </form>
                    )}</td>
                  )}
                </tr>
              ); })}
            </tbody>
          </table>
        </div>
      )}
      {manage && claims.data && claims.data.length > 0 && (
        <section class="card" aria-labelledby="claims-title">
          <h2 id="claims-title">{t.claims}</h2>
          <p>{t.claimsNote}</p>
          <div class="table-wrap">
            <table id="cod-claims">
              <thead><tr><th>{t.order}</th><th>{t.name}</th><th>{t.expected}</th><th>{t.collected}</th><th>{t.actions}</th></tr></thead>
              <tbody>
                {claims.data.map((claim) => (
                  <tr key={claim.id} data-claim={claim.id}>
                    <td data-label={t.order}><code>{claim.bookingId}</code><br /><small>{dateTime(claim.collectedAt, app.lang)}</small></td>
                    <td class="wrap" data-label={t.name}>{claim.courierId ? <CourierName id={claim.courierId} names={claimCouriers} /> : '—'}</td>
                    <td data-label={t.expected}>{claim.expected == null ? '—' : clp(claim.expected)}</td>
                    <td data-label={t.collected}><strong>{clp(claim.collected)}</strong></td>
                    <td data-label={t.actions}><div class="row-actions">
                      <button type="button" id={`confirm-${claim.id}`} onClick={() => void decide(claim.id, 'confirm')}>{t.confirm}</button>
                      <ConfirmButton id={`reject-${claim.id}`} label={t.reject} question={t.rejectQ} danger onConfirm={() => void decide(claim.id, 'reject')} />
                    </div></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {shown && <History targetType="courier" targetId={shown} version={version} />}
      <div class="pager">
        {after && <button type="button" onClick={() => setAfter(null)}>{t.first}</button>}
        {page?.nextCursor && <button type="button" id="couriers-next" onClick={() => setAfter(page.nextCursor)}>{t.next}</button>}
      </div>
      {dispatch && (
        <section class="card" aria-labelledby="create-title">
          <h2 id="create-title">{t.create}</h2>
          <form id="create-courier" onSubmit={onCreate}>
            <div class="pair">
              <label>{t.name}<input name="name" required autocomplete="off" /></label>
              <label>{t.phone}<input name="phone" type="tel" required autocomplete="off" placeholder="+56 9 1234 5678" /></label>
            </div>
            <div class="pair">
              <label>{t.vehicle}<select name="vehicle">{VEHICLES.map((v) => <option key={v} value={v}>{t[v]}</option>)}</select></label>
              <label>{t.plate}<input name="plate" required autocomplete="off" /></label>
              <label>{t.mode}<select name="mode"><option value="live">{t.live}</option><option value="test">{t.test}</option></select></label>
            </div>
            <div class="actions"><button type="submit">{t.add}</button></div>
          </form>
        </section>
      )}
    </>
  );
}

type Courier = ResultOf<typeof COURIERS>['adminCouriers']['couriers'][number];

/** A row as listed, with the live fleet's newer position and duty status when it has one. */
function withLive(listed: Courier, fleet: FleetCourier | undefined): Courier {
  if (!fleet) return listed;
  const at = fleet.locationAt;
  return { ...listed, dutyStatus: fleet.dutyStatus as Courier['dutyStatus'], lastPosition: fleet.location && at ? { ...fleet.location, at } : listed.lastPosition };
}
