import type { Strings } from '../../shared/i18n.js';

export const WEBHOOK_EVENTS = ['ORDER_STATUS_CHANGED', 'ORDER_ETA_CHANGED', 'ORDER_COURIER_LOCATION', 'BATCH_CREATED', 'ORDER_TIP_ADDED', 'ORDER_STOP_STATUS_CHANGED'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const EVENT_LABELS: Strings<WebhookEvent> = {
  es: { ORDER_STATUS_CHANGED: 'Cambio de estado del pedido', ORDER_ETA_CHANGED: 'Cambio de hora estimada', ORDER_COURIER_LOCATION: 'Posición del repartidor', BATCH_CREATED: 'Lote creado', ORDER_TIP_ADDED: 'Propina añadida', ORDER_STOP_STATUS_CHANGED: 'Cambio de estado de una parada' },
  en: { ORDER_STATUS_CHANGED: 'Order status changed', ORDER_ETA_CHANGED: 'ETA changed', ORDER_COURIER_LOCATION: 'Courier position', BATCH_CREATED: 'Batch created', ORDER_TIP_ADDED: 'Tip added', ORDER_STOP_STATUS_CHANGED: 'Stop status changed' },
};

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DELIVERY_STATUS_LABELS: Strings<DeliveryStatus> = {
  es: { pending: 'Pendiente', delivered: 'Entregado', failed: 'Fallido' },
  en: { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' },
};
