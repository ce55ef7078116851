import type { Strings } from '../../shared/i18n.js';

export const BATCH_STATUS: Strings<'pending' | 'assigned' | 'completed' | 'cancelled'> = {
  es: { pending: 'Pendiente', assigned: 'Asignado', completed: 'Completado', cancelled: 'Cancelado' },
  en: { pending: 'Pending', assigned: 'Assigned', completed: 'Completed', cancelled: 'Cancelled' },
};

export { VEHICLE_LABELS as VEHICLES } from '../../shared/catalog.js';
