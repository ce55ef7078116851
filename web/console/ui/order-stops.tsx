import { FAILED_REASON_LABELS } from '../../shared/catalog.js';
import { useLang } from '../../shared/context.js';
import { dateTime, placeOf } from '../../shared/format.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { GEOFENCE_LABELS, ProofImage } from './proof-image.js';

type StopStatus = 'pending' | 'arrived' | 'delivered' | 'failed';

/** A stop's status, as the console says it. */
const STOP_STATUS_LABELS: Strings<StopStatus> = {
  es: { pending: 'Pendiente', arrived: 'Repartidor en la puerta', delivered: 'Entregada', failed: 'No entregada' },
  en: { pending: 'Pending', arrived: 'Courier at the door', delivered: 'Delivered', failed: 'Not delivered' },
};

const S: Strings<'title' | 'given' | 'optimized' | 'eta' | 'contact' | 'tracking' | 'deliveredAt' | 'geofence' | 'photo' | 'signature' | 'reason' | 'attemptPhoto'> = {
  es: {
    title: 'Paradas', given: 'en el orden indicado', optimized: 'en orden optimizado', eta: 'Llegada estimada', contact: 'Contacto', tracking: 'Seguimiento de la parada',
    deliveredAt: 'Entregada', geofence: 'Geocerca', photo: 'Foto', signature: 'Firma', reason: 'Motivo', attemptPhoto: 'Foto del intento',
  },
  en: {
    title: 'Stops', given: 'in the given order', optimized: 'in optimised order', eta: 'Estimated arrival', contact: 'Contact', tracking: 'Stop tracking',
    deliveredAt: 'Delivered', geofence: 'Geofence', photo: 'Photo', signature: 'Signature', reason: 'Reason', attemptPhoto: 'Photo of the attempt',
  },
};

/** "3 paradas" / "3 stops": the orders list's mark of a multi-stop order. */
export const stopCount = (n: number, lang: 'es' | 'en') => (lang === 'es' ? `${n} paradas` : `${n} stops`);

interface Proof { deliveredAt: string; geofence: keyof (typeof GEOFENCE_LABELS)['es']; distanceM: number; photoUrl: string; signatureUrl: string }
interface Stop {
  id: string; index: number; status: StopStatus; eta: string; contactName: string; contactPhone: string | null; reference: string | null; trackingUrl: string;
  address: { address: string | null; lat: number; lng: number; precision: string }; proof: Proof | null;
  failure: { at: string; reason: keyof (typeof FAILED_REASON_LABELS)['es']; note: string | null; photoUrl: string | null } | null;
}

/** A multi-stop order's stops in route order (issue #30 item 1): status, ETA, contact, proof or failure, each stop's own tracking link. */
export function OrderStops({ route, stops }: { route: 'given' | 'optimized' | null; stops: readonly Stop[] | null }) {
  const t = useStrings(S);
  const lang = useLang();
  if (!stops?.length) return null;
  return (
    <section class="card" id="stops" aria-labelledby="stops-title" data-route={route}>
      <h2 id="stops-title">{t.title} <small>{route && t[route]}</small></h2>
      <ol id="stop-list" class="timeline">
        {stops.map((s) => (
          <li key={s.id} data-stop-id={s.id} data-status={s.status}>
            <strong class="stop-address">{placeOf(s.address)}</strong> · <span class="stop-status">{STOP_STATUS_LABELS[lang][s.status]}</span>
            <dl class="facts">
              <dt>{t.eta}</dt><dd>{dateTime(s.eta, lang)}</dd>
              <dt>{t.contact}</dt><dd>{s.contactName}{s.contactPhone && ` · ${s.contactPhone}`}{s.reference && ` · ${s.reference}`}</dd>
              <dt>{t.tracking}</dt><dd><a class="stop-tracking" href={s.trackingUrl}>{t.tracking} {s.index + 1}</a></dd>
              {s.proof && <><dt>{t.deliveredAt}</dt><dd>{dateTime(s.proof.deliveredAt, lang)} · {t.geofence} <span class="stop-geofence" data-geofence={s.proof.geofence}>{GEOFENCE_LABELS[lang][s.proof.geofence]}</span> · {Math.round(s.proof.distanceM)} m</dd></>}
              {s.failure && <><dt>{t.reason}</dt><dd class="stop-failure" data-reason={s.failure.reason}>{FAILED_REASON_LABELS[lang][s.failure.reason]}{s.failure.note && ` · “${s.failure.note}”`}</dd></>}
            </dl>
            {(s.proof || s.failure?.photoUrl) && (
              <div class="proof-images">
                {s.proof && <ProofImage id={`stop-${s.index + 1}-photo`} url={s.proof.photoUrl} label={t.photo} />}
                {s.proof && <ProofImage id={`stop-${s.index + 1}-signature`} url={s.proof.signatureUrl} label={t.signature} />}
                {s.failure?.photoUrl && <ProofImage id={`stop-${s.index + 1}-failure-photo`} url={s.failure.photoUrl} label={t.attemptPhoto} />}
              </div>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
