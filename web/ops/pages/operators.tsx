import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { operatorRequest } from '../../shared/api/http.js';
import { dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ConfirmButton } from '../../shared/ui/confirm-button.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { OneTimeSecret } from '../../shared/ui/one-time-secret.js';
import { may, useApp, type OperatorRole } from '../app-state.js';
import type { PageProps } from '../router.js';
import { RoleName, StatusBadge } from '../ui/words.js';

const OPERATORS = graphql(`query OpsOperators { adminOperators { id email role status createdAt } }`);
const INVITE = graphql(`mutation OpsInviteOperator($email: String!, $role: OperatorRole!) { adminInviteOperator(email: $email, role: $role) {
  __typename ... on MutationAdminInviteOperatorSuccess { data { setPasswordUrl } } ... on AppError { code message } } }`);
const RESET = graphql(`mutation OpsResetOperator($email: String!) { adminResetOperatorPassword(email: $email) {
  __typename ... on MutationAdminResetOperatorPasswordSuccess { data { setPasswordUrl } } ... on AppError { code message } } }`);
const SET_STATUS = graphql(`mutation OpsSetOperatorStatus($id: ID!, $status: OperatorSettableStatus!) { adminSetOperatorStatus(operatorId: $id, status: $status) {
  __typename ... on MutationAdminSetOperatorStatusSuccess { data { id } } ... on AppError { code message } } }`);
const SET_ROLE = graphql(`mutation OpsSetOperatorRole($id: ID!, $role: OperatorRole!) { adminSetOperatorRole(operatorId: $id, role: $role) {
  __typename ... on MutationAdminSetOperatorRoleSuccess { data { id } } ... on AppError { code message } } }`);

const ROLES: OperatorRole[] = ['support', 'dispatcher', 'admin'];

const STRINGS: Strings<'title' | 'email' | 'role' | 'status' | 'since' | 'actions' | 'invite' | 'send' | 'link' | 'reset' | 'disable' | 'disableQ' | 'enable' | 'roleOf' | 'roleNote'> = {
  es: { title: 'Operadores', email: 'Correo', role: 'Rol', status: 'Estado', since: 'Alta', actions: 'Acciones', invite: 'Invitar operador', send: 'Crear invitación', link: 'Enlace para elegir contraseña', reset: 'Enlace nuevo', disable: 'Deshabilitar', disableQ: '¿Deshabilitar? Sus sesiones terminan ahora.', enable: 'Habilitar', roleOf: 'Rol de', roleNote: 'Cambiar el rol cierra sus sesiones.' },
  en: { title: 'Operators', email: 'Email', role: 'Role', status: 'Status', since: 'Since', actions: 'Actions', invite: 'Invite an operator', send: 'Create invitation', link: 'Set-password link', reset: 'New link', disable: 'Disable', disableQ: 'Disable? Its sessions end now.', enable: 'Enable', roleOf: 'Role of', roleNote: 'Changing the role ends its sessions.' },
};

/** The operators; an admin invites, changes roles, disables and sends new set-password links. */
export function OperatorsPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [link, setLink] = useState<string | null>(null);
  const list = useLoad(async () => (await operatorRequest(OPERATORS, {})).adminOperators, [version]);
  const manage = may(app.me, 'manage');
  const act = async (run: () => Promise<void>) => {
    try {
      await run();
      setError(null);
      setVersion((v) => v + 1);
    } catch (failure) {
      setError(failure);
    }
  };
  const onInvite = (event: SubmitEvent) => {
    event.preventDefault();
    const formElement = event.currentTarget as HTMLFormElement;
    const form = new FormData(formElement);
    void act(async () => {
      const invitation = dataOf((await operatorRequest(INVITE, { email: String(form.get('email')).trim(), role: String(form.get('role')) as OperatorRole })).adminInviteOperator);
      setLink(invitation.setPasswordUrl);
      formElement.reset();
    });
  };

  return (
    <>
      <h1>{t.title}</h1>
      {link && <OneTimeSecret id="operator-link" label={t.link} value={link} />}
      <ErrorNote error={list.error ?? error} />
      {list.data && (
        <div class="table-wrap card">
          <table id="operators">
            <thead><tr><th>{t.email}</th><th>{t.role}</th><th>{t.status}</th><th>{t.since}</th>{manage && <th>{t.actions}</th>}</tr></thead>
            <tbody>
              {list.data.map((o) => (
                <tr key={o.id} data-operator={o.id}>
                  <td data-label={t.email}>{o.email}</td>
                  <td data-label={t.role}>
                    {manage && o.id !== app.me?.id ? (
                      <label><span class="visually-hidden">{t.roleOf} {o.email}</span>
                        <select value={o.role} title={t.roleNote} onChange={(e) => void act(async () => void dataOf((await operatorRequest(SET_ROLE, { id: o.id, role: e.currentTarget.value as OperatorRole })).adminSetOperatorRole))}>
                          {ROLES.map((r) => <option key={r} value={r}><RoleName role={r} /></option>)}
                        </select>
                      </label>
                    ) : <RoleName role={o.role} />}
                  </td>
                  <td data-label={t.status}><StatusBadge status={o.status} /></td>
                  <td data-label={t.since}>{dateTime(o.createdAt, app.lang)}</td>
                  {manage && (
                    <td class="wrap" data-label={t.actions}><div class="row-actions">
                      {o.id !== app.me?.id && (o.status === 'disabled'
                        ? <button type="button" onClick={() => void act(async () => void dataOf((await operatorRequest(SET_STATUS, { id: o.id, status: 'active' })).adminSetOperatorStatus))}>{t.enable}</button>
                        : <ConfirmButton id={`disable-${o.id}`} label={t.disable} question={t.disableQ} danger onConfirm={() => void act(async () => void dataOf((await operatorRequest(SET_STATUS, { id: o.id, status: 'disabled' })).adminSetOperatorStatus))} />)}
                      <button type="button" class="secondary" onClick={() => void act(async () => setLink(dataOf((await operatorRequest(RESET, { email: o.email })).adminResetOperatorPassword).setPasswordUrl))}>{t.reset}</button>
                    </div></td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {manage && (
        <section class="card" aria-labelledby="invite-title">
          <h2 id="invite-title">{t.invite}</h2>
          <form id="invite-operator" onSubmit={onInvite}>
            <div class="pair">
              <label>{t.email}<input name="email" type="email" required autocomplete="off" /></label>
              <label>{t.role}<select name="role">{ROLES.map((r) => <option key={r} value={r}><RoleName role={r} /></option>)}</select></label>
            </div>
            <div class="actions"><button type="submit">{t.send}</button></div>
          </form>
        </section>
      )}
    </>
  );
}
