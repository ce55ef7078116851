import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { graphql, type VariablesOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import type { PageProps } from '../router.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useFieldErrors } from '../../shared/ui/field-errors.js';
import { useLoad } from '../../shared/ui/hooks.js';
import '../ui/manage.css';

const SETTINGS = graphql(`query ConsoleSettings { merchant { settings { prepTimeMins storefrontDomain storefrontSignatureConfigured sandboxSpeed } } }`);
const UPDATE = graphql(`mutation ConsoleUpdateSettings($input: MerchantSettingsInput!) { updateMerchantSettings(input: $input) {
  __typename ... on MutationUpdateMerchantSettingsSuccess { data { settings { prepTimeMins storefrontDomain storefrontSignatureConfigured sandboxSpeed } } }
  ... on AppError { code message fields { field message } } } }`);

type Input = VariablesOf<typeof UPDATE>['input'];

const S: Strings<'title' | 'current' | 'prep' | 'prepHelp' | 'domain' | 'domainHelp' | 'secret' | 'secretHelp' | 'configured' | 'notConfigured' | 'removeSecret' | 'speed' | 'speedHelp' | 'none' | 'save' | 'saved' | 'edit' | 'ownerNote' | 'minutes' | 'times'> = {
  es: {
    title: 'Ajustes', current: 'Ajustes actuales (los mismos en ambos modos)', prep: 'Tiempo de preparación (minutos)', prepHelp: 'De 0 a 240: se suma a la hora estimada de cada pedido.',
    domain: 'Dominio de la tienda', domainHelp: 'Por ejemplo tienda.myshopify.com. Vacío: sin tienda.', secret: 'Secreto compartido de la tienda',
    secretHelp: 'Solo escritura: nunca se muestra. Vacío: no cambia.', configured: 'configurado', notConfigured: 'no configurado', removeSecret: 'Quitar el secreto configurado',
    speed: 'Velocidad del sandbox', speedHelp: 'De 1 a 1000 veces (solo modo prueba). Vacío: la del servidor.', none: '—', save: 'Guardar ajustes', saved: 'Ajustes guardados.',
    edit: 'Cambiar ajustes', ownerNote: 'Solo el dueño cambia los ajustes.', minutes: 'min', times: '×',
  },
  en: {
    title: 'Settings', current: 'Current settings (the same in both modes)', prep: 'Preparation time (minutes)', prepHelp: "0 to 240: added to every order's estimated time.",
    domain: 'Storefront domain', domainHelp: 'For example shop.myshopify.com. Empty: no storefront.', secret: 'Storefront shared secret',
    secretHelp: 'Write-only: never shown. Empty: unchanged.', configured: 'configured', notConfigured: 'not configured', removeSecret: 'Remove the configured secret',
    speed: 'Sandbox speed', speedHelp: "1 to 1000 times (test mode only). Empty: the server's.", none: '—', save: 'Save settings', saved: 'Settings saved.',
    edit: 'Change settings', ownerNote: 'Only the owner changes the settings.', minutes: 'min', times: '×',
  },
};

const text = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

/** Prep time, storefront domain and secret (write-only: configured or not), sandbox speed. Owner changes, others read. */
export function SettingsPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(S);
  const owner = app.me?.role === 'owner';
  const settings = useLoad(async (mode) => (await request(SETTINGS, {}, mode)).merchant.settings, []);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const f = useFieldErrors(error, 'settings', { prepTimeMins: 'prep', storefrontDomain: 'domain', storefrontSharedSecret: 'secret', sandboxSpeed: 'speed' });
  const s = settings.data;

  const onSubmit = async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const secret = text(data, 'secret');
    const speed = text(data, 'speed');
    const input: Input = {
      prepTimeMins: Number(text(data, 'prep')),
      storefrontDomain: text(data, 'domain') || null,
      sandboxSpeed: speed ? Number(speed) : null,
      ...(data.get('removeSecret') === 'on' ? { storefrontSharedSecret: null } : secret ? { storefrontSharedSecret: secret } : {}),
    };
    setError(null);
    setSaved(false);
    try {
      settings.setData(dataOf((await request(UPDATE, { input }, app.mode)).updateMerchantSettings).settings);
      setSaved(true);
      (form.elements.namedItem('secret') as HTMLInputElement).value = '';
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">{t.title}</h1>
      <ErrorNote error={settings.error} />
      {s && (
        <>
          <section class="card" aria-labelledby="current-title">
            <h2 id="current-title">{t.current}</h2>
            <dl class="facts" id="settings-current">
              <dt>{t.prep}</dt><dd id="current-prep">{s.prepTimeMins} {t.minutes}</dd>
              <dt>{t.domain}</dt><dd id="current-domain">{s.storefrontDomain ?? t.none}</dd>
              <dt>{t.secret}</dt><dd id="current-secret" data-configured={String(s.storefrontSignatureConfigured)}>{s.storefrontSignatureConfigured ? t.configured : t.notConfigured}</dd>
              <dt>{t.speed}</dt><dd id="current-speed">{s.sandboxSpeed == null ? t.none : `${s.sandboxSpeed} ${t.times}`}</dd>
            </dl>
            {!owner && <p class="note">{t.ownerNote}</p>}
          </section>
          <form id="settings-form" class="card" hidden={!owner} key={JSON.stringify(s)} onSubmit={(e) => { e.preventDefault(); void onSubmit(e.currentTarget); }}>
            <h2>{t.edit}</h2>
            <label>{t.prep}<input name="prep" type="number" min={0} max={240} step={1} required defaultValue={String(s.prepTimeMins)} {...f.input('prep', 'prep-help')} /></label>{f.reason('prep')}
            <small id="prep-help">{t.prepHelp}</small>
            <label>{t.domain}<input name="domain" maxLength={253} defaultValue={s.storefrontDomain ?? ''} autocomplete="off" {...f.input('domain', 'domain-help')} /></label>{f.reason('domain')}
            <small id="domain-help">{t.domainHelp}</small>
            <label>{t.secret}<input name="secret" type="password" minLength={16} maxLength={256} autocomplete="new-password" {...f.input('secret', 'secret-help')} /></label>{f.reason('secret')}
            <small id="secret-help">{t.secretHelp} ({s.storefrontSignatureConfigured ? t.configured : t.notConfigured})</small>
            {s.storefrontSignatureConfigured && <label class="check"><input type="checkbox" name="removeSecret" />{t.removeSecret}</label>}
            <label>{t.speed}<input name="speed" type="number" min={1} max={1000} step="any" defaultValue={s.sandboxSpeed == null ? '' : String(s.sandboxSpeed)} {...f.input('speed', 'speed-help')} /></label>{f.reason('speed')}
            <small id="speed-help">{t.speedHelp}</small>
            <div class="actions">
              <button type="submit" id="settings-save">{t.save}</button>
              <span aria-live="polite" id="settings-saved">{saved ? t.saved : ''}</span>
            </div>
          </form>
          <ErrorNote error={error} shown={f.shown} />
        </>
      )}
    </section>
  );
}
