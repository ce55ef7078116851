/**
 * The customer tracking page's words, in Spanish (Chile: the default) and English (issue #28).
 * `page` strings are put into the HTML by the server; `live` strings go to the page's script in its
 * boot data, so every word and date of one page is in one language. `{name}` marks a value.
 */
export type TrackingLanguage = 'es' | 'en';

const es = {
  page: {
    htmlLang: 'es-CL',
    title: 'Sigue tu envío',
    connecting: 'Conectando…',
    loading: 'Buscando tu envío…',
    trackingLabel: 'Seguimiento',
    sandbox: 'Prueba',
    orderFrom: 'Pedido de',
    contents: 'Contenido',
    streetMap: 'Mapa de calles con el retiro, el destino y el repartidor',
    mapTitle: 'Mapa del retiro, el destino y el repartidor',
    pickup: 'Retiro',
    destination: 'Destino',
    courier: 'Repartidor',
    yourCourier: 'Tu repartidor',
    call: 'Llamar',
    callLabel: 'Llamar a tu repartidor por un número protegido',
    findingCourier: 'Estamos buscando un repartidor para tu envío.',
    progress: 'Progreso',
    noscript: 'Esta página necesita JavaScript para mostrar tu envío en vivo.',
    otherLanguage: 'English',
    otherLanguageCode: 'en',
    notFoundTitle: 'No encontramos tu envío',
    notFoundText: 'No hay un envío con la referencia {reference}.',
    notFoundHint: 'Revisa el enlace o el número de seguimiento de tu mensaje de confirmación.',
    tooManyTitle: 'Demasiadas consultas',
    tooManyText: 'Llegaron muchas consultas desde tu conexión. Vuelve a intentarlo en {seconds} s.',
    tryAgain: 'Intentar de nuevo',
    home: 'Ir al inicio',
    items: '{quantity} × {name}',
    unnamedItems: '{count} artículos',
    oneUnnamedItem: '1 artículo',
    moreItems: 'y {count} más',
  },
  live: {
    steps: {
      new: 'Pedido recibido', assigned: 'Repartidor asignado', arrived_pickup: 'Repartidor en el local', picked_up: 'Retirado, en camino',
      arrived_dropoff: 'Repartidor en tu puerta', completed: 'Entregado', cancelled: 'Cancelado',
      delivery_failed: 'Intento de entrega fallido', returning: 'Volviendo a la tienda', returned: 'Devuelto a la tienda', disposed: 'No entregado',
    },
    headlines: {
      new: 'Buscando repartidor', assigned: 'El repartidor va a retirar tu pedido', arrived_pickup: 'El repartidor está retirando tu pedido',
      picked_up: 'Tu pedido va en camino', arrived_dropoff: 'Tu repartidor llegó', completed: 'Entregado', cancelled: 'Envío cancelado',
      failed: 'No pudimos entregar tu pedido', unknown: 'Estamos revisando tu envío',
      delivery_failed: 'No pudimos entregar tu pedido', returning: 'Tu pedido vuelve a la tienda', returned: 'Tu pedido volvió a la tienda', disposed: 'No pudimos entregar tu pedido',
    },
    delivered: 'Entregado {when}',
    cancelled: 'Este envío fue cancelado. Si tienes dudas, escríbele a {shop}.',
    failed: 'Hubo un problema con la entrega. {shop} se pondrá en contacto contigo.',
    unknown: 'Pronto tendremos novedades de tu envío.',
    returning: 'No pudimos entregarlo y el repartidor lo lleva de vuelta a {shop}. Escríbele para coordinar otra entrega.',
    returned: 'Tu pedido fue devuelto a {shop}. Escríbele para coordinar otra entrega.',
    theShop: 'la tienda',
    arriving: 'Llega {when} ({relative})',
    estimated: 'Entrega estimada {when} · retiro {pickup}',
    anyMinute: 'en cualquier momento',
    inMinutes: 'en unos {n} min',
    inHours: 'en unas {n} h',
    noCourier: 'Este envío no tiene repartidor.',
    findingCourier: 'Estamos buscando un repartidor para tu envío.',
    vehicles: { bike: 'Bicicleta', motorcycle: 'Moto', car: 'Auto', van: 'Furgón' },
    live: 'En vivo', final: 'Finalizado', notFound: 'No encontrado', polling: 'Se actualiza cada {s} s', reconnecting: 'Reconectando en {s} s',
    tooMany: 'Demasiadas conexiones',
    today: '', tomorrow: 'mañana', yesterday: 'ayer', at: 'a las',
    weekdays: ['dom', 'lun', 'mar', 'mié', 'jue', 'vie', 'sáb'],
    months: ['ene', 'feb', 'mar', 'abr', 'may', 'jun', 'jul', 'ago', 'sept', 'oct', 'nov', 'dic'],
    /** weekday, day, month, time */
    dateOrder: '{weekday} {day} {month} {time}',
  },
  /** A multi-stop order's stop page (issue #30): this stop only, and how many stops come before it. */
  stop: {
    pending: 'Tu entrega está en camino', arrived: 'El repartidor está en tu puerta', delivered: 'Entregado', failed: 'No se pudo entregar',
    ahead: '{count} paradas antes de la tuya', aheadOne: '1 parada antes de la tuya', next: 'Eres la próxima parada',
    eta: 'Llegada estimada: {time}', where: 'Entrega en {place}', refresh: 'Actualizar',
  },
};

export type TrackingCatalog = typeof es;

const en: TrackingCatalog = {
  page: {
    htmlLang: 'en',
    title: 'Track your delivery',
    connecting: 'Connecting…',
    loading: 'Looking up your delivery…',
    trackingLabel: 'Tracking',
    sandbox: 'Sandbox',
    orderFrom: 'Order from',
    contents: 'Contents',
    streetMap: 'Street map of the pickup, the destination and the courier',
    mapTitle: 'Map of the pickup, the destination and the courier',
    pickup: 'Pickup',
    destination: 'Destination',
    courier: 'Courier',
    yourCourier: 'Your courier',
    call: 'Call',
    callLabel: 'Call your courier through a protected number',
    findingCourier: "We're finding a courier for your delivery.",
    progress: 'Progress',
    noscript: 'This page needs JavaScript to show your delivery live.',
    otherLanguage: 'Español',
    otherLanguageCode: 'es',
    notFoundTitle: 'Delivery not found',
    notFoundText: "We couldn't find a delivery with the reference {reference}.",
    notFoundHint: 'Check the link or the tracking number in your confirmation message.',
    tooManyTitle: 'Too many requests',
    tooManyText: 'Too many requests came from your connection. Try again in {seconds} s.',
    tryAgain: 'Try again',
    home: 'Go to the home page',
    items: '{quantity} × {name}',
    unnamedItems: '{count} items',
    oneUnnamedItem: '1 item',
    moreItems: 'and {count} more',
  },
  live: {
    steps: {
      new: 'Order placed', assigned: 'Courier assigned', arrived_pickup: 'Courier at pickup', picked_up: 'Picked up, on the way',
      arrived_dropoff: 'Courier at your door', completed: 'Delivered', cancelled: 'Cancelled',
      delivery_failed: 'Delivery attempt failed', returning: 'Going back to the shop', returned: 'Returned to the shop', disposed: 'Not delivered',
    },
    headlines: {
      new: 'Finding a courier', assigned: 'Courier heading to pickup', arrived_pickup: 'Courier is collecting your order',
      picked_up: 'Your order is on the way', arrived_dropoff: 'Your courier has arrived', completed: 'Delivered', cancelled: 'Delivery cancelled',
      failed: 'We could not deliver your order', unknown: 'We are checking on your delivery',
      delivery_failed: 'We could not deliver your order', returning: 'Your order is going back to the shop', returned: 'Your order went back to the shop', disposed: 'We could not deliver your order',
    },
    delivered: 'Delivered {when}',
    cancelled: 'This delivery was cancelled. If you have questions, contact {shop}.',
    failed: 'Something went wrong with the delivery. {shop} will get in touch with you.',
    unknown: 'We will have news about your delivery soon.',
    returning: 'We could not deliver it and the courier is taking it back to {shop}. Contact them to arrange another delivery.',
    returned: 'Your order was returned to {shop}. Contact them to arrange another delivery.',
    theShop: 'the shop',
    arriving: 'Arriving {when} ({relative})',
    estimated: 'Estimated delivery {when} · pickup {pickup}',
    anyMinute: 'any minute now',
    inMinutes: 'in about {n} min',
    inHours: 'in about {n} h',
    noCourier: 'No courier for this delivery.',
    findingCourier: "We're finding a courier for your delivery.",
    vehicles: { bike: 'Bicycle', motorcycle: 'Motorcycle', car: 'Car', van: 'Van' },
    live: 'Live', final: 'Final', notFound: 'Not found', polling: 'Updating every {s} s', reconnecting: 'Reconnecting in {s} s',
    tooMany: 'Too many connections',
    today: '', tomorrow: 'tomorrow', yesterday: 'yesterday', at: 'at',
    weekdays: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'],
    months: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
    dateOrder: '{weekday} {day} {month} {time}',
  },
  stop: {
    pending: 'Your delivery is on its way', arrived: 'The courier is at your door', delivered: 'Delivered', failed: 'Could not be delivered',
    ahead: '{count} stops before yours', aheadOne: '1 stop before yours', next: 'You are the next stop',
    eta: 'Estimated arrival: {time}', where: 'Delivery in {place}', refresh: 'Refresh',
  },
};

export const TRACKING_CATALOGS: Record<TrackingLanguage, TrackingCatalog> = { es, en };

/**
 * The page's language: `?lang=es|en` first, then the first of Spanish or English in Accept-Language
 * by preference (q), Spanish when neither is named.
 */
export function trackingLanguageOf(options: { lang: unknown; acceptLanguage: string | undefined }): TrackingLanguage {
  if (options.lang === 'en' || options.lang === 'es') return options.lang;
  const ranked = (options.acceptLanguage ?? '')
    .slice(0, 512)
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{1,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { primary: tag.trim().split('-')[0] ?? '', q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.q > 0 && (entry.primary === 'es' || entry.primary === 'en'))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked[0]?.primary === 'en' ? 'en' : 'es';
}

/** A catalog string with its `{name}` values put in. */
export const fill = (text: string, values: Record<string, string | number>): string => text.replace(/\{(\w+)\}/g, (all, name: string) => (name in values ? String(values[name]) : all));
