import { operatorRequest } from '../../shared/api/http.js';
import { dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { useApp } from '../app-state.js';
import { Link, type PageProps } from '../router.js';

const FAILING = graphql(`query OpsFailingWebhooks($merchantId: ID) { adminFailingWebhookEndpoints(merchantId: $merchantId) {
  id merchantId merchantName mode url enabled failingSince disabledReason } }`);

const STRINGS: Strings<'title' | 'merchant' | 'url' | 'mode' | 'since' | 'state' | 'failing' | 'disabled' | 'none' | 'loading'> = {
  es: { title: 'Webhooks con fallas', merchant: 'Comercio', url: 'URL', mode: 'Modo', since: 'Fallando desde', state: 'Estado', failing: 'Fallando', disabled: 'Desactivado', none: 'Ningún webhook con fallas.', loading: 'Cargando…' },
  en: { title: 'Failing webhooks', merchant: 'Merchant', url: 'URL', mode: 'Mode', since: 'Failing since', state: 'State', failing: 'Failing', disabled: 'Disabled', none: 'No failing webhook.', loading: 'Loading…' },
};

/** Endpoints failing or disabled with a reason: every merchant's, or one merchant's (on its page, without the merchant column). */
export function FailingWebhooks({ merchantId, heading }: { merchantId?: string; heading: 'h1' | 'h2' }) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const loaded = useLoad(async () => (await operatorRequest(FAILING, merchantId ? { merchantId } : {})).adminFailingWebhookEndpoints, [merchantId]);
  const Heading = heading;
  const rows = loaded.data ?? [];
  return (
    <section id="failing-webhooks" aria-labelledby="failing-webhooks-title">
      <Heading id="failing-webhooks-title">{t.title}</Heading>
      <ErrorNote error={loaded.error} />
      {loaded.loading && !loaded.data ? <p aria-busy="true">{t.loading}</p> : rows.length === 0 ? <p class="note" id="failing-webhooks-none">{t.none}</p> : (
        <div class="table-wrap card">
          <table>
            <thead><tr>{!merchantId && <th>{t.merchant}</th>}<th>{t.url}</th><th>{t.mode}</th><th>{t.state}</th><th>{t.since}</th></tr></thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id} data-endpoint={e.id}>
                  {!merchantId && <td data-label={t.merchant}><Link href={`/ops/merchants/${e.merchantId}`}>{e.merchantName ?? e.merchantId}</Link></td>}
                  <td class="wrap" data-label={t.url}><code>{e.url}</code></td>
                  <td data-label={t.mode}>{e.mode}</td>
                  <td class="wrap" data-label={t.state}>{e.enabled ? t.failing : `${t.disabled}${e.disabledReason ? `: ${e.disabledReason}` : ''}`}</td>
                  <td data-label={t.since}>{e.failingSince ? dateTime(e.failingSince, app.lang) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function WebhooksPage(_props: PageProps) {
  return <FailingWebhooks heading="h1" />;
}
