import type { Lang, Strings } from './i18n.js';
import { ERROR_CODES, type ErrorCode as ServerErrorCode } from './vocabulary.generated.js';

/**
 * The console's one catalog of what the server says: every error code of the API's closed list
 * (src/domain/errors.ts, generated into vocabulary.generated.ts) and every label the server sends as data (statuses, vehicles, rates,
 * history notes, field messages), in both languages. test/console/catalog.test.ts compares these
 * keys with the server's lists, so a code or label added there fails until it is translated here.
 */
export { ERROR_CODES };
/** NETWORK is the client's own: no answer from the server at all. */
export type ErrorCode = ServerErrorCode | 'NETWORK';

export const ERROR_TEXT: Strings<ErrorCode> = {
  es: {
    VALIDATION_ERROR: 'Revisa los datos marcados.',
    MALFORMED_JSON: 'La solicitud llegó dañada: inténtalo de nuevo.',
    GEOCODING_FAILED: 'No encontramos esa dirección: revísala o usa coordenadas.',
    OUTSIDE_SERVICE_AREA: 'La dirección está fuera de la zona de reparto.',
    WEIGHT_EXCEEDS_CAPACITY: 'El peso supera lo que lleva cualquier vehículo.',
    GEOFENCE_FAILED: 'El repartidor está demasiado lejos del destino.',
    TEST_MODE_MISMATCH: 'Eso pertenece al otro modo (prueba / real).',
    PASSWORD_TOKEN_INVALID: 'El enlace no es válido o ya se usó: pide una nueva invitación.',
    SIGN_IN_LINK_INVALID: 'El enlace de acceso no es válido o ya se usó.',
    DELIVERY_PIN_INVALID: 'El PIN de entrega no es correcto.',
    INVALID_API_KEY: 'La clave de API no es válida.',
    INVALID_SIGNATURE: 'La firma de la solicitud no es válida.',
    INVALID_ADMIN_TOKEN: 'La credencial de administración no es válida.',
    INVALID_COURIER_TOKEN: 'La credencial del repartidor no es válida.',
    INVALID_CREDENTIALS: 'Correo o contraseña incorrectos.',
    INVALID_SESSION: 'Tu sesión terminó: inicia sesión de nuevo.',
    ACCOUNT_SUSPENDED: 'La cuenta del comercio está suspendida.',
    INTEGRATION_IN_REVIEW: 'La integración aún está en revisión.',
    FORBIDDEN: 'No tienes acceso a esto.',
    FORBIDDEN_ROLE: 'Tu rol no permite esta acción.',
    CSRF_REQUIRED: 'La solicitud no vino de la consola: recarga la página.',
    NOT_FOUND: 'No existe.',
    MERCHANT_NOT_FOUND: 'No existe ese comercio.',
    ORDER_NOT_FOUND: 'No existe un pedido con esa referencia en este modo.',
    COURIER_NOT_FOUND: 'No existe ese repartidor.',
    QUOTE_NOT_FOUND: 'La cotización no existe: cotiza de nuevo.',
    METHOD_NOT_ALLOWED: 'Esa operación no está permitida aquí.',
    CONFLICT: 'Alguien cambió esto al mismo tiempo: recarga y vuelve a intentar.',
    ORDER_NOT_CANCELLABLE: 'El pedido ya no se puede cancelar.',
    INVALID_STATUS_TRANSITION: 'El pedido no puede pasar a ese estado ahora.',
    QUOTE_EXPIRED: 'La cotización venció: cotiza de nuevo.',
    DELIVERY_PIN_LOCKED: 'Demasiados PIN incorrectos: la entrega quedó bloqueada.',
    TIP_NOT_ALLOWED: 'Este pedido ya no acepta propina (cancelado, devuelto o entregado hace más de 24 h).',
    COD_PAYOUT_EXCEEDS_CASH: 'El pago supera el efectivo que los repartidores ya entregaron para este comercio, menos lo ya pagado.',
    IDEMPOTENCY_KEY_IN_FLIGHT: 'La misma solicitud aún se está procesando: espera un momento.',
    PROOF_QUOTA_EXCEEDED: 'Esta parada ya tiene todas las fotos o firmas permitidas: usa una de las que enviaste.',
    EVENT_CURSOR_EXPIRED: 'Pasó demasiado tiempo sin conexión: recarga la página.',
    PAYLOAD_TOO_LARGE: 'Lo enviado es demasiado grande.',
    UNSUPPORTED_MEDIA_TYPE: 'Ese tipo de archivo no se acepta.',
    IDEMPOTENCY_KEY_REUSED: 'Esa solicitud ya se envió con otros datos.',
    QUOTE_MISMATCH: 'Los datos no coinciden con la cotización: cotiza de nuevo.',
    PARCEL_EXCEEDS_CAPACITY: 'El paquete no cabe en ningún vehículo.',
    DELIVERY_WINDOW_UNREACHABLE: 'No se alcanza a entregar en ese horario.',
    SCENARIO_NOT_SUPPORTED: 'Ese escenario de prueba no está disponible.',
    ID_CHECK_REQUIRED: 'Este pedido exige verificar la identidad del destinatario (RUT y fecha de nacimiento).',
    ID_DOCUMENT_INVALID: 'El RUT no es válido (formato o dígito verificador).',
    ID_CHECK_FAILED: 'El destinatario no tiene la edad mínima: no se entrega.',
    COD_COLLECTED_REQUIRED: 'Indica el efectivo cobrado al entregar este pedido contra entrega.',
    IMPLAUSIBLE_POSITION: 'Esa posición está demasiado lejos de la anterior para el tiempo transcurrido: se descartó.',
    RATE_LIMITED: 'Demasiados intentos: espera un momento.',
    PROOF_BUDGET_EXCEEDED: 'Alcanzaste el límite diario de imágenes enviadas: podrás enviar más mañana.',
    INTERNAL_ERROR: 'Algo falló en el servidor: inténtalo de nuevo.',
    SERVICE_UNAVAILABLE: 'El servicio no está disponible ahora: inténtalo en un momento.',
    PROOF_STORAGE_FULL: 'No hay espacio para guardar la imagen ahora: inténtalo más tarde.',
    NETWORK: 'Sin conexión con el servidor: revisa tu conexión a internet e inténtalo de nuevo.',
  },
  en: {
    VALIDATION_ERROR: 'Check the marked fields.',
    MALFORMED_JSON: 'The request arrived damaged: try again.',
    GEOCODING_FAILED: 'We could not find that address: check it or use coordinates.',
    OUTSIDE_SERVICE_AREA: 'The address is outside the delivery area.',
    WEIGHT_EXCEEDS_CAPACITY: 'The weight is more than any vehicle carries.',
    GEOFENCE_FAILED: 'The courier is too far from the drop-off.',
    TEST_MODE_MISMATCH: 'That belongs to the other mode (test / live).',
    PASSWORD_TOKEN_INVALID: 'The link is invalid or was already used: ask for a new invitation.',
    SIGN_IN_LINK_INVALID: 'The sign-in link is invalid or was already used.',
    DELIVERY_PIN_INVALID: 'The delivery PIN is wrong.',
    INVALID_API_KEY: 'The API key is not valid.',
    INVALID_SIGNATURE: 'The request signature is not valid.',
    INVALID_ADMIN_TOKEN: 'The administration credential is not valid.',
    INVALID_COURIER_TOKEN: "The courier's credential is not valid.",
    INVALID_CREDENTIALS: 'Wrong email or password.',
    INVALID_SESSION: 'Your session has ended: sign in again.',
    ACCOUNT_SUSPENDED: "The merchant's account is suspended.",
    INTEGRATION_IN_REVIEW: 'The integration is still in review.',
    FORBIDDEN: 'You have no access to this.',
    FORBIDDEN_ROLE: 'Your role does not allow this action.',
    CSRF_REQUIRED: 'The request did not come from the console: reload the page.',
    NOT_FOUND: 'It does not exist.',
    MERCHANT_NOT_FOUND: 'No such merchant.',
    ORDER_NOT_FOUND: 'No order with that reference in this mode.',
    COURIER_NOT_FOUND: 'No such courier.',
    QUOTE_NOT_FOUND: 'The quote does not exist: quote again.',
    METHOD_NOT_ALLOWED: 'That operation is not allowed here.',
    CONFLICT: 'Someone changed this at the same time: reload and try again.',
    ORDER_NOT_CANCELLABLE: 'The order can no longer be cancelled.',
    INVALID_STATUS_TRANSITION: 'The order cannot move to that status now.',
    QUOTE_EXPIRED: 'The quote has expired: quote again.',
    DELIVERY_PIN_LOCKED: 'Too many wrong PINs: the delivery is locked.',
    TIP_NOT_ALLOWED: 'This order takes no more tips (cancelled, returned, or delivered over 24 h ago).',
    COD_PAYOUT_EXCEEDS_CASH: 'The payout is more than the cash couriers have handed over for this merchant, minus what was already paid.',
    IDEMPOTENCY_KEY_IN_FLIGHT: 'The same request is still being processed: wait a moment.',
    PROOF_QUOTA_EXCEEDED: 'This stop already has all the photos or signatures allowed: use one you sent.',
    EVENT_CURSOR_EXPIRED: 'Offline for too long: reload the page.',
    PAYLOAD_TOO_LARGE: 'What was sent is too large.',
    UNSUPPORTED_MEDIA_TYPE: 'That file type is not accepted.',
    IDEMPOTENCY_KEY_REUSED: 'That request was already sent with other data.',
    QUOTE_MISMATCH: 'The data do not match the quote: quote again.',
    PARCEL_EXCEEDS_CAPACITY: 'The parcel fits no vehicle.',
    DELIVERY_WINDOW_UNREACHABLE: 'Delivery cannot make that time window.',
    SCENARIO_NOT_SUPPORTED: 'That test scenario is not available.',
    ID_CHECK_REQUIRED: "This order needs the recipient's ID checked (RUT and date of birth).",
    ID_DOCUMENT_INVALID: 'The RUT is invalid (format or check digit).',
    ID_CHECK_FAILED: 'The recipient is under the minimum age: no delivery.',
    COD_COLLECTED_REQUIRED: 'Give the cash collected to deliver this cash-on-delivery order.',
    IMPLAUSIBLE_POSITION: 'That position is too far from the previous one for the time between them: it was discarded.',
    RATE_LIMITED: 'Too many attempts: wait a moment.',
    PROOF_BUDGET_EXCEEDED: 'You reached the daily limit of images sent: you can send more tomorrow.',
    INTERNAL_ERROR: 'Something failed on the server: try again.',
    SERVICE_UNAVAILABLE: 'The service is unavailable right now: try again shortly.',
    PROOF_STORAGE_FULL: 'There is no room to store the image right now: try again later.',
    NETWORK: 'No connection to the server: check your internet connection and try again.',
  },
};

export const isErrorCode = (code: string): code is ErrorCode => code in ERROR_TEXT.es;

export const VEHICLE_LABELS: Strings<'bike' | 'motorcycle' | 'car' | 'van'> = {
  es: { bike: 'Bicicleta', motorcycle: 'Moto', car: 'Auto', van: 'Furgón' },
  en: { bike: 'Bike', motorcycle: 'Motorcycle', car: 'Car', van: 'Van' },
};

/** Quote rates by id (the server's `name` is English). */
export const RATE_LABELS: Strings<'express' | 'batched'> = {
  es: { express: 'Exprés', batched: 'Agrupado (ruta compartida)' },
  en: { express: 'Express', batched: 'Batched (shared route)' },
};

export const rateText = (id: string, lang: Lang) => RATE_LABELS[lang][id as 'express'] ?? id;

/** Who moved an order (OrderEvent.actorKind). */
export const ACTOR_LABELS: Strings<'merchant' | 'courier' | 'system' | 'admin'> = {
  es: { merchant: 'comercio', courier: 'repartidor', system: 'sistema', admin: 'administración' },
  en: { merchant: 'merchant', courier: 'courier', system: 'system', admin: 'administration' },
};

/** The history notes the service writes itself (src/domain/orders/notes.ts), by their English text. */
export const NOTE_LABELS: Record<Lang, Record<string, string>> = {
  es: {
    'consolidated into a batch': 'agrupado en un lote',
    'courier disabled by an administrator': 'un administrador desactivó al repartidor',
    'sandbox run: cancelled after assignment': 'prueba: cancelado tras la asignación',
    'sandbox run: the courier dropped out': 'prueba: el repartidor se retiró',
    'released by an operator': 'liberado por un operador',
    'reassigned by an operator': 'reasignado por un operador',
    'courier dropped out': 'el repartidor devolvió el pedido',
    'geofence bypassed': 'entrega fuera de la geocerca, autorizada',
    'geofence unverified: the drop-off is known only to its comuna (locality precision)': 'geocerca sin verificar: del destino solo se conoce la comuna',
  },
  en: {
    'consolidated into a batch': 'consolidated into a batch',
    'courier disabled by an administrator': 'courier disabled by an administrator',
    'sandbox run: cancelled after assignment': 'sandbox run: cancelled after assignment',
    'sandbox run: the courier dropped out': 'sandbox run: the courier dropped out',
    'released by an operator': 'released by an operator',
    'reassigned by an operator': 'reassigned by an operator',
    'courier dropped out': 'the courier handed the order back',
    'geofence bypassed': 'delivered outside the geofence, authorised',
    'geofence unverified: the drop-off is known only to its comuna (locality precision)': 'geofence unverified: only the comuna of the drop-off is known',
  },
};

/** Why a courier could not deliver (FailedAttempt.reason). */
export const FAILED_REASON_LABELS: Strings<'recipient_absent' | 'refused' | 'wrong_address' | 'unsafe' | 'other'> = {
  es: { recipient_absent: 'no había nadie', refused: 'el destinatario lo rechazó', wrong_address: 'dirección incorrecta', unsafe: 'lugar inseguro', other: 'otro motivo' },
  en: { recipient_absent: 'nobody was there', refused: 'the recipient refused it', wrong_address: 'wrong address', unsafe: 'unsafe place', other: 'another reason' },
};

/** What a failed attempt leads to (Order.failedAttemptPolicy). */
export const FAILED_POLICY_LABELS: Strings<'retry' | 'return' | 'dispose'> = {
  es: { retry: 'reintentar la entrega (hasta 3 intentos), luego devolver', return: 'devolver a la tienda', dispose: 'desechar el paquete' },
  en: { retry: 'retry the delivery (up to 3 attempts), then return', return: 'return to the shop', dispose: 'dispose of the parcel' },
};

/** Why the sending budget refused a recipient notification (issue #39 item 3): said to a person, never the raw code. */
export const BLOCK_REASON_LABELS: Strings<'country_not_allowed' | 'number_hourly_cap' | 'number_daily_cap' | 'merchant_hourly_cap' | 'merchant_daily_cap' | 'cancelled_early'> = {
  es: {
    country_not_allowed: 'el número es de un país no habilitado para tu cuenta (solo Chile, salvo que soporte habilite otro)',
    number_hourly_cap: 'este número ya recibió el máximo de mensajes por hora',
    number_daily_cap: 'este número ya recibió el máximo de mensajes del día',
    merchant_hourly_cap: 'tu cuenta alcanzó el máximo de mensajes por hora',
    merchant_daily_cap: 'tu cuenta alcanzó el máximo de mensajes del día',
    cancelled_early: 'el pedido se canceló antes de que saliera el aviso',
  },
  en: {
    country_not_allowed: "the number is in a country not enabled for your account (Chile only, unless support enables another)",
    number_hourly_cap: 'this number already got the most messages allowed per hour',
    number_daily_cap: 'this number already got the most messages allowed per day',
    merchant_hourly_cap: 'your account reached its hourly message limit',
    merchant_daily_cap: 'your account reached its daily message limit',
    cancelled_early: 'the order was cancelled before the message went out',
  },
};
export const blockReasonText = (reason: string, lang: Lang) => BLOCK_REASON_LABELS[lang][reason as 'cancelled_early'] ?? '';

export const actorText = (kind: string, lang: Lang) => ACTOR_LABELS[lang][kind as 'merchant'] ?? kind;

/**
 * A history note: the service's own and a failed attempt's reason (issue #38 item 5: `recipient_absent`
 * is never shown raw) in the page's language; a person's (a cancel reason) as written.
 */
export const noteText = (note: string, lang: Lang) => NOTE_LABELS[lang][note] ?? (FAILED_REASON_LABELS[lang] as Record<string, string>)[note] ?? note;

/** Why an outbox message was not sent, by the code the server gives (Notification.lastErrorCode); `{channel}` is the message's channel. */
export const NOTIFICATION_ERROR_LABELS: Strings<'channel_not_configured'> = {
  es: { channel_not_configured: 'No se envió: este servidor no tiene proveedor de {channel} configurado (lo configura la operación).' },
  en: { channel_not_configured: 'Not sent: this server has no {channel} provider configured (operations set it up).' },
};
const CHANNEL_NAMES: Strings<'sms' | 'whatsapp' | 'email'> = {
  es: { sms: 'SMS', whatsapp: 'WhatsApp', email: 'correo' },
  en: { sms: 'SMS', whatsapp: 'WhatsApp', email: 'e-mail' },
};

/** An outbox error in the reader's language: by its code when the server gave one, else the provider's words. */
export function notificationErrorText(n: { lastError: string | null; lastErrorCode?: string | null; channel: string }, lang: Lang): string | null {
  const worded = n.lastErrorCode ? (NOTIFICATION_ERROR_LABELS[lang] as Record<string, string>)[n.lastErrorCode] : undefined;
  if (worded) return worded.replace('{channel}', (CHANNEL_NAMES[lang] as Record<string, string>)[n.channel] ?? n.channel);
  return n.lastError;
}

/**
 * Field messages the service words itself (src/domain/validation.ts, the webhook URL checks, the
 * scheduling and format rules), by their English text; zod's own are read by their start
 * (FIELD_PREFIXES); any other becomes `invalid`. Shown next to the field, after its label.
 */
export const FIELD_TEXT: Record<Lang, Record<string, string>> = {
  es: {
    'is required': 'es obligatorio', 'unknown field': 'no es un campo conocido', invalid: 'no es válido',
    'live webhook URLs must use https': 'en modo real la URL debe empezar con https://',
    'credentials in the URL are not allowed': 'la URL no puede llevar usuario ni contraseña',
    'the URL points at a private, loopback or link-local address': 'la URL apunta a una dirección privada o local: usa una dirección pública de internet',
    "the URL points at a private or link-local address (sandbox webhooks may reach this machine's loopback, nothing else private)": 'la URL apunta a una dirección privada: en prueba solo se acepta este mismo equipo (localhost) o una dirección pública',
    'must include the country code, e.g. +56912345678': 'incluye el código de país, por ejemplo +56912345678',
    'not a valid RUT (format or check digit)': 'no es un RUT válido (formato o dígito verificador)',
    'must be 4 digits': 'deben ser 4 dígitos',
    'Invalid URL': 'no es una dirección web válida (https://…)',
    'Invalid email address': 'no es un correo válido',
    'Invalid ISO datetime': 'no es una fecha y hora válida',
    'The requested pickup time is in the past': 'la hora de retiro ya pasó',
    'The requested pickup time is more than 7 days ahead': 'el retiro puede programarse hasta 7 días adelante',
    'The requested delivery deadline is in the past': 'la hora límite de entrega ya pasó',
    'The requested delivery deadline is more than 7 days ahead': 'la hora límite puede estar hasta 7 días adelante',
    'The requested delivery deadline is earlier than the earliest possible delivery': 'no alcanzamos a entregar antes de esa hora: elige una más tarde',
    'Too small': 'es demasiado pequeño o corto',
    'Too big': 'es demasiado grande o largo',
  },
  en: {
    'is required': 'is required', 'unknown field': 'is not a known field', invalid: 'is not valid',
    'live webhook URLs must use https': 'in live mode the URL must start with https://',
    'credentials in the URL are not allowed': 'the URL may not carry a user name or password',
    'the URL points at a private, loopback or link-local address': 'the URL points at a private or local address: use a public internet address',
    "the URL points at a private or link-local address (sandbox webhooks may reach this machine's loopback, nothing else private)": 'the URL points at a private address: in test only this machine (localhost) or a public address is accepted',
    'must include the country code, e.g. +56912345678': 'include the country code, e.g. +56912345678',
    'not a valid RUT (format or check digit)': 'is not a valid RUT (format or check digit)',
    'must be 4 digits': 'must be 4 digits',
    'Invalid URL': 'is not a valid web address (https://…)',
    'Invalid email address': 'is not a valid email address',
    'Invalid ISO datetime': 'is not a valid date and time',
    'The requested pickup time is in the past': 'the pickup time has passed',
    'The requested pickup time is more than 7 days ahead': 'a pickup may be scheduled up to 7 days ahead',
    'The requested delivery deadline is in the past': 'the delivery deadline has passed',
    'The requested delivery deadline is more than 7 days ahead': 'the deadline may be up to 7 days ahead',
    'The requested delivery deadline is earlier than the earliest possible delivery': 'we cannot deliver by then: choose a later time',
    'Too small': 'is too small or short',
    'Too big': 'is too large or long',
  },
};

/** Messages read by their start: zod's ("Too small: expected …") and those that carry a value ("… delivery (2026-…)"). */
const FIELD_PREFIXES = ['Too small', 'Too big', 'The requested delivery deadline is earlier than the earliest possible delivery'];

/** The reason the API gave for one field, in the page's language (never the server's English). */
export function fieldReason(message: string, lang: Lang): string {
  const key = Object.hasOwn(FIELD_TEXT.es, message) ? message : FIELD_PREFIXES.find((prefix) => message.startsWith(prefix));
  return (key && FIELD_TEXT[lang][key]) || FIELD_TEXT[lang].invalid!;
}

export const fieldText = (field: { field: string; message: string }, lang: Lang) => `${field.field}: ${fieldReason(field.message, lang)}`;

/** Said after a refusal the catalog has no words for: what the person can do next. */
export const UNKNOWN_ERROR_TEXT: Record<Lang, string> = {
  es: 'No se pudo completar. Revisa los datos e inténtalo de nuevo; si vuelve a pasar, recarga la página o escribe a soporte.',
  en: 'This could not be completed. Check the data and try again; if it happens again, reload the page or contact support.',
};
