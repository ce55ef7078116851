import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request, type Mode } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import type { PageProps } from '../router.js';
import { ConfirmButton } from '../../shared/ui/confirm-button.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { OneTimeSecret } from '../../shared/ui/one-time-secret.js';
import '../ui/manage.css';

const API_KEYS = graphql(`query ConsoleApiKeys { apiKeys { id mode prefix status createdAt revokedAt } }`);
const ROTATE_KEY = graphql(`mutation ConsoleRotateApiKey($mode: Mode!) { rotateApiKey(mode: $mode) {
  __typename ... on MutationRotateApiKeySuccess { data { mode apiKey revoked } } ... on AppError { code message } } }`);
const REVOKE_KEYS = graphql(`mutation ConsoleRevokeApiKeys($mode: Mode!) { revokeApiKeys(mode: $mode) {
  __typename ... on MutationRevokeApiKeysSuccess { data } ... on AppError { code message } } }`);
const ROTATE_SECRET = graphql(`mutation ConsoleRotateApiSecret($hours: Float) { rotateApiSecret(overlapHours: $hours) {
  __typename ... on MutationRotateApiSecretSuccess { data { apiSecret previousExpiresAt } } ... on AppError { code message } } }`);

const S: Strings<'title' | 'keys' | 'mode' | 'prefix' | 'status' | 'created' | 'revokedAt' | 'active' | 'revoked' | 'test' | 'live' | 'rotate' | 'rotateQuestion' | 'revoke' | 'revokeQuestion' | 'newKey' | 'revokedCount' | 'ownerNote' | 'secretTitle' | 'secretHelp' | 'overlap' | 'rotateSecret' | 'rotateSecretQuestion' | 'newSecret' | 'previousUntil' | 'keysHelp'> = {
  es: {
    title: 'Claves API', keys: 'Claves de ambos modos', mode: 'Modo', prefix: 'Prefijo', status: 'Estado', created: 'Creada', revokedAt: 'Revocada', active: 'activa', revoked: 'revocada', test: 'Prueba', live: 'Real',
    rotate: 'Rotar clave', rotateQuestion: 'La clave actual de este modo dejará de funcionar de inmediato. ¿Rotar?', revoke: 'Revocar claves', revokeQuestion: 'Las claves de este modo dejarán de funcionar de inmediato. ¿Revocar?',
    newKey: 'Nueva clave', revokedCount: 'Claves revocadas:', ownerNote: 'Solo el dueño rota o revoca claves y el secreto de firma.',
    secretTitle: 'Secreto de firma de webhooks', secretHelp: 'Firma los webhooks (Standard Webhooks). El secreto anterior sigue firmando durante el traslape.', overlap: 'Traslape (horas, 0 a 168)',
    rotateSecret: 'Rotar secreto', rotateSecretQuestion: '¿Rotar el secreto de firma?', newSecret: 'Nuevo secreto de firma', previousUntil: 'El secreto anterior firma hasta',
    keysHelp: 'Solo se muestran prefijos: una clave completa se ve una vez, al rotarla.',
  },
  en: {
    title: 'API keys', keys: 'Keys of both modes', mode: 'Mode', prefix: 'Prefix', status: 'Status', created: 'Created', revokedAt: 'Revoked', active: 'active', revoked: 'revoked', test: 'Test', live: 'Live',
    rotate: 'Rotate key', rotateQuestion: "This mode's current key stops working at once. Rotate?", revoke: 'Revoke keys', revokeQuestion: "This mode's keys stop working at once. Revoke?",
    newKey: 'New key', revokedCount: 'Keys revoked:', ownerNote: 'Only the owner rotates or revokes keys and the signing secret.',
    secretTitle: 'Webhook signing secret', secretHelp: 'Signs webhooks (Standard Webhooks). The previous secret keeps signing during the overlap.', overlap: 'Overlap (hours, 0 to 168)',
    rotateSecret: 'Rotate secret', rotateSecretQuestion: 'Rotate the signing secret?', newSecret: 'New signing secret', previousUntil: 'The previous secret signs until',
    keysHelp: 'Only prefixes are shown: a full key is seen once, when it is rotated.',
  },
};

const MODES: Mode[] = ['test', 'live'];

/** Both modes' keys (prefixes only); owner: rotate (new key shown once), revoke, rotate the signing secret. Hidden for others. */
export function ApiKeysPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(S);
  const owner = app.me?.role === 'owner';
  const keys = useLoad(async (mode) => (await request(API_KEYS, {}, mode)).apiKeys, []);
  const [fresh, setFresh] = useState<{ mode: Mode; apiKey: string } | null>(null);
  const [revoked, setRevoked] = useState<number | null>(null);
  const [secret, setSecret] = useState<{ apiSecret: string; previousExpiresAt: string } | null>(null);
  const [overlap, setOverlap] = useState('24');
  const [error, setError] = useState<unknown>(null);

  const run = async (action: () => Promise<void>) => {
    setError(null);
    setFresh(null);
    setRevoked(null);
    setSecret(null);
    try { await action(); } catch (failure) { setError(failure); }
    keys.reload();
  };
  const rotate = (mode: Mode) => run(async () => {
    const made = dataOf((await request(ROTATE_KEY, { mode }, app.mode)).rotateApiKey);
    setFresh({ mode: made.mode, apiKey: made.apiKey });
  });
  const revoke = (mode: Mode) => run(async () => setRevoked(dataOf((await request(REVOKE_KEYS, { mode }, app.mode)).revokeApiKeys)));
  const rotateSecret = () => run(async () => setSecret(dataOf((await request(ROTATE_SECRET, { hours: Number(overlap) }, app.mode)).rotateApiSecret)));

  return (
    <section aria-labelledby="api-keys-title">
      <h1 id="api-keys-title">{t.title}</h1>
      <ErrorNote error={keys.error ?? error} />
      <section class="card" aria-labelledby="keys-title">
        <h2 id="keys-title">{t.keys}</h2>
        <p class="note">{t.keysHelp}</p>
        {keys.data && (
          <div class="table-wrap">
            <table id="api-keys">
              <thead><tr><th scope="col">{t.mode}</th><th scope="col">{t.prefix}</th><th scope="col">{t.status}</th><th scope="col">{t.created}</th><th scope="col">{t.revokedAt}</th></tr></thead>
              <tbody>
                {keys.data.map((k) => (
                  <tr key={k.id} data-mode={k.mode} data-status={k.status}>
                    <td data-label={t.mode}>{t[k.mode]}</td>
                    <td class="mono" data-label={t.prefix}>{k.prefix}</td>
                    <td data-label={t.status}><span class={`badge ${k.status === 'active' ? 'delivered' : 'revoked'}`}>{k.status === 'active' ? t.active : t.revoked}</span></td>
                    <td data-label={t.created}>{dateTime(k.createdAt, app.lang)}</td>
                    <td data-label={t.revokedAt}>{k.revokedAt ? dateTime(k.revokedAt, app.lang) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {!owner && <p class="note" id="owner-note">{t.ownerNote}</p>}
        <div id="key-controls" hidden={!owner}>
          {MODES.map((mode) => (
            <div class="row-actions" key={mode} role="group" aria-label={t[mode]}>
              <strong>{t[mode]}:</strong>
              <ConfirmButton id={`rotate-${mode}`} label={`${t.rotate} (${t[mode]})`} question={t.rotateQuestion} onConfirm={() => void rotate(mode)} />
              <ConfirmButton id={`revoke-${mode}`} label={`${t.revoke} (${t[mode]})`} question={t.revokeQuestion} danger onConfirm={() => void revoke(mode)} />
            </div>
          ))}
        </div>
        {fresh && <OneTimeSecret id="new-key" label={`${t.newKey} (${t[fresh.mode]})`} value={fresh.apiKey} />}
        {revoked !== null && <p role="status" id="revoked-count">{t.revokedCount} {revoked}</p>}
      </section>
      <section class="card" aria-labelledby="secret-title" id="secret-section" hidden={!owner}>
        <h2 id="secret-title">{t.secretTitle}</h2>
        <p class="note">{t.secretHelp}</p>
        <div class="filters">
          <label>{t.overlap}<input type="number" id="secret-overlap" min={0} max={168} step={1} value={overlap} onInput={(e) => setOverlap(e.currentTarget.value)} /></label>
          <ConfirmButton id="rotate-secret" label={t.rotateSecret} question={t.rotateSecretQuestion} onConfirm={() => void rotateSecret()} />
        </div>
        {secret && (
          <>
            <OneTimeSecret id="new-secret" label={t.newSecret} value={secret.apiSecret} />
            <p id="previous-until">{t.previousUntil} {dateTime(secret.previousExpiresAt, app.lang)}</p>
          </>
        )}
      </section>
    </section>
  );
}
