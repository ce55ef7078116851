import { useState } from 'preact/hooks';
import { operatorRequest } from '../../shared/api/http.js';
import { graphql, type ResultOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { Link, navigate, type PageProps } from '../router.js';
import { StatusBadge } from '../ui/words.js';

const MERCHANTS = graphql(`query OpsMerchants($after: ID, $search: String) { adminMerchants(limit: 200, after: $after, search: $search) {
  id name status address createdAt integrations { plugin storefront erp } } }`);
type Merchant = ResultOf<typeof MERCHANTS>['adminMerchants'][number];

const STRINGS: Strings<'title' | 'search' | 'searchHint' | 'name' | 'status' | 'plugin' | 'empty' | 'more' | 'loading'> = {
  es: { title: 'Comercios', search: 'Buscar', searchHint: 'Inicio del nombre o del ID (m_…): un ID completo abre el comercio.', name: 'Nombre', status: 'Estado', plugin: 'Plugin', empty: 'Ningún comercio coincide.', more: 'Cargar más', loading: 'Cargando…' },
  en: { title: 'Merchants', search: 'Search', searchHint: 'Start of the name or ID (m_…): a whole ID opens the merchant.', name: 'Name', status: 'Status', plugin: 'Plugin', empty: 'No merchant matches.', more: 'Load more', loading: 'Loading…' },
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
  const first = useLoad(async () => (await operatorRequest(MERCHANTS, needle ? { search: needle } : {})).adminMerchants, [needle]);
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
      {(!needle && first.data?.length === 200 && (extra.merchants.length === 0 || extra.merchants.length % 200 === 0)) && <div class="pager"><button type="button" onClick={() => void more()}>{t.more}</button></div>}
    </>
  );
}
