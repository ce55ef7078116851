import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { blockReasonText, notificationErrorText } from '../../shared/catalog.js';
import { request } from '../../shared/api/http.js';
import { dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { useApp } from '../app-state.js';
import { Link, type PageProps } from '../router.js';
import '../ui/manage.css';
import './notifications.css';

const PAGE_SIZE = 20;
const CHANNELS = ['sms', 'whatsapp', 'email'] as const;
const MOMENTS = ['created', 'courier_assigned', 'on_the_way', 'delivered', 'failed'] as const;
type Channel = (typeof CHANNELS)[number];
type Moment = (typeof MOMENTS)[number];

const SETTINGS = graphql(`query ConsoleNotificationSettings { notificationSettings { __typename
  ... on QueryNotificationSettingsSuccess { data { channels moments configuredChannels allowedCountries } } ... on AppError { code message } } }`);
const UPDATE = graphql(`mutation ConsoleUpdateNotificationSettings($input: NotificationSettingsInput!) { updateNotificationSettings(input: $input) { __typename
  ... on MutationUpdateNotificationSettingsSuccess { data { channels moments configuredChannels allowedCountries } } ... on AppError { code message } } }`);
const OUTBOX = graphql(`query ConsoleNotifications($first: Int, $after: String) { notifications(first: $first, after: $after) { __typename
  ... on QueryNotificationsSuccess { data { nodes { id orderId moment channel to subject body status blockReason attempts lastError lastErrorCode createdAt } nextCursor } }
  ... on AppError { code message } } }`);

const LABELS: Record<'es' | 'en', Record<Channel | Moment | 'pending' | 'sent' | 'failed_status' | 'sandboxed' | 'blocked' | 'blockedBecause' | 'wouldBlock', string>> = {
  es: {
    sms: 'SMS', whatsapp: 'WhatsApp', email: 'Correo', created: 'Pedido creado', courier_assigned: 'Repartidor asignado', on_the_way: 'En camino',
    delivered: 'Entregado', failed: 'No entregado o cancelado', pending: 'Pendiente', sent: 'Enviado', failed_status: 'Fallido', sandboxed: 'Prueba (no enviado)',
    blocked: 'Bloqueado (no enviado)', blockedBecause: 'No se envió porque', wouldBlock: 'En modo real no se enviaría porque',
  },
  en: {
    sms: 'SMS', whatsapp: 'WhatsApp', email: 'Email', created: 'Order created', courier_assigned: 'Courier assigned', on_the_way: 'On the way',
    delivered: 'Delivered', failed: 'Not delivered or cancelled', pending: 'Pending', sent: 'Sent', failed_status: 'Failed', sandboxed: 'Test (not sent)',
    blocked: 'Blocked (not sent)', blockedBecause: 'Not sent because', wouldBlock: 'In live mode it would not be sent because',
  },
};
const statusLabel = (lang: 'es' | 'en', status: string) => LABELS[lang][(status === 'failed' ? 'failed_status' : status) as keyof (typeof LABELS)['es']] ?? status;

const S: Strings<'title' | 'intro' | 'settings' | 'channels' | 'moments' | 'notConfigured' | 'save' | 'saved' | 'ownerNote' | 'outbox' | 'sandboxNote' | 'liveNote' | 'created' | 'order' | 'moment' | 'channel' | 'to' | 'message' | 'status' | 'empty' | 'next' | 'previous' | 'refresh' | 'countries'> = {
  es: {
    title: 'Avisos al destinatario', intro: 'Mensajes en español con el enlace de seguimiento, por los canales y en los momentos que elijas (los mismos en ambos modos).',
    settings: 'Qué avisar', channels: 'Canales', moments: 'Momentos', notConfigured: 'sin proveedor en este servidor: en modo real fallará', save: 'Guardar avisos', saved: 'Avisos guardados.',
    ownerNote: 'Solo el dueño cambia los avisos.', outbox: 'Bandeja de salida', sandboxNote: 'Modo prueba: los mensajes quedan aquí y nunca se envían.', liveNote: 'Modo real: mensajes enviados o por enviar.',
    created: 'Creado', order: 'Pedido', moment: 'Momento', channel: 'Canal', to: 'Para', message: 'Mensaje', status: 'Estado', empty: 'Aún no hay mensajes.',
    next: 'Siguiente', previous: 'Anterior', refresh: 'Actualizar',
    countries: 'SMS y WhatsApp reales solo llegan a números de estos países (códigos); para agregar otro, escribe a soporte:',
  },
  en: {
    title: 'Recipient notifications', intro: 'Messages in Spanish with the tracking link, on the channels and at the moments you choose (the same in both modes).',
    settings: 'What to notify', channels: 'Channels', moments: 'Moments', notConfigured: 'no provider on this server: fails in live mode', save: 'Save notifications', saved: 'Notifications saved.',
    ownerNote: 'Only the owner changes notifications.', outbox: 'Outbox', sandboxNote: 'Test mode: messages stay here and are never sent.', liveNote: 'Live mode: messages sent or to be sent.',
    created: 'Created', order: 'Order', moment: 'Moment', channel: 'Channel', to: 'To', message: 'Message', status: 'Status', empty: 'No messages yet.',
    next: 'Next', previous: 'Previous', refresh: 'Refresh',
    countries: 'Live SMS and WhatsApp only reach numbers in these countries (calling codes); to add another, write to support:',
  },
};

/** Settings (channels and moments; the owner changes them) and the outbox of the mode, newest first (test mode: the sandbox outbox). */
export function NotificationsPage(_props: PageProps) {
  const app = useApp();
  const { lang } = app;
  const t = useStrings(S);
  const owner = app.me?.role === 'owner';
  const settings = useLoad(async (mode) => dataOf((await request(SETTINGS, {}, mode)).notificationSettings), []);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const outbox = useLoad(async (mode) => dataOf((await request(OUTBOX, { first: PAGE_SIZE, after }, mode)).notifications), [after]);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const s = settings.data;

  const onSubmit = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const input = { channels: CHANNELS.filter((c) => data.get(`channel-${c}`) === 'on'), moments: MOMENTS.filter((m) => data.get(`moment-${m}`) === 'on') };
    setError(null);
    setSaved(false);
    try {
      settings.setData(dataOf((await request(UPDATE, { input }, app.mode)).updateNotificationSettings));
      setSaved(true);
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="notifications-title">
      <h1 id="notifications-title">{t.title}</h1>
      <p>{t.intro}</p>
      <ErrorNote error={settings.error} />
      {s && (
        <form id="notification-settings" class="card" key={JSON.stringify(s)} onSubmit={(e) => { e.preventDefault(); void onSubmit(e.currentTarget); }}>
          <h2>{t.settings}</h2>
          <fieldset disabled={!owner}>
            <legend>{t.channels}</legend>
            {CHANNELS.map((c) => (
              <label class="check" key={c}>
                <input type="checkbox" name={`channel-${c}`} defaultChecked={s.channels.includes(c)} />
                {LABELS[lang][c]}{!s.configuredChannels.includes(c) && <small> ({t.notConfigured})</small>}
              </label>
            ))}
          </fieldset>
          <p class="note" id="notification-countries">{t.countries} {s.allowedCountries.map((c) => `+${c}`).join(', ')}</p>
          <fieldset disabled={!owner}>
            <legend>{t.moments}</legend>
            {MOMENTS.map((m) => (
              <label class="check" key={m}><input type="checkbox" name={`moment-${m}`} defaultChecked={s.moments.includes(m)} />{LABELS[lang][m]}</label>
            ))}
          </fieldset>
          {owner ? (
            <div class="actions">
              <button type="submit" id="notification-settings-save">{t.save}</button>
              <span aria-live="polite" id="notification-settings-saved">{saved ? t.saved : ''}</span>
            </div>
          ) : <p class="note">{t.ownerNote}</p>}
          <ErrorNote error={error} />
        </form>
      )}
      <section class="card" aria-labelledby="outbox-title">
        <div class="section-head">
          <h2 id="outbox-title">{t.outbox}</h2>
          <button type="button" class="secondary" id="outbox-refresh" onClick={outbox.reload}>{t.refresh}</button>
        </div>
        <p class="note" id="outbox-mode">{app.mode === 'test' ? t.sandboxNote : t.liveNote}</p>
        <ErrorNote error={outbox.error} />
        {outbox.data && (outbox.data.nodes.length === 0 ? <p id="outbox-empty">{t.empty}</p> : (
          <ul id="outbox" class="outbox" aria-busy={outbox.loading}>
            {outbox.data.nodes.map((n) => (
              <li key={n.id} class="card outbox-item" data-notification-id={n.id} data-status={n.status} data-channel={n.channel} data-moment={n.moment}>
                <p>
                  <span class={`badge ${n.status}`}>{statusLabel(lang, n.status)}</span>{' '}
                  <strong>{LABELS[lang][n.moment]}</strong> · {LABELS[lang][n.channel]} · {dateTime(n.createdAt, lang)}
                </p>
                <p>{t.order}: <Link href={`/console/orders/${encodeURIComponent(n.orderId)}`}>{n.orderId}</Link> · {t.to}: <span class="recipient">{n.to}</span></p>
                {n.subject && <p><strong>{n.subject}</strong></p>}
                <p class="message" lang="es-CL">{n.body}</p>
                {n.blockReason && (
                  <p class="note block-reason" data-reason={n.blockReason}>
                    {n.status === 'sandboxed' ? LABELS[lang].wouldBlock : LABELS[lang].blockedBecause} {blockReasonText(n.blockReason, lang)}.
                  </p>
                )}
                {n.lastError && <p class="note last-error" data-code={n.lastErrorCode ?? undefined}>{notificationErrorText(n, lang)}</p>}
              </li>
            ))}
          </ul>
        ))}
        <div class="pager">
          <button type="button" id="outbox-previous" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>{t.previous}</button>
          <button type="button" id="outbox-next" disabled={!outbox.data?.nextCursor} onClick={() => setCursors([...cursors, outbox.data!.nextCursor!])}>{t.next}</button>
        </div>
      </section>
    </section>
  );
}
