import { rest } from '../shared/api/rest.js';
import type { Status } from '../shared/ui/status.js';
import type { CourierMove } from '../shared/vocabulary.generated.js';
import type { Fix } from './coalesce.js';

/** The courier app's REST calls (docs/courier-app-api.md): the session cookie, the CSRF header on every write. */
const CSRF = { 'x-courier-csrf': '1' };

export interface LatLng { lat: number; lng: number }

export interface Courier {
  id: string;
  name: string;
  phone: string;
  vehicle_type: string;
  vehicle_plate: string;
  status: 'off_duty' | 'available' | 'busy';
  is_test: boolean;
  location: LatLng | null;
  location_at: string | null;
  /** When the duty is planned to end (set going on duty); null: no planned end. Absent from a snapshot stored by an older app. */
  shift_ends_at?: string | null;
}

export interface Stop { address: string | null; number: string | null; instructions: string | null; coords: LatLng; precision: 'coordinates' | 'street' | 'locality' }

export interface CourierOrder {
  booking_id: string;
  status: Status;
  tracking_number: string;
  order_number?: string | null;
  reference_id?: string | null;
  pickup: Stop;
  dropoff: Stop;
  customer_name: string;
  /** Only while the job is open (on the way to the recipient); null after (issue #38). */
  customer_phone: string | null;
  payment_mode: 'prepaid' | 'cash_on_delivery' | null;
  items: Array<{ name?: string; quantity?: number; weight_kg?: number; length_cm?: number; width_cm?: number; height_cm?: number }> | null;
  /** The parcel's outer size as the merchant gave it (cm), and the order's weight (kg). */
  dimensions?: { length_cm: number; width_cm: number; height_cm: number } | null;
  total_weight_kg?: number;
  /** CLP: the tip for the courier (0: none). */
  tip?: number;
  order_notes: string | null;
  price: number;
  currency: string;
  estimated_pickup_time: string | null;
  estimated_delivery_time: string | null;
  delivery_pin_required: boolean;
  /** The recipient's ID is checked before the delivery (null: not asked). */
  id_check?: { required: true; min_age: number } | null;
  /** Cash on delivery: CLP to collect at the door (null: prepaid). */
  cod_amount?: number | null;
  /** A multi-stop order's stops in route order (issue #30); absent on a single drop-off. */
  stops?: CourierStop[];
  /** Set by the app on a multi-stop order: the current stop, which arrive, deliver and a failed attempt name. */
  stop_id?: string;
}

export interface CourierStop {
  id: string;
  index: number;
  status: 'pending' | 'arrived' | 'delivered' | 'failed';
  eta: string;
  address: Stop;
  contact_name: string;
  contact_phone: string | null;
  reference: string | null;
  items?: CourierOrder['items'];
  delivery_pin_required: boolean;
}

/** Cash collected at doors minus handed over (issue #30). */
export interface CourierCash { currency: 'CLP'; collected: number; settled: number; balance: number; /** Claims far above their order's amount, waiting for an operator (issue #39). */ pending_confirmation?: number }

export const FAILED_REASONS = ['recipient_absent', 'refused', 'wrong_address', 'unsafe', 'other'] as const;
export type FailedReason = (typeof FAILED_REASONS)[number];

export interface UploadedProof { proof_id: string; kind: 'photo' | 'signature'; content_type: string; bytes: number }

/** GET /couriers/me/earnings (CLP): `delivery_pay` null while the tariff sets no courier pay. */
export interface Earnings {
  from: string;
  to: string;
  currency: 'CLP';
  deliveries: Array<{ booking_id: string; order_number: string; delivered_at: string; dropoff_address: string; delivery_pay: number | null; tip: number }>;
  totals: { deliveries: number; delivery_pay: number | null; tips: number; earnings: number };
  truncated: boolean;
}

const order = (id: string) => `/couriers/me/orders/${encodeURIComponent(id)}`;
/** One key per attempt: a retry after a dead zone is not done twice. */
const idempotent = () => ({ ...CSRF, 'idempotency-key': `app-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}` });

export const courierApi = {
  signIn: (code: string) => rest<{ courier: Courier; expires_at: string }>('/couriers/sessions', { json: { code } }),
  signOut: () => rest<void>('/couriers/sessions/current', { method: 'DELETE', headers: CSRF }),
  me: () => rest<{ courier: Courier }>('/couriers/me').then((d) => d.courier),
  orders: () => rest<{ orders: CourierOrder[] }>('/couriers/me/orders').then((d) => d.orders),
  cash: () => rest<{ cash: CourierCash }>('/couriers/me/cash').then((d) => d.cash),
  earnings: (range: { from: string; to: string }) => rest<Earnings>(`/couriers/me/earnings?${new URLSearchParams(range).toString()}`),
  duty: (onDuty: boolean, shiftEndsAt?: string) =>
    rest<{ courier: Courier }>('/couriers/me/duty', { json: { on_duty: onDuty, ...(shiftEndsAt && { shift_ends_at: shiftEndsAt }) }, headers: idempotent() }).then((d) => d.courier),
  position: (fix: Fix) => rest<{ arrivals: unknown[] }>('/couriers/me/location', { json: fix, headers: CSRF }),
  advance: (id: string, status: CourierMove, stopId?: string) =>
    rest<{ booking_id: string; status: Status }>(`${order(id)}/status`, { json: { status, ...(stopId && status === 'arrived_dropoff' && { stop_id: stopId }) }, headers: idempotent() }),
  /** Hands an assigned job back before the pickup (declines it): the order goes back to dispatch. */
  release: (id: string) => rest<{ booking_id: string; status: Status }>(`${order(id)}/release`, { json: {}, headers: idempotent() }),
  uploadProof: (id: string, kind: 'photo' | 'signature', image: Blob) =>
    rest<UploadedProof>(`${order(id)}/proof?kind=${kind}`, { bytes: image, headers: CSRF }),
  deliver: (id: string, body: { driver_id: string; coords: LatLng; photo_proof_id: string; signature_proof_id: string; pin?: string; id_check?: { document_number: string; date_of_birth: string }; cod_collected?: number; stop_id?: string }) =>
    rest<{ booking_id: string; status: Status }>(`${order(id)}/deliver`, { json: body, headers: idempotent() }),
  /** `status` is where the order's policy moved it: `picked_up` (try again), `returning` or `disposed`. */
  failedAttempt: (id: string, body: { reason: FailedReason; note?: string; photo_proof_id?: string; coords: LatLng; stop_id?: string }) =>
    rest<{ booking_id: string; status: Status; attempts: number }>(`${order(id)}/failed-attempt`, { json: body, headers: idempotent() }),
  returnToPickup: (id: string, body: { coords: LatLng; photo_proof_id: string; signature_proof_id: string }) =>
    rest<{ booking_id: string; status: Status }>(`${order(id)}/return`, { json: body, headers: idempotent() }),
};
