import type { OrderStatus } from '../types.js';
import type { NotificationChannel, NotificationMoment } from './types.js';

/** What a template is filled with: the shop's name, the tracking number and the order's tracking link. */
export interface TemplateContext {
  shop: string;
  trackingNumber: string;
  trackingUrl: string;
}

/** The Spanish (es-CL) wording of each moment: a text-message line and an email subject. */
const TEMPLATES: Record<NotificationMoment, { text: (c: TemplateContext) => string; subject: (c: TemplateContext) => string }> = {
  created: {
    text: (c) => `${c.shop}: recibimos tu pedido ${c.trackingNumber}. Síguelo aquí: ${c.trackingUrl}`,
    subject: (c) => `${c.shop}: recibimos tu pedido`,
  },
  courier_assigned: {
    text: (c) => `${c.shop}: un repartidor ya tiene tu pedido ${c.trackingNumber} y pronto lo retirará. Síguelo aquí: ${c.trackingUrl}`,
    subject: (c) => `${c.shop}: tu pedido ya tiene repartidor`,
  },
  on_the_way: {
    text: (c) => `${c.shop}: tu pedido ${c.trackingNumber} va en camino. Síguelo en vivo: ${c.trackingUrl}`,
    subject: (c) => `${c.shop}: tu pedido va en camino`,
  },
  delivered: {
    text: (c) => `${c.shop}: tu pedido ${c.trackingNumber} fue entregado. ¡Gracias por tu compra! Detalle: ${c.trackingUrl}`,
    subject: (c) => `${c.shop}: tu pedido fue entregado`,
  },
  failed: {
    text: (c) => `${c.shop}: no pudimos entregar tu pedido ${c.trackingNumber}. Revisa el detalle aquí: ${c.trackingUrl}`,
    subject: (c) => `${c.shop}: no pudimos entregar tu pedido`,
  },
};

/** The message of a moment on a channel: every channel carries the same text; email adds a subject and a greeting. */
export function renderNotification(moment: NotificationMoment, channel: NotificationChannel, context: TemplateContext): { subject: string | null; body: string } {
  const template = TEMPLATES[moment];
  const text = template.text(context);
  if (channel !== 'email') return { subject: null, body: text };
  return { subject: template.subject(context), body: `Hola:\n\n${text}\n\nEste mensaje se envió automáticamente; no es necesario responderlo.` };
}

/** The moment an order's status marks, or null when it marks none (arrivals). `new` is the creation. */
export function momentOf(status: OrderStatus | string): NotificationMoment | null {
  switch (status) {
    case 'new':
      return 'created';
    case 'assigned':
      return 'courier_assigned';
    case 'picked_up':
      return 'on_the_way';
    case 'completed':
    case 'delivered':
      return 'delivered';
    case 'cancelled':
      return 'failed';
    default:
      // States the lifecycle may grow (a failed attempt, a return) are failures for the recipient.
      return /fail|return/.test(status) ? 'failed' : null;
  }
}
