import { request } from '../../shared/api/http.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import type { PageProps } from '../router.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import { ENDPOINTS, WebhookEndpoints } from './webhook-endpoints.js';
import { RedeliverFailedRange } from './webhook-redeliver-range.js';

const S: Strings<'title' | 'signing'> = {
  es: { title: 'Webhooks', signing: 'El secreto de firma se rota en Claves API.' },
  en: { title: 'Webhooks', signing: 'The signing secret is rotated on API keys.' },
};

/** Endpoints, the delivery log and the failed-range redelivery, in the current mode. */
export function WebhooksPage(_props: PageProps) {
  const t = useStrings(S);
  const endpoints = useLoad(async (mode) => (await request(ENDPOINTS, {}, mode)).webhookEndpoints, []);
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">{t.title}</h1>
      <p class="note">{t.signing}</p>
      <ErrorNote error={endpoints.error} />
      {endpoints.data && (
        <>
          <WebhookEndpoints endpoints={endpoints.data} onChanged={endpoints.reload} />
          <WebhookDeliveries endpoints={endpoints.data} />
          <RedeliverFailedRange />
        </>
      )}
    </section>
  );
}
