import { useLang } from '../../shared/context.js';
import type { Strings } from '../../shared/i18n.js';
import type { OperatorRole } from '../app-state.js';

const ROLES: Strings<OperatorRole> = {
  es: { admin: 'administrador', dispatcher: 'despachador', support: 'soporte' },
  en: { admin: 'admin', dispatcher: 'dispatcher', support: 'support' },
};
export const RoleName = ({ role }: { role: OperatorRole }) => <>{ROLES[useLang()][role]}</>;

/** Statuses of merchants, integrations and couriers, as the badges read. */
export const STATUS_WORDS: Strings<'invited' | 'in_review' | 'pending_approval' | 'active' | 'suspended' | 'approved' | 'rejected' | 'disabled' | 'off_duty' | 'available' | 'busy' | 'none'> = {
  es: { invited: 'invitado', in_review: 'en revisión', pending_approval: 'por aprobar', active: 'activo', suspended: 'suspendido', approved: 'aprobada', rejected: 'rechazada', disabled: 'deshabilitado', off_duty: 'fuera de turno', available: 'disponible', busy: 'ocupado', none: 'sin uso' },
  en: { invited: 'invited', in_review: 'in review', pending_approval: 'awaiting approval', active: 'active', suspended: 'suspended', approved: 'approved', rejected: 'rejected', disabled: 'disabled', off_duty: 'off duty', available: 'available', busy: 'busy', none: 'not used' },
};
export function StatusBadge({ status, id }: { status: string; id?: string }) {
  const words = STATUS_WORDS[useLang()] as Record<string, string>;
  return <span class={`badge ${status}`} id={id} data-status={status}>{words[status] ?? status}</span>;
}
