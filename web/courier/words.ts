import type { ErrorWords } from '../shared/api/errors.js';
import type { Strings } from '../shared/i18n.js';
import type { FailedReason } from './api.js';

/** Why a delivery failed, as the courier picks it. */
export const FAILED_REASON_WORDS: Strings<FailedReason> = {
  es: { recipient_absent: 'No había nadie', refused: 'El cliente lo rechazó', wrong_address: 'Dirección incorrecta', unsafe: 'Lugar inseguro', other: 'Otro motivo' },
  en: { recipient_absent: 'Nobody was there', refused: 'The customer refused it', wrong_address: 'Wrong address', unsafe: 'Unsafe place', other: 'Another reason' },
};

/** The refusals a courier meets, in the courier's words (by the API's error code). */
export const COURIER_ERRORS: ErrorWords = {
  es: {
    INVALID_SESSION: 'Tu sesión terminó: abre un enlace de acceso nuevo.',
    SIGN_IN_LINK_INVALID: 'Este enlace no es válido, ya se usó o venció: pide uno nuevo a tu central.',
    INVALID_STATUS_TRANSITION: 'Ese paso no corresponde al estado actual del pedido.',
    GEOFENCE_FAILED: 'Estás demasiado lejos del destino para entregar: acércate a la dirección.',
    DELIVERY_PIN_INVALID: 'El PIN no es correcto: pídeselo de nuevo al cliente.',
    DELIVERY_PIN_LOCKED: 'Demasiados PIN incorrectos: el pedido quedó bloqueado. Llama a tu central.',
    ID_CHECK_REQUIRED: 'Este pedido exige verificar la identidad del cliente.',
    ID_DOCUMENT_INVALID: 'El RUT no es válido: revisa el dígito verificador.',
    ID_CHECK_FAILED: 'El cliente no tiene la edad mínima: no entregues el pedido. Llama a tu central.',
    COD_COLLECTED_REQUIRED: 'Indica el efectivo que cobraste al cliente.',
    FORBIDDEN: 'Este pedido ya no está asignado a ti.',
    ORDER_NOT_FOUND: 'Este pedido ya no está asignado a ti.',
    PAYLOAD_TOO_LARGE: 'La imagen es demasiado grande.',
    UNSUPPORTED_MEDIA_TYPE: 'La imagen debe ser JPEG, PNG o WebP.',
    PROOF_QUOTA_EXCEEDED: 'Ya enviaste el máximo de fotos o firmas para esta parada: usa la que ya enviaste.',
    PROOF_BUDGET_EXCEEDED: 'Llegaste al límite diario de imágenes: podrás enviar más mañana. Llama a tu central si lo necesitas hoy.',
    PROOF_STORAGE_FULL: 'No hay espacio para guardar la imagen: inténtalo más tarde o llama a tu central.',
    VALIDATION_ERROR: 'Faltan datos o no son válidos.',
    CSRF_REQUIRED: 'La app no pudo enviar la solicitud: recárgala.',
    RATE_LIMITED: 'Demasiadas solicitudes: espera un momento.',
    SERVICE_UNAVAILABLE: 'El servicio no responde: inténtalo en un momento.',
    NETWORK: 'Sin conexión: inténtalo cuando vuelva la señal.',
  },
  en: {
    INVALID_SESSION: 'Your session has ended: open a new sign-in link.',
    SIGN_IN_LINK_INVALID: 'This link is invalid, already used or expired: ask your dispatcher for a new one.',
    INVALID_STATUS_TRANSITION: 'That step does not fit the order\'s current status.',
    GEOFENCE_FAILED: 'You are too far from the drop-off to deliver: get closer to the address.',
    DELIVERY_PIN_INVALID: 'The PIN is wrong: ask the customer again.',
    DELIVERY_PIN_LOCKED: 'Too many wrong PINs: the order is locked. Call your dispatcher.',
    ID_CHECK_REQUIRED: "This order needs the customer's ID checked.",
    ID_DOCUMENT_INVALID: 'The RUT is invalid: check the check digit.',
    ID_CHECK_FAILED: 'The customer is under the minimum age: do not hand the order over. Call your dispatcher.',
    COD_COLLECTED_REQUIRED: 'Enter the cash you collected from the customer.',
    FORBIDDEN: 'This order is no longer assigned to you.',
    ORDER_NOT_FOUND: 'This order is no longer assigned to you.',
    PAYLOAD_TOO_LARGE: 'The image is too large.',
    UNSUPPORTED_MEDIA_TYPE: 'The image must be a JPEG, PNG or WebP.',
    PROOF_QUOTA_EXCEEDED: 'You already sent the most photos or signatures for this stop: use the one you sent.',
    PROOF_BUDGET_EXCEEDED: 'You reached the daily limit of images: you can send more tomorrow. Call your dispatcher if you need to today.',
    PROOF_STORAGE_FULL: 'There is no room to store the image: try again later or call your dispatcher.',
    VALIDATION_ERROR: 'Some details are missing or invalid.',
    CSRF_REQUIRED: 'The app could not send the request: reload it.',
    RATE_LIMITED: 'Too many requests: wait a moment.',
    SERVICE_UNAVAILABLE: 'The service is not answering: try again shortly.',
    NETWORK: 'No connection: try again when the signal is back.',
  },
};
