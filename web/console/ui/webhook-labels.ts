import type { Strings } from '../../shared/i18n.js';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENTS, type WebhookEvent } from '../../shared/vocabulary.generated.js';

export { WEBHOOK_DELIVERY_STATUSES as DELIVERY_STATUSES, WEBHOOK_EVENTS, type WebhookEvent };

export const EVENT_LABELS: Strings<WebhookEvent> = {
  es: { ORDER_STATUS_CHANGED: 'Cambio de estado del pedido', ORDER_ETA_CHANGED: 'Cambio de hora estimada', ORDER_COURIER_LOCATION: 'Posición del repartidor', BATCH_CREATED: 'Lote creado', ORDER_TIP_ADDED: 'Propina añadida', ORDER_STOP_STATUS_CHANGED: 'Cambio de estado de una parada' },
  en: { ORDER_STATUS_CHANGED: 'Order status changed', ORDER_ETA_CHANGED: 'ETA changed', ORDER_COURIER_LOCATION: 'Courier position', BATCH_CREATED: 'Batch created', ORDER_TIP_ADDED: 'Tip added', ORDER_STOP_STATUS_CHANGED: 'Stop status changed' },
};

export type DeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const DELIVERY_STATUS_LABELS: Strings<DeliveryStatus> = {
  es: { pending: 'Pendiente', delivered: 'Entregado', failed: 'Fallido' },
  en: { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' },
};
