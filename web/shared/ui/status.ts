import type { Strings } from '../i18n.js';

import { ORDER_STATUSES, type OrderStatus } from '../vocabulary.generated.js';

/** The order statuses, from the domain's vocabulary (generated). */
export const STATUSES = ORDER_STATUSES;
export type Status = OrderStatus;

export const STATUS_LABELS: Strings<Status> = {
  es: { new: 'Nuevo', assigned: 'Asignado', arrived_pickup: 'En el retiro', picked_up: 'En camino', arrived_dropoff: 'En el destino', completed: 'Entregado', delivery_failed: 'Intento fallido', returning: 'En devolución', returned: 'Devuelto', disposed: 'Desechado', cancelled: 'Cancelado' },
  en: { new: 'New', assigned: 'Assigned', arrived_pickup: 'At pickup', picked_up: 'On the way', arrived_dropoff: 'At drop-off', completed: 'Delivered', delivery_failed: 'Delivery failed', returning: 'Returning', returned: 'Returned', disposed: 'Disposed', cancelled: 'Cancelled' },
};
