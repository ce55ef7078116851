import type { Lang } from '../i18n.js';

/** A refusal from the API: the AppError code (typed result or GraphQL error) and its message. */
export class ApiError extends Error {
  constructor(readonly code: string, message: string, readonly details?: Record<string, unknown>) {
    super(message);
  }
}

let sessionEnded: () => void = () => undefined;

/** Called when the API says the session is over (signed out elsewhere, expired, member removed). */
export function onSessionEnded(handler: () => void): void {
  sessionEnded = handler;
}

/** The API's refusal as an error to throw; an ended session also tells the app (back to sign-in). */
export function refusal(code: string, message: string, details?: Record<string, unknown>): ApiError {
  if (code === 'INVALID_SESSION') sessionEnded();
  return new ApiError(code, message, details);
}

/** A typed result: `…Success { data }` or `AppError { code message }` (both selected with __typename). */
type Outcome = { __typename: string };
type DataOf<R> = R extends { data: infer D } ? D : never;

export function dataOf<R extends Outcome>(outcome: R): DataOf<R> {
  if ('data' in outcome) return outcome.data as DataOf<R>;
  const error = outcome as { code?: string; message?: string };
  throw refusal(error.code ?? 'INTERNAL_ERROR', error.message ?? `Unexpected ${outcome.__typename}`);
}

const KNOWN: Record<Lang, Record<string, string>> = {
  es: {
    FORBIDDEN_ROLE: 'Tu rol no permite esta acción.',
    INVALID_CREDENTIALS: 'Comercio, correo o contraseña incorrectos.',
    INVALID_SESSION: 'Tu sesión terminó: inicia sesión de nuevo.',
    RATE_LIMITED: 'Demasiados intentos: espera un momento.',
    PASSWORD_TOKEN_INVALID: 'El enlace no es válido o ya se usó: pide una nueva invitación.',
    ORDER_NOT_FOUND: 'No existe un pedido con esa referencia en este modo.',
    ORDER_NOT_CANCELLABLE: 'El pedido ya no se puede cancelar.',
    NETWORK: 'Sin conexión con el servidor.',
  },
  en: {
    FORBIDDEN_ROLE: 'Your role does not allow this action.',
    INVALID_CREDENTIALS: 'Wrong merchant, email or password.',
    INVALID_SESSION: 'Your session has ended: sign in again.',
    RATE_LIMITED: 'Too many attempts: wait a moment.',
    PASSWORD_TOKEN_INVALID: 'The link is invalid or was already used: ask for a new invitation.',
    ORDER_NOT_FOUND: 'No order with that reference in this mode.',
    ORDER_NOT_CANCELLABLE: 'The order can no longer be cancelled.',
    NETWORK: 'No connection to the server.',
  },
};

/** An app's own wording for some codes (its audience's words), before the room's. */
export type ErrorWords = Record<Lang, Record<string, string>>;

/** What the page shows for a failure: our wording for the codes people meet, else the server's message. */
export function messageOf(error: unknown, lang: Lang, words?: ErrorWords): { code: string; text: string } {
  if (error instanceof ApiError) return { code: error.code, text: words?.[lang][error.code] ?? KNOWN[lang][error.code] ?? error.message };
  return { code: 'NETWORK', text: words?.[lang].NETWORK ?? KNOWN[lang].NETWORK! };
}
