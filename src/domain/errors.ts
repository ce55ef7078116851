/**
 * The one closed list of error codes and the one code → HTTP status table.
 * REST presents these as `{ success: false, error: { code, message } }`; GraphQL mutations return
 * them as the typed `AppError` result.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  MALFORMED_JSON: 400,
  GEOCODING_FAILED: 400,
  OUTSIDE_SERVICE_AREA: 400,
  WEIGHT_EXCEEDS_CAPACITY: 400,
  GEOFENCE_FAILED: 400,
  TEST_MODE_MISMATCH: 400,
  PASSWORD_TOKEN_INVALID: 400,
  SIGN_IN_LINK_INVALID: 400,
  DELIVERY_PIN_INVALID: 400,
  INVALID_API_KEY: 401,
  INVALID_SIGNATURE: 401,
  INVALID_ADMIN_TOKEN: 401,
  INVALID_COURIER_TOKEN: 401,
  INVALID_CREDENTIALS: 401,
  INVALID_SESSION: 401,
  ACCOUNT_SUSPENDED: 403,
  INTEGRATION_IN_REVIEW: 403,
  FORBIDDEN: 403,
  FORBIDDEN_ROLE: 403,
  CSRF_REQUIRED: 403,
  NOT_FOUND: 404,
  MERCHANT_NOT_FOUND: 404,
  ORDER_NOT_FOUND: 404,
  COURIER_NOT_FOUND: 404,
  QUOTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  ORDER_NOT_CANCELLABLE: 409,
  INVALID_STATUS_TRANSITION: 409,
  QUOTE_EXPIRED: 409,
  DELIVERY_PIN_LOCKED: 409,
  TIP_NOT_ALLOWED: 409,
  COD_PAYOUT_EXCEEDS_CASH: 409,
  IDEMPOTENCY_KEY_IN_FLIGHT: 409,
  PROOF_QUOTA_EXCEEDED: 409,
  EVENT_CURSOR_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  QUOTE_MISMATCH: 422,
  PARCEL_EXCEEDS_CAPACITY: 422,
  DELIVERY_WINDOW_UNREACHABLE: 422,
  SCENARIO_NOT_SUPPORTED: 422,
  ID_CHECK_REQUIRED: 422,
  ID_DOCUMENT_INVALID: 422,
  ID_CHECK_FAILED: 422,
  COD_COLLECTED_REQUIRED: 422,
  IMPLAUSIBLE_POSITION: 422,
  RATE_LIMITED: 429,
  PROOF_BUDGET_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  PROOF_STORAGE_FULL: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface FieldError {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly fields: FieldError[] | undefined;

  constructor(code: ErrorCode, message: string, extra: { details?: Record<string, unknown>; fields?: FieldError[] } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.details = extra.details;
    this.fields = extra.fields;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/**
 * GEOFENCE_FAILED with its measurements as typed fields (GraphQL's `GeofenceError`); REST shows
 * the same numbers as `error.details.distance_m` / `radius_m`.
 */
export class GeofenceError extends AppError {
  readonly distanceM: number;
  readonly radiusM: number;

  constructor(options: { distanceM: number; radiusM: number }) {
    super('GEOFENCE_FAILED', `The courier is ${options.distanceM} m from the drop-off; the geofence allows ${options.radiusM} m`, {
      details: { distance_m: options.distanceM, radius_m: options.radiusM },
    });
    this.name = 'GeofenceError';
    this.distanceM = options.distanceM;
    this.radiusM = options.radiusM;
  }
}

/** The largest vehicle class's limits, which a parcel exceeded (null: that class has no such limit). */
export interface VehicleLimits {
  vehicleType: string;
  maxKg: number;
  maxVolumeL: number | null;
  maxLengthCm: number | null;
}

/**
 * PARCEL_EXCEEDS_CAPACITY with the largest vehicle's limits as typed fields (GraphQL's
 * `ParcelCapacityError`); REST shows them in `error.details.limits`, with the parcel's own figures.
 */
export class ParcelCapacityError extends AppError {
  readonly limits: VehicleLimits;

  constructor(options: { limits: VehicleLimits; parcel: { weightKg: number; volumeL: number; longestCm: number } }) {
    const { limits, parcel } = options;
    super('PARCEL_EXCEEDS_CAPACITY', `No vehicle carries a parcel of ${parcel.volumeL} L with a ${parcel.longestCm} cm side; the largest (${limits.vehicleType}) takes ${limits.maxVolumeL ?? 'any'} L and ${limits.maxLengthCm ?? 'any'} cm`, {
      details: {
        limits: { vehicle_type: limits.vehicleType, max_kg: limits.maxKg, max_volume_l: limits.maxVolumeL, max_length_cm: limits.maxLengthCm },
        parcel: { weight_kg: parcel.weightKg, volume_l: parcel.volumeL, longest_cm: parcel.longestCm },
      },
    });
    this.name = 'ParcelCapacityError';
    this.limits = limits;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** The wire form of an error, identical for every transport. */
export function presentError(error: AppError): {
  success: false;
  error: { code: ErrorCode; message: string; fields?: FieldError[]; details?: Record<string, unknown> };
} {
  return {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.fields ? { fields: error.fields } : {}),
      ...(error.details ? { details: error.details } : {}),
    },
  };
}
