import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import type { PageProps } from '../router.js';
import { ConfirmButton } from '../../shared/ui/confirm-button.js';
import type { ErrorWords } from '../../shared/api/errors.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useFieldErrors } from '../../shared/ui/field-errors.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { OneTimeSecret } from '../../shared/ui/one-time-secret.js';
import '../ui/manage.css';

const MEMBERS = graphql(`query ConsoleMembers { members { id email role status createdAt } }`);
const INVITE = graphql(`mutation ConsoleInviteMember($input: InviteMemberInput!) { inviteMember(input: $input) {
  __typename ... on MutationInviteMemberSuccess { data { setPasswordUrl expiresAt member { id email } } } ... on AppError { code message fields { field message } } } }`);
const CHANGE_ROLE = graphql(`mutation ConsoleChangeMemberRole($id: ID!, $role: MemberRole!) { changeMemberRole(id: $id, role: $role) {
  __typename ... on MutationChangeMemberRoleSuccess { data { id role } } ... on AppError { code message } } }`);
const RESET_PASSWORD = graphql(`mutation ConsoleResetMemberPassword($id: ID!) { resetMemberPassword(id: $id) {
  __typename ... on MutationResetMemberPasswordSuccess { data { setPasswordUrl expiresAt member { id email } } } ... on AppError { code message } } }`);
const REMOVE = graphql(`mutation ConsoleRemoveMember($id: ID!) { removeMember(id: $id) {
  __typename ... on MutationRemoveMemberSuccess { data { id } } ... on AppError { code message } } }`);

const ROLES = ['owner', 'dispatcher', 'viewer'] as const;
/** A set-password link, shown once: an invitation's or a reset's. */
type Link = { setPasswordUrl: string; expiresAt: string; email: string };
type Role = (typeof ROLES)[number];

const ROLE_NAMES: Strings<Role> = {
  es: { owner: 'Dueño', dispatcher: 'Despachador', viewer: 'Lector' },
  en: { owner: 'Owner', dispatcher: 'Dispatcher', viewer: 'Viewer' },
};

const S: Strings<'title' | 'members' | 'email' | 'role' | 'status' | 'since' | 'actions' | 'invited' | 'active' | 'you' | 'change' | 'remove' | 'removeQuestion' | 'inviteTitle' | 'invite' | 'link' | 'linkUntil' | 'ownerNote' | 'rolesHelp' | 'roleOf' | 'reset' | 'resetLink'> = {
  es: {
    title: 'Equipo', members: 'Miembros', email: 'Correo', role: 'Rol', status: 'Estado', since: 'Desde', actions: 'Acciones', invited: 'invitado', active: 'activo', you: '(tú)',
    change: 'Cambiar rol', remove: 'Quitar', removeQuestion: '¿Quitar a este miembro? Sus sesiones terminan.', inviteTitle: 'Invitar a un miembro', invite: 'Invitar',
    link: 'Enlace para definir la contraseña (envíalo al invitado)', linkUntil: 'Válido hasta', ownerNote: 'Solo el dueño invita, cambia roles o quita miembros.',
    rolesHelp: 'Lector: solo lee. Despachador: además opera pedidos y reenvía webhooks. Dueño: además claves, webhooks, ajustes y equipo. Un cambio de rol cierra las sesiones del miembro.',
    roleOf: 'Rol de', reset: 'Nuevo enlace de contraseña',
    resetLink: 'Nuevo enlace para definir la contraseña (la actual sirve hasta que se use; usarlo cierra sus sesiones)',
  },
  en: {
    title: 'Team', members: 'Members', email: 'Email', role: 'Role', status: 'Status', since: 'Since', actions: 'Actions', invited: 'invited', active: 'active', you: '(you)',
    change: 'Change role', remove: 'Remove', removeQuestion: 'Remove this member? Their sessions end.', inviteTitle: 'Invite a member', invite: 'Invite',
    link: 'Set-password link (send it to the invitee)', linkUntil: 'Valid until', ownerNote: 'Only the owner invites, changes roles or removes members.',
    rolesHelp: 'Viewer: reads only. Dispatcher: also runs orders and redelivers webhooks. Owner: also keys, webhooks, settings and team. A role change ends the member’s sessions.',
    roleOf: 'Role of', reset: 'New password link',
    resetLink: 'New set-password link (the current password works until it is used; using it ends their sessions)',
  },
};

/** CONFLICT means one thing per section: the last active owner stays; an email already in the team. */
const MEMBERS_CONFLICT: ErrorWords = {
  es: { CONFLICT: 'El comercio debe conservar al menos un dueño activo.' },
  en: { CONFLICT: 'A merchant keeps at least one active owner.' },
};
const INVITE_CONFLICT: ErrorWords = {
  es: { CONFLICT: 'Ese correo ya pertenece a un miembro del equipo.' },
  en: { CONFLICT: 'That email already belongs to a member of the team.' },
};

/** Members; owner: invite (the one-time link shown), change role, a new password link, remove. The domain keeps one owner: its refusal is shown. */
export function TeamPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(S);
  const owner = app.me?.role === 'owner';
  const members = useLoad(async (mode) => (await request(MEMBERS, {}, mode)).members, []);
  const [roles, setRoles] = useState<Record<string, Role>>({});
  const [invitation, setInvitation] = useState<Link | null>(null);
  const [resetLink, setResetLink] = useState<Link | null>(null);
  const oneTimeLink = (id: string, label: string, link: Link) => (
    <>
      <OneTimeSecret id={id} label={`${label}: ${link.email}`} value={link.setPasswordUrl} />
      <p>{t.linkUntil} {dateTime(link.expiresAt, app.lang)}</p>
    </>
  );
  // Each failure is shown beside what caused it: the members table, or the invitation form.
  const [error, setError] = useState<{ where: 'members' | 'invite'; failure: unknown } | null>(null);
  const f = useFieldErrors(error?.where === 'invite' ? error.failure : null, 'invite', { email: 'email', 'input.email': 'email', role: 'role', 'input.role': 'role' });

  const run = async (where: 'members' | 'invite', action: () => Promise<void>) => {
    setError(null);
    try { await action(); } catch (failure) { setError({ where, failure }); }
    members.reload();
  };
  const onInvite = (form: HTMLFormElement) => run('invite', async () => {
    const data = new FormData(form);
    const role = ROLES.find((r) => r === data.get('role')) ?? 'viewer';
    const made = dataOf((await request(INVITE, { input: { email: String(data.get('email') ?? '').trim(), role } }, app.mode)).inviteMember);
    setInvitation({ setPasswordUrl: made.setPasswordUrl, expiresAt: made.expiresAt, email: made.member.email });
    form.reset();
  });
  const changeRole = (id: string, role: Role) => run('members', async () => {
    setInvitation(null);
    dataOf((await request(CHANGE_ROLE, { id, role }, app.mode)).changeMemberRole);
  });
  const resetPassword = (id: string) => run('members', async () => {
    const made = dataOf((await request(RESET_PASSWORD, { id }, app.mode)).resetMemberPassword);
    setResetLink({ setPasswordUrl: made.setPasswordUrl, expiresAt: made.expiresAt, email: made.member.email });
  });
  const remove = (id: string) => run('members', async () => {
    setInvitation(null);
    setResetLink(null);
    dataOf((await request(REMOVE, { id }, app.mode)).removeMember);
  });

  return (
    <section aria-labelledby="team-title">
      <h1 id="team-title">{t.title}</h1>
      <p class="note">{t.rolesHelp}</p>
      <ErrorNote error={members.error} />
      <section class="card" aria-labelledby="members-title">
        <h2 id="members-title">{t.members}</h2>
        {members.data && (
          <div class="table-wrap">
            <table id="members">
              <thead><tr><th scope="col">{t.email}</th><th scope="col">{t.role}</th><th scope="col">{t.status}</th><th scope="col">{t.since}</th>{owner && <th scope="col">{t.actions}</th>}</tr></thead>
              <tbody>
                {members.data.map((m) => (
                  <tr key={m.id} data-member-id={m.id} data-email={m.email} data-role={m.role} data-status={m.status}>
                    <td data-label={t.email}>{m.email} {m.email === app.me?.email && t.you}</td>
                    <td data-label={t.role}>{ROLE_NAMES[app.lang][m.role]}</td>
                    <td data-label={t.status}>{m.status === 'active' ? t.active : t.invited}</td>
                    <td data-label={t.since}>{dateTime(m.createdAt, app.lang)}</td>
                    {owner && (
                      <td data-label={t.actions}><div class="row-actions">
                        <label><span class="visually-hidden">{t.roleOf} {m.email}</span>
                          <select class="member-role" value={roles[m.id] ?? m.role} onChange={(e) => setRoles({ ...roles, [m.id]: e.currentTarget.value as Role })}>
                            {ROLES.map((r) => <option key={r} value={r}>{ROLE_NAMES[app.lang][r]}</option>)}
                          </select>
                        </label>
                        <button type="button" class="secondary change-role" aria-label={`${t.change}: ${m.email}`} disabled={(roles[m.id] ?? m.role) === m.role} onClick={() => void changeRole(m.id, roles[m.id]!)}>{t.change}</button>
                        <button type="button" class="secondary reset-password" aria-label={`${t.reset}: ${m.email}`} onClick={() => void resetPassword(m.id)}>{t.reset}</button>
                        <ConfirmButton id={`remove-${m.id}`} label={t.remove} question={t.removeQuestion} danger onConfirm={() => void remove(m.id)} />
                      </div></td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {!owner && <p class="note">{t.ownerNote}</p>}
        {resetLink && oneTimeLink('reset-link', t.resetLink, resetLink)}
        <ErrorNote error={error?.where === 'members' && error.failure} words={MEMBERS_CONFLICT} />
      </section>
      <section class="card" aria-labelledby="invite-title" id="invite-section" hidden={!owner}>
        <h2 id="invite-title">{t.inviteTitle}</h2>
        <form id="invite-form" onSubmit={(e) => { e.preventDefault(); void onInvite(e.currentTarget); }}>
          <div class="pair">
            <label>{t.email}<input name="email" type="email" required autocomplete="off" {...f.input('email')} /></label>{f.reason('email')}
            <label>{t.role}<select name="role" {...f.input('role')}>{[...ROLES].reverse().map((r) => <option key={r} value={r}>{ROLE_NAMES[app.lang][r]}</option>)}</select></label>{f.reason('role')}
          </div>
          <div class="actions"><button type="submit" id="invite-submit">{t.invite}</button></div>
        </form>
        <ErrorNote error={error?.where === 'invite' && error.failure} words={INVITE_CONFLICT} shown={f.shown} />
        {invitation && oneTimeLink('invitation', t.link, invitation)}
      </section>
    </section>
  );
}
