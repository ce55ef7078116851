import { useState } from 'preact/hooks';
import { operatorRequest } from '../../shared/api/http.js';
import { graphql, type ResultOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { dataOf } from '../../shared/api/errors.js';
import { may, useApp } from '../app-state.js';
import { Link, navigate, type PageProps } from '../router.js';
import { ShareLink } from '../ui/share-link.js';
import { StatusBadge } from '../ui/words.js';

const MERCHANTS = graphql(`query OpsMerchants($after: ID, $search: String) { adminMerchants(limit: 200, after: $after, search: $search) {
  id name status address createdAt integrations { plugin storefront erp } } }`);
type Merchant = ResultOf<typeof MERCHANTS>['adminMerchants'][number];
const CREATE = graphql(`mutation OpsCreateMerchant($name: String!, $address: String) { adminCreateMerchant(name: $name, address: $address) {
  __typename ... on MutationAdminCreateMerchantSuccess { data { merchantId } } ... on AppError { code message } } }`);
export const INVITE_MEMBER = graphql(`mutation OpsInviteMember($merchantId: ID!, $email: String!, $role: MemberRole!) { adminInviteMember(merchantId: $merchantId, email: $email, role: $role) {
  __typename ... on MutationAdminInviteMemberSuccess { data { setPasswordUrl expiresAt member { email } } } ... on AppError { code message } } }`);

const STRINGS: Strings<'title' | 'search' | 'searchHint' | 'name' | 'status' | 'plugin' | 'empty' | 'more' | 'loading' | 'create' | 'address' | 'ownerEmail' | 'ownerHint' | 'add' | 'invitation' | 'open'> = {
  es: { title: 'Comercios', search: 'Buscar', searchHint: 'Inicio del nombre o del ID (m_…): un ID completo abre el comercio.', name: 'Nombre', status: 'Estado', plugin: 'Plugin', empty: 'Ningún comercio coincide.', more: 'Cargar más', loading: 'Cargando…', create: 'Nuevo comercio', address: 'Dirección de retiro (opcional)', ownerEmail: 'Correo del dueño', ownerHint: 'Recibe un enlace para elegir su contraseña y entrar a la consola, donde crea sus claves de API.', add: 'Crear comercio e invitar al dueño', invitation: 'Invitación del dueño', open: 'Abrir el comercio' },
  en: { title: 'Merchants', search: 'Search', searchHint: 'Start of the name or ID (m_…): a whole ID opens the merchant.', name: 'Name', status: 'Status', plugin: 'Plugin', empty: 'No merchant matches.', more: 'Load more', loading: 'Loading…', create: 'New merchant', address: 'Pickup address (optional)', ownerEmail: "Owner's e-mail", ownerHint: 'They get a link to choose a password and enter the console, where they create their API keys.', add: 'Create the merchant and invite its owner', invitation: "The owner's invitation", open: 'Open the merchant' },
};

/**
 * The merchants, 200 a page in id order; a search asks the API (name or id prefix, up to 200
 * matches, no paging), and a whole merchant id goes straight to its page.
 */
export function MerchantsPage(_props: PageProps) {
  const t = useStrings(STRINGS);
  const [query, setQuery] = useState('');
  const [extra, setExtra] = useState<{ merchants: Merchant[]; error: unknown }>({ merchants: [], error: null });
  const needle = query.trim();
  const [created, setCreated] = useState<{ merchantId: string; name: string; email: string; link: string } | null>(null);
  const [createError, setCreateError] = useState<unknown>(null);
  const app = useApp();
  const first = useLoad(async () => (await operatorRequest(MERCHANTS, needle ? { search: needle } : {})).adminMerchants, [needle, created?.merchantId]);
  /** A merchant and its owner's invitation, one form (issue #38): the owner takes it from there in the console. */
  const onCreate = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    try {
      const { merchantId } = dataOf((await operatorRequest(CREATE, { name: text('name'), ...(text('address') && { address: text('address') }) })).adminCreateMerchant);
      const invitation = dataOf((await operatorRequest(INVITE_MEMBER, { merchantId, email: text('email'), role: 'owner' })).adminInviteMember);
      setCreated({ merchantId, name: text('name'), email: invitation.member.email, link: invitation.setPasswordUrl });
      setCreateError(null);
      form.reset();
    } catch (failure) {
      setCreateError(failure);
    }
  };
  const shown = needle ? (first.data ?? []) : [...(first.data ?? []), ...extra.merchants];
  const more = async () => {
    try {
      const page = (await operatorRequest(MERCHANTS, { after: shown.at(-1)!.id })).adminMerchants;
      setExtra({ merchants: [...extra.merchants, ...page], error: null });
    } catch (error) {
      setExtra({ ...extra, error });
    }
  };
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    if (/^m_[0-9A-Z]{26}$/.test(query.trim())) navigate(`/ops/merchants/${query.trim()}`);
  };

  return (
    <>
      <h1>{t.title}</h1>
      <form class="filters" role="search" onSubmit={onSubmit}>
        <label>{t.search}<input id="merchant-search" type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} aria-describedby="search-hint" /></label>
        <small id="search-hint">{t.searchHint}</small>
      </form>
      <ErrorNote error={first.error ?? extra.error} />
      {first.loading && !first.data ? <p aria-busy="true">{t.loading}</p> : shown.length === 0 ? <p id="merchants-empty">{t.empty}</p> : (
        <div class="table-wrap card">
          <table id="merchants">
            <thead><tr><th>{t.name}</th><th>ID</th><th>{t.status}</th><th>{t.plugin}</th></tr></thead>
            <tbody>
              {shown.map((m) => (
                <tr key={m.id} data-merchant={m.id}>
                  <td data-label={t.name}><Link href={`/ops/merchants/${m.id}`}>{m.name}</Link></td>
                  <td data-label="ID"><code>{m.id}</code></td>
                  <td data-label={t.status}><StatusBadge status={m.status} /></td>
                  <td data-label={t.plugin}><StatusBadge status={m.integrations.plugin} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {created && (
        <>
          <ShareLink id="owner-invitation" kind="owner" label={`${t.invitation} · ${created.name}`} link={created.link} name={created.name} email={created.email} />
          <p><Link href={`/ops/merchants/${created.merchantId}`}>{t.open}</Link></p>
        </>
      )}
      {may(app.me, 'manage') && (
        <section class="card" aria-labelledby="create-merchant-title">
          <h2 id="create-merchant-title">{t.create}</h2>
          <form id="create-merchant" onSubmit={(e) => void onCreate(e)}>
            <label>{t.name}<input name="name" required maxLength={120} autocomplete="off" /></label>
            <label>{t.address}<input name="address" autocomplete="off" /></label>
            <label>{t.ownerEmail}<input name="email" type="email" required autocomplete="off" aria-describedby="owner-hint" /></label>
            <small id="owner-hint">{t.ownerHint}</small>
            <ErrorNote error={createError} id="create-merchant-error" />
            <div class="actions"><button type="submit">{t.add}</button></div>
          </form>
        </section>
      )}
      {(!needle && first.data?.length === 200 && (extra.merchants.length === 0 || extra.merchants.length % 200 === 0)) && <div class="pager"><button type="button" onClick={() => void more()}>{t.more}</button></div>}
    </>
  );
}
