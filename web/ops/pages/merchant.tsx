import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { operatorRequest } from '../../shared/api/http.js';
import { dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { may, useApp } from '../app-state.js';
import type { PageProps } from '../router.js';
import { History } from '../ui/history.js';
import { ShareLink } from '../ui/share-link.js';
import { StatusBadge } from '../ui/words.js';
import { INVITE_MEMBER } from './merchants.js';
import { FailingWebhooks } from './webhooks.js';

const MERCHANT = graphql(`query OpsMerchant($id: ID!) {
  adminMerchant(id: $id) { id name status address createdAt rateLimitPerMin notificationCountries integrationPlatform integrations { plugin storefront erp } }
  adminIntegrationTelemetry(merchantId: $id) { mode integration site pluginVersion userAgent callCount firstSeenAt lastSeenAt } }`);
const SET_STATUS = graphql(`mutation OpsSetMerchantStatus($id: ID!, $status: MerchantStatus!) { adminSetMerchantStatus(merchantId: $id, status: $status) {
  __typename ... on MutationAdminSetMerchantStatusSuccess { data { id } } ... on AppError { code message } } }`);
const SET_INTEGRATION = graphql(`mutation OpsSetIntegration($id: ID!, $integration: Integration!, $status: IntegrationStatus!) {
  adminSetIntegrationStatus(merchantId: $id, integration: $integration, status: $status) {
  __typename ... on MutationAdminSetIntegrationStatusSuccess { data { id } } ... on AppError { code message } } }`);
const SET_RATE_LIMIT = graphql(`mutation OpsSetRateLimit($id: ID!, $perMin: Int) { adminSetMerchantRateLimit(merchantId: $id, perMin: $perMin) {
  __typename ... on MutationAdminSetMerchantRateLimitSuccess { data { id } } ... on AppError { code message } } }`);
const SET_COUNTRIES = graphql(`mutation OpsSetNotificationCountries($id: ID!, $countries: [String!]) { adminSetNotificationCountries(merchantId: $id, countries: $countries) {
  __typename ... on MutationAdminSetNotificationCountriesSuccess { data { id } } ... on AppError { code message } } }`);

const INTEGRATIONS = ['plugin', 'storefront', 'erp'] as const;
const MEMBER_ROLES = ['owner', 'dispatcher', 'viewer'] as const;
const INVITE_WORDS: Strings<'title' | 'email' | 'role' | 'owner' | 'dispatcher' | 'viewer' | 'send' | 'hint' | 'link'> = {
  es: { title: 'Acceso a la consola', email: 'Correo', role: 'Rol', owner: 'Dueño', dispatcher: 'Despachador', viewer: 'Solo lectura', send: 'Crear invitación', hint: 'Un enlace para elegir contraseña; si la persona ya tenía uno sin usar, deja de servir.', link: 'Invitación' },
  en: { title: 'Console access', email: 'E-mail', role: 'Role', owner: 'Owner', dispatcher: 'Dispatcher', viewer: 'Read only', send: 'Create invitation', hint: 'A link to choose a password; an unused earlier one stops working.', link: 'Invitation' },
};

/** Invites a person to the merchant's console (a lost owner invitation is issued again here). */
function InviteMember({ merchantId, name }: { merchantId: string; name: string }) {
  const t = useStrings(INVITE_WORDS);
  const [sent, setSent] = useState<{ email: string; link: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    try {
      const role = String(data.get('role')) as (typeof MEMBER_ROLES)[number];
      const invitation = dataOf((await operatorRequest(INVITE_MEMBER, { merchantId, email: String(data.get('email') ?? '').trim(), role })).adminInviteMember);
      setSent({ email: invitation.member.email, link: invitation.setPasswordUrl });
      setError(null);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section class="card" aria-labelledby="invite-member-title">
      <h2 id="invite-member-title">{t.title}</h2>
      <form id="invite-member" class="filters" onSubmit={(e) => void onSubmit(e)}>
        <label>{t.email}<input name="email" type="email" required autocomplete="off" aria-describedby="invite-member-hint" /></label>
        <label>{t.role}<select name="role">{MEMBER_ROLES.map((r) => <option key={r} value={r}>{t[r]}</option>)}</select></label>
        <button type="submit">{t.send}</button>
      </form>
      <small id="invite-member-hint">{t.hint}</small>
      <ErrorNote error={error} id="invite-member-error" />
      {sent && <ShareLink id="member-invitation" kind="owner" label={`${t.link} · ${sent.email}`} link={sent.link} name={name} email={sent.email} />}
    </section>
  );
}

const STRINGS: Strings<'status' | 'address' | 'since' | 'platform' | 'approve' | 'suspend' | 'activate' | 'rateLimit' | 'perMin' | 'perMinHint' | 'save' | 'integrations' | 'integration' | 'site' | 'version' | 'calls' | 'first' | 'last' | 'mode' | 'noTelemetry' | 'approveIntegration' | 'reject' | 'plugin' | 'storefront' | 'erp' | 'loading' | 'countries' | 'countriesLabel' | 'countriesHint' | 'saveCountries'> = {
  es: { status: 'Estado', address: 'Dirección', since: 'Alta', platform: 'Plataforma', approve: 'Aprobar', suspend: 'Suspender', activate: 'Reactivar', rateLimit: 'Límite de solicitudes', perMin: 'Solicitudes por minuto', perMinHint: 'Vacío: el límite general del servicio.', save: 'Guardar límite', integrations: 'Integraciones', integration: 'Integración', site: 'Sitio', version: 'Versión', calls: 'Llamadas', first: 'Primera vez', last: 'Última vez', mode: 'Modo', noTelemetry: 'Sin llamadas registradas.', approveIntegration: 'Aprobar', reject: 'Rechazar', plugin: 'Plugin', storefront: 'Tienda', erp: 'ERP', loading: 'Cargando…', countries: 'Países de los avisos', countriesLabel: 'Códigos de país (SMS y WhatsApp reales)', countriesHint: 'Separados por comas, p. ej. 56, 54. Vacío: solo Chile (56). A otros países no se envía nada.', saveCountries: 'Guardar países' },
  en: { status: 'Status', address: 'Address', since: 'Since', platform: 'Platform', approve: 'Approve', suspend: 'Suspend', activate: 'Reactivate', rateLimit: 'Rate limit', perMin: 'Requests per minute', perMinHint: "Empty: the service's general limit.", save: 'Save limit', integrations: 'Integrations', integration: 'Integration', site: 'Site', version: 'Version', calls: 'Calls', first: 'First seen', last: 'Last seen', mode: 'Mode', noTelemetry: 'No recorded calls.', approveIntegration: 'Approve', reject: 'Reject', plugin: 'Plugin', storefront: 'Storefront', erp: 'ERP', loading: 'Loading…', countries: 'Notification countries', countriesLabel: 'Country codes (live SMS and WhatsApp)', countriesHint: 'Comma-separated, e.g. 56, 54. Empty: Chile (56) alone. Nothing is sent to other countries.', saveCountries: 'Save countries' },
};

/** One merchant: its status, rate limit, integrations with what they sent, and its history. */
export function MerchantPage({ params }: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  const loaded = useLoad(() => operatorRequest(MERCHANT, { id: params.id! }), [params.id, version]);
  const manage = may(app.me, 'manage');
  const act = (run: () => Promise<unknown>) => async () => {
    try {
      await run();
      setError(null);
      setVersion((v) => v + 1);
    } catch (failure) {
      setError(failure);
    }
  };
  if (!loaded.data) return loaded.error ? <ErrorNote error={loaded.error} /> : <p aria-busy="true">{t.loading}</p>;
  const m = loaded.data.adminMerchant;
  const id = m.id;
  const setStatus = (status: 'active' | 'suspended') => act(async () => dataOf((await operatorRequest(SET_STATUS, { id, status })).adminSetMerchantStatus));
  const setIntegration = (integration: (typeof INTEGRATIONS)[number], status: 'approved' | 'rejected') =>
    act(async () => dataOf((await operatorRequest(SET_INTEGRATION, { id, integration, status })).adminSetIntegrationStatus));
  const saveLimit = (event: SubmitEvent) => {
    event.preventDefault();
    const raw = String(new FormData(event.currentTarget as HTMLFormElement).get('perMin') ?? '').trim();
    void act(async () => dataOf((await operatorRequest(SET_RATE_LIMIT, { id, perMin: raw === '' ? null : Number(raw) })).adminSetMerchantRateLimit))();
  };
  const saveCountries = (event: SubmitEvent) => {
    event.preventDefault();
    const raw = String(new FormData(event.currentTarget as HTMLFormElement).get('countries') ?? '');
    const countries = raw.split(/[\s,]+/).map((c) => c.trim()).filter((c) => c !== '');
    void act(async () => dataOf((await operatorRequest(SET_COUNTRIES, { id, countries: countries.length === 0 ? null : countries })).adminSetNotificationCountries))();
  };

  return (
    <>
      <h1 id="merchant-name">{m.name}</h1>
      <section class="card">
        <dl class="facts">
          <dt>ID</dt><dd><code>{m.id}</code></dd>
          <dt>{t.status}</dt><dd><StatusBadge status={m.status} id="merchant-status" /></dd>
          <dt>{t.address}</dt><dd>{m.address ?? '—'}</dd>
          <dt>{t.platform}</dt><dd>{m.integrationPlatform ?? '—'}</dd>
          <dt>{t.since}</dt><dd>{dateTime(m.createdAt, app.lang)}</dd>
        </dl>
        {manage && (
          <div class="actions">
            {m.status === 'in_review' && <button type="button" id="merchant-approve" onClick={() => void setStatus('active')()}>{t.approve}</button>}
            {m.status === 'suspended' && <button type="button" id="merchant-activate" onClick={() => void setStatus('active')()}>{t.activate}</button>}
            {m.status !== 'suspended' && <button type="button" id="merchant-suspend" class="danger" onClick={() => void setStatus('suspended')()}>{t.suspend}</button>}
          </div>
        )}
        <ErrorNote error={error} id="merchant-error" />
      </section>
      {manage && <InviteMember merchantId={m.id} name={m.name} />}
      <section class="card" aria-labelledby="rate-title">
        <h2 id="rate-title">{t.rateLimit}</h2>
        <form id="rate-limit" class="filters" onSubmit={saveLimit}>
          <label>{t.perMin}<input name="perMin" type="number" min={1} defaultValue={String(m.rateLimitPerMin)} disabled={!manage} aria-describedby="per-min-hint" /></label>
          {manage && <button type="submit">{t.save}</button>}
        </form>
        <small id="per-min-hint">{t.perMinHint}</small>
      </section>
      <section class="card" aria-labelledby="countries-title">
        <h2 id="countries-title">{t.countries}</h2>
        <form id="notification-countries" class="filters" onSubmit={saveCountries}>
          <label>{t.countriesLabel}<input name="countries" defaultValue={m.notificationCountries.join(', ')} key={m.notificationCountries.join(',')} disabled={!manage} aria-describedby="countries-hint" /></label>
          {manage && <button type="submit">{t.saveCountries}</button>}
        </form>
        <small id="countries-hint">{t.countriesHint}</small>
      </section>
      <section class="card" aria-labelledby="integrations-title">
        <h2 id="integrations-title">{t.integrations}</h2>
        {INTEGRATIONS.map((name) => {
          const rows = loaded.data!.adminIntegrationTelemetry.filter((r) => r.integration === name);
          return (
            <div key={name} id={`integration-${name}`} class="integration">
              <h3>{t[name]} <StatusBadge status={m.integrations[name]} id={`integration-${name}-status`} /></h3>
              {rows.length === 0 ? <p class="note">{t.noTelemetry}</p> : (
                <div class="table-wrap">
                  <table>
                    <thead><tr><th>{t.site}</th><th>{t.mode}</th><th>{t.version}</th><th class="num">{t.calls}</th><th>{t.first}</th><th>{t.last}</th></tr></thead>
                    <tbody>
                      {rows.map((r) => (
                        <tr key={`${r.mode}:${r.site}`}>
                          <td class="wrap" data-label={t.site}>{r.site ?? '—'}</td><td data-label={t.mode}>{r.mode}</td><td class="wrap" data-label={t.version}>{r.pluginVersion ?? r.userAgent ?? '—'}</td>
                          <td class="num" data-label={t.calls}>{r.callCount}</td><td data-label={t.first}>{dateTime(r.firstSeenAt, app.lang)}</td><td data-label={t.last}>{dateTime(r.lastSeenAt, app.lang)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )}
              {manage && (
                <div class="actions">
                  {m.integrations[name] !== 'approved' && <button type="button" id={`integration-${name}-approve`} onClick={() => void setIntegration(name, 'approved')()}>{t.approveIntegration}</button>}
                  {m.integrations[name] !== 'rejected' && <button type="button" id={`integration-${name}-reject`} class="danger" onClick={() => void setIntegration(name, 'rejected')()}>{t.reject}</button>}
                </div>
              )}
            </div>
          );
        })}
      </section>
      <FailingWebhooks merchantId={m.id} heading="h2" />
      <History targetType="merchant" targetId={m.id} version={version} />
    </>
  );
}
