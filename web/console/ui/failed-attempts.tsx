import { FAILED_POLICY_LABELS, FAILED_REASON_LABELS } from '../../shared/catalog.js';
import { useLang } from '../../shared/context.js';
import { clp, dateTime } from '../../shared/format.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { STATUS_LABELS, type Status } from '../../shared/ui/status.js';
import { GEOFENCE_LABELS, ProofImage } from './proof-image.js';

const S: Strings<'title' | 'policy' | 'attempts' | 'fee' | 'returnProof' | 'returned' | 'geofence' | 'photo' | 'signature' | 'attemptPhoto' | 'then'> = {
  es: {
    title: 'Entrega fallida y devolución', policy: 'Si no se puede entregar', attempts: 'Intentos fallidos', fee: 'Cargo por devolución',
    returnProof: 'Prueba de devolución', returned: 'Devuelto', geofence: 'Geocerca (retiro)', photo: 'Foto', signature: 'Firma', attemptPhoto: 'Foto del intento', then: 'luego',
  },
  en: {
    title: 'Failed delivery and return', policy: 'If it cannot be delivered', attempts: 'Failed attempts', fee: 'Return fee',
    returnProof: 'Proof of return', returned: 'Returned', geofence: 'Geofence (pickup)', photo: 'Photo', signature: 'Signature', attemptPhoto: 'Photo of the attempt', then: 'then',
  },
};

interface Attempt { at: string; reason: keyof (typeof FAILED_REASON_LABELS)['es']; note: string | null; photoUrl: string | null; outcome: Status }
interface Proof { deliveredAt: string; geofence: keyof (typeof GEOFENCE_LABELS)['es']; distanceM: number; photoUrl: string; signatureUrl: string }
interface OrderFacts { failedAttemptPolicy: keyof (typeof FAILED_POLICY_LABELS)['es']; failedAttempts: readonly Attempt[]; returnFee: number | null; returnProof: Proof | null }

/** The order's failed attempts (issue #30): each reason in the console's language, the policy, the return fee and the proof at the pickup. */
export function FailedAttempts({ order }: { order: OrderFacts }) {
  const t = useStrings(S);
  const lang = useLang();
  if (!order.failedAttempts.length && !order.returnProof) return null;
  return (
    <section class="card" id="failed-attempts" aria-labelledby="failed-title">
      <h2 id="failed-title">{t.title}</h2>
      <dl class="facts">
        <dt>{t.policy}</dt><dd id="failed-policy" data-policy={order.failedAttemptPolicy}>{FAILED_POLICY_LABELS[lang][order.failedAttemptPolicy]}</dd>
        {order.returnFee !== null && <><dt>{t.fee}</dt><dd id="return-fee">{clp(order.returnFee)}</dd></>}
      </dl>
      <h3>{t.attempts}</h3>
      <ol id="failed-attempt-list">
        {order.failedAttempts.map((a, i) => (
          <li key={i} data-reason={a.reason} data-outcome={a.outcome}>
            <time dateTime={a.at}>{dateTime(a.at, lang)}</time> · <span class="reason">{FAILED_REASON_LABELS[lang][a.reason]}</span>
            {a.note && <> · “{a.note}”</>} · {t.then} {STATUS_LABELS[lang][a.outcome]}
            {a.photoUrl && <div class="proof-images"><ProofImage id={`failed-photo-${i + 1}`} url={a.photoUrl} label={t.attemptPhoto} /></div>}
          </li>
        ))}
      </ol>
      {order.returnProof && (
        <section id="return-proof" aria-labelledby="return-proof-title">
          <h3 id="return-proof-title">{t.returnProof}</h3>
          <dl class="facts">
            <dt>{t.returned}</dt><dd>{dateTime(order.returnProof.deliveredAt, lang)}</dd>
            <dt>{t.geofence}</dt>
            <dd id="return-geofence" data-geofence={order.returnProof.geofence}>{GEOFENCE_LABELS[lang][order.returnProof.geofence]} · {Math.round(order.returnProof.distanceM)} m</dd>
          </dl>
          <div class="proof-images">
            <ProofImage id="return-photo" url={order.returnProof.photoUrl} label={t.photo} />
            <ProofImage id="return-signature" url={order.returnProof.signatureUrl} label={t.signature} />
          </div>
        </section>
      )}
    </section>
  );
}
