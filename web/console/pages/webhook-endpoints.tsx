import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { dateTime } from '../../shared/format.js';
import { graphql, type ResultOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ConfirmButton } from '../../shared/ui/confirm-button.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useFieldErrors } from '../../shared/ui/field-errors.js';
import { EVENT_LABELS, WEBHOOK_EVENTS, type WebhookEvent } from '../ui/webhook-labels.js';
import '../ui/manage.css';

export const ENDPOINTS = graphql(`query ConsoleWebhookEndpoints { webhookEndpoints { id url description events enabled disabledReason failingSince createdAt } }`);
const CREATE = graphql(`mutation ConsoleCreateWebhookEndpoint($input: WebhookEndpointInput!, $key: String) { createWebhookEndpoint(input: $input, idempotencyKey: $key) {
  __typename ... on MutationCreateWebhookEndpointSuccess { data { id } } ... on AppError { code message fields { field message } } } }`);
const UPDATE = graphql(`mutation ConsoleUpdateWebhookEndpoint($id: ID!, $input: WebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) {
  __typename ... on MutationUpdateWebhookEndpointSuccess { data { id } } ... on AppError { code message fields { field message } } } }`);
const DELETE = graphql(`mutation ConsoleDeleteWebhookEndpoint($id: ID!) { deleteWebhookEndpoint(id: $id) {
  __typename ... on MutationDeleteWebhookEndpointSuccess { data } ... on AppError { code message } } }`);

export type Endpoint = ResultOf<typeof ENDPOINTS>['webhookEndpoints'][number];

const S: Strings<'title' | 'url' | 'description' | 'events' | 'enabled' | 'yes' | 'no' | 'created' | 'actions' | 'edit' | 'delete' | 'deleteQuestion' | 'none' | 'newTitle' | 'editTitle' | 'create' | 'save' | 'cancel' | 'failingSince' | 'ownerNote'> = {
  es: { title: 'Destinos de webhooks', url: 'URL', description: 'Descripción', events: 'Eventos', enabled: 'Activo', yes: 'Sí', no: 'No', created: 'Creado', actions: 'Acciones', edit: 'Editar', delete: 'Eliminar', deleteQuestion: '¿Eliminar este destino?', none: 'No hay destinos.', newTitle: 'Nuevo destino', editTitle: 'Editar destino', create: 'Crear destino', save: 'Guardar cambios', cancel: 'Cancelar', failingSince: 'Fallando desde', ownerNote: 'Solo el dueño crea, cambia o elimina destinos.' },
  en: { title: 'Webhook endpoints', url: 'URL', description: 'Description', events: 'Events', enabled: 'Enabled', yes: 'Yes', no: 'No', created: 'Created', actions: 'Actions', edit: 'Edit', delete: 'Delete', deleteQuestion: 'Delete this endpoint?', none: 'No endpoints.', newTitle: 'New endpoint', editTitle: 'Edit endpoint', create: 'Create endpoint', save: 'Save changes', cancel: 'Cancel', failingSince: 'Failing since', ownerNote: 'Only the owner creates, changes or deletes endpoints.' },
};

/**
 * The endpoints and their form. Owner only: the form and the row buttons are hidden (not left
 * out) for other roles, so a forced submit still reaches the API and its refusal is shown.
 */
export function WebhookEndpoints({ endpoints, onChanged }: { endpoints: Endpoint[]; onChanged: () => void }) {
  const app = useApp();
  const t = useStrings(S);
  const owner = app.me?.role === 'owner';
  const [editing, setEditing] = useState<Endpoint | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [key, setKey] = useState(() => crypto.randomUUID());
  const f = useFieldErrors(error, 'endpoint', { url: 'url', description: 'description', events: 'events' });

  const run = async (action: () => Promise<unknown>) => {
    setError(null);
    try {
      await action();
      onChanged();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    }
  };
  const onSubmit = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const description = String(data.get('description') ?? '').trim();
    const input = {
      url: String(data.get('url') ?? '').trim(),
      description: description || null,
      events: data.getAll('events').map(String) as WebhookEvent[],
      enabled: data.get('enabled') === 'on',
    };
    const done = await run(async () => (editing
      ? dataOf((await request(UPDATE, { id: editing.id, input }, app.mode)).updateWebhookEndpoint)
      : dataOf((await request(CREATE, { input, key }, app.mode)).createWebhookEndpoint)));
    if (done) {
      form.reset();
      setEditing(null);
      setKey(crypto.randomUUID());
    }
  };

  return (
    <section class="card" aria-labelledby="endpoints-title" id="endpoints-section">
      <h2 id="endpoints-title">{t.title}</h2>
      {endpoints.length === 0 ? <p id="endpoints-empty">{t.none}</p> : (
        <div class="table-wrap">
          <table id="endpoints">
            <thead><tr><th scope="col">{t.url}</th><th scope="col">{t.description}</th><th scope="col">{t.events}</th><th scope="col">{t.enabled}</th><th scope="col">{t.created}</th>{owner && <th scope="col">{t.actions}</th>}</tr></thead>
            <tbody>
              {endpoints.map((e) => (
                <tr key={e.id} data-endpoint-id={e.id} data-enabled={String(e.enabled)}>
                  <td class="wrap mono" data-label={t.url}>{e.url}</td>
                  <td data-label={t.description}>{e.description ?? '—'}</td>
                  <td class="wrap" data-label={t.events}>{e.events.map((ev) => EVENT_LABELS[app.lang][ev]).join(', ')}</td>
                  <td data-label={t.enabled}>{e.enabled ? t.yes : t.no}{e.disabledReason ? ` · ${e.disabledReason}` : ''}{e.failingSince ? ` · ${t.failingSince} ${dateTime(e.failingSince, app.lang)}` : ''}</td>
                  <td data-label={t.created}>{dateTime(e.createdAt, app.lang)}</td>
                  {owner && (
                    <td data-label={t.actions}><div class="row-actions">
                      <button type="button" class="secondary" aria-label={`${t.edit}: ${e.url}`} onClick={() => { setEditing(e); setError(null); }}>{t.edit}</button>
                      <ConfirmButton id={`delete-${e.id}`} label={t.delete} question={t.deleteQuestion} danger onConfirm={() => void run(async () => dataOf((await request(DELETE, { id: e.id }, app.mode)).deleteWebhookEndpoint))} />
                    </div></td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {!owner && <p class="note">{t.ownerNote}</p>}
      <form id="endpoint-form" key={editing?.id ?? 'new'} hidden={!owner} onSubmit={(e) => { e.preventDefault(); void onSubmit(e.currentTarget); }}>
        <h3 id="endpoint-form-title">{editing ? t.editTitle : t.newTitle}</h3>
        <label>{t.url}<input name="url" type="url" required maxLength={2000} defaultValue={editing?.url ?? ''} placeholder="https://tienda.cl/webhooks/express" autocomplete="off" {...f.input('url')} /></label>
        {f.reason('url')}
        <label>{t.description}<input name="description" maxLength={200} defaultValue={editing?.description ?? ''} autocomplete="off" {...f.input('description')} /></label>
        {f.reason('description')}
        <fieldset class="checks">
          <legend>{t.events}</legend>
          {WEBHOOK_EVENTS.map((ev) => (
            <label key={ev}><input type="checkbox" name="events" value={ev} defaultChecked={editing ? editing.events.includes(ev) : ev === 'ORDER_STATUS_CHANGED'} />{EVENT_LABELS[app.lang][ev]}</label>
          ))}
          {f.reason('events')}
        </fieldset>
        <label class="check"><input type="checkbox" name="enabled" defaultChecked={editing?.enabled ?? true} />{t.enabled}</label>
        <div class="actions">
          <button type="submit" id="endpoint-submit">{editing ? t.save : t.create}</button>
          {editing && <button type="button" class="secondary" onClick={() => setEditing(null)}>{t.cancel}</button>}
        </div>
      </form>
      <ErrorNote error={error} shown={f.shown} />
    </section>
  );
}
