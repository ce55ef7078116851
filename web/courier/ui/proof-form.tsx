import { useState } from 'preact/hooks';
import { ApiError } from '../../shared/api/errors.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ConfirmButton } from '../../shared/ui/confirm-button.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { courierApi, type CourierOrder } from '../api.js';
import { GEOFENCE_RADIUS_M, geofenceVerdict } from '../geofence.js';
import { downscalePhoto, signaturePng } from '../proof.js';
import { useCourier } from '../state.js';
import { COURIER_ERRORS } from '../words.js';
import { IdCheckFields, type IdCheckValue } from './id-check-fields.js';
import { CodCollectedField, pesosOf } from './cash.js';
import { SignaturePad } from './signature-pad.js';

const S: Strings<
  'title' | 'photo' | 'photoHint' | 'photoReady' | 'uploading' | 'signature' | 'pin' | 'pinHint' | 'deliver' | 'question'
  | 'inside' | 'outside' | 'unverified' | 'noFix' | 'geofence' | 'missing' | 'photoAlt'
> = {
  es: {
    title: 'Prueba de entrega', photo: 'Foto de la entrega', photoHint: 'Fotografía el paquete entregado (se reduce en el teléfono antes de subirla).',
    photoReady: 'Foto lista', uploading: 'Subiendo…', signature: 'Firma del cliente', pin: 'PIN de entrega', pinHint: 'El cliente tiene un PIN de 4 dígitos.',
    deliver: 'Entregar pedido', question: '¿Confirmas la entrega con esta foto y firma?',
    inside: 'Dentro del radio de entrega: a {d} m del destino (máximo {r} m).', outside: 'Estás a {d} m del destino; se aceptan {r} m: la entrega será rechazada. Acércate.',
    unverified: 'El destino se conoce solo por su comuna: la distancia no se verificará.', noFix: 'Esperando tu ubicación…', geofence: 'Ubicación',
    missing: 'Falta la foto o la firma.', photoAlt: 'Foto de la entrega, vista previa',
  },
  en: {
    title: 'Proof of delivery', photo: 'Delivery photo', photoHint: 'Take a photo of the delivered parcel (made smaller on the phone before upload).',
    photoReady: 'Photo ready', uploading: 'Uploading…', signature: 'Customer signature', pin: 'Delivery PIN', pinHint: 'The customer has a 4-digit PIN.',
    deliver: 'Deliver the order', question: 'Confirm the delivery with this photo and signature?',
    inside: 'Inside the delivery radius: {d} m from the drop-off (at most {r} m).', outside: 'You are {d} m from the drop-off; {r} m are allowed: the delivery will be refused. Get closer.',
    unverified: 'The drop-off is known only to its comuna: the distance will not be checked.', noFix: 'Waiting for your location…', geofence: 'Location',
    missing: 'The photo or the signature is missing.', photoAlt: 'Delivery photo, preview',
  },
};

/** The same proof for the return leg, given at the pickup to whoever takes the parcel back. */
const RETURN: Strings<'title' | 'photo' | 'photoHint' | 'signature' | 'deliver' | 'question' | 'inside' | 'outside' | 'unverified' | 'photoAlt'> = {
  es: {
    title: 'Devolución en la tienda', photo: 'Foto de la devolución', photoHint: 'Fotografía el paquete entregado de vuelta en la tienda.',
    signature: 'Firma de quien lo recibe en la tienda', deliver: 'Devolver en la tienda', question: '¿Confirmas la devolución con esta foto y firma?',
    inside: 'Dentro del radio de la tienda: a {d} m del retiro (máximo {r} m).', outside: 'Estás a {d} m del retiro; se aceptan {r} m: la devolución será rechazada. Acércate.',
    unverified: 'El retiro se conoce solo por su comuna: la distancia no se verificará.', photoAlt: 'Foto de la devolución, vista previa',
  },
  en: {
    title: 'Return to the shop', photo: 'Return photo', photoHint: 'Take a photo of the parcel handed back at the shop.',
    signature: 'Signature of whoever takes it back at the shop', deliver: 'Return to the shop', question: 'Confirm the return with this photo and signature?',
    inside: 'Inside the shop radius: {d} m from the pickup (at most {r} m).', outside: 'You are {d} m from the pickup; {r} m are allowed: the return will be refused. Get closer.',
    unverified: 'The pickup is known only to its comuna: the distance will not be checked.', photoAlt: 'Return photo, preview',
  },
};

/** Photo and signature proof: of the delivery at the drop-off, or (`leg` return) of the return at the pickup. */
export function ProofForm({ order, onDelivered, leg = 'delivery' }: { order: CourierOrder; onDelivered: () => void; leg?: 'delivery' | 'return' }) {
  const base = useStrings(S);
  const back = useStrings(RETURN);
  const t = leg === 'return' ? { ...base, ...back } : base;
  const c = useCourier();
  const [photo, setPhoto] = useState<{ preview: string; proofId: string | null; jpeg: Blob } | null>(null);
  const [uploading, setUploading] = useState(false);
  const [signature, setSignature] = useState<HTMLCanvasElement | null>(null);
  /** The signature as uploaded, until it is drawn again: a retry (a wrong PIN, too far) sends no second copy (a stop takes 2, issue #39). */
  const [signatureId, setSignatureId] = useState<string | null>(null);
  const signatureChanged = (canvas: HTMLCanvasElement | null) => {
    setSignature(canvas);
    setSignatureId(null);
  };
  const [pin, setPin] = useState('');
  const [idCheck, setIdCheck] = useState<IdCheckValue | null>(null);
  const [cash, setCash] = useState(order.cod_amount == null ? '' : String(order.cod_amount));
  // Cash on delivery, with or without a known amount (none: the courier enters what was paid).
  const collects = order.payment_mode === 'cash_on_delivery' || order.cod_amount != null;
  const [error, setError] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const { verdict, distance } = geofenceVerdict(leg === 'return' ? order.pickup : order.dropoff, c.here);
  const words = (text: string) => text.replace('{d}', String(distance)).replace('{r}', String(GEOFENCE_RADIUS_M));

  const takePhoto = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setUploading(true);
    try {
      const small = await downscalePhoto(file);
      setPhoto({ preview: small.preview, proofId: null, jpeg: small.jpeg });
      const uploaded = await courierApi.uploadProof(order.booking_id, 'photo', small.jpeg);
      setPhoto({ preview: small.preview, proofId: uploaded.proof_id, jpeg: small.jpeg });
    } catch (e) {
      setError(e);
    } finally {
      setUploading(false);
    }
  };

  const deliver = async () => {
    setError(null);
    if (!photo || !signature) return setError(new ApiError('VALIDATION_ERROR', t.missing));
    if (!c.here) return setError(new ApiError('NETWORK', t.noFix));
    setSending(true);
    try {
      const photoId = photo.proofId ?? (await courierApi.uploadProof(order.booking_id, 'photo', photo.jpeg)).proof_id;
      if (!photo.proofId) setPhoto({ ...photo, proofId: photoId });
      const signedId = signatureId ?? (await courierApi.uploadProof(order.booking_id, 'signature', await signaturePng(signature))).proof_id;
      setSignatureId(signedId);
      const coords = { lat: c.here.lat, lng: c.here.lng };
      if (leg === 'return') await courierApi.returnToPickup(order.booking_id, { coords, photo_proof_id: photoId, signature_proof_id: signedId });
      else await courierApi.deliver(order.booking_id, {
        driver_id: c.courier.id,
        coords,
        photo_proof_id: photoId,
        signature_proof_id: signedId,
        ...(order.delivery_pin_required && { pin }),
        ...(order.id_check && idCheck && { id_check: idCheck }),
        ...(collects && { cod_collected: pesosOf(cash)! }),
        ...(order.stop_id && { stop_id: order.stop_id }),
      });
      onDelivered();
    } catch (e) {
      setError(e);
    } finally {
      setSending(false);
    }
  };

  const checks = leg === 'delivery';
  const ready = !!photo && !!signature && !!c.here && !uploading && (!checks || !order.delivery_pin_required || /^\d{4}$/.test(pin)) && (!checks || !order.id_check || !!idCheck)
    && (!checks || !collects || pesosOf(cash) !== null);
  return (
    <section class="proof" id={leg === 'return' ? 'return-proof' : undefined} aria-labelledby="proof-title">
      <h3 id="proof-title">{t.title}</h3>
      {checks && order.id_check && <IdCheckFields minAge={order.id_check.min_age} onChange={setIdCheck} />}
      {checks && collects && <CodCollectedField expected={order.cod_amount ?? null} value={cash} onChange={setCash} />}
      <p id="geofence" class={`verdict ${verdict}`} data-verdict={verdict} role="status">
        <strong>{t.geofence}:</strong> {verdict === 'noFix' ? t.noFix : verdict === 'unverified' ? t.unverified : words(t[verdict])}
      </p>
      <label class="photo-input">
        {t.photo}
        <input type="file" id="photo-input" accept="image/*" capture="environment" aria-describedby="photo-hint" onChange={(e) => void takePhoto(e.currentTarget.files?.[0])} />
      </label>
      <p class="note" id="photo-hint">{t.photoHint}</p>
      {uploading && <p role="status">{t.uploading}</p>}
      {photo && <p class="photo-preview"><img id="photo-preview" src={photo.preview} alt={t.photoAlt} data-uploaded={photo.proofId ? 'true' : 'false'} /> {photo.proofId && <span>{t.photoReady}</span>}</p>}
      <h4>{t.signature}</h4>
      <SignaturePad label={t.signature} onChange={signatureChanged} />
      {checks && order.delivery_pin_required && (
        <label>
          {t.pin}
          <input id="pin" inputMode="numeric" autoComplete="off" pattern="\d{4}" maxLength={4} value={pin} aria-describedby="pin-hint" onInput={(e) => setPin(e.currentTarget.value.replace(/\D/g, '').slice(0, 4))} />
          <small id="pin-hint">{t.pinHint}</small>
        </label>
      )}
      <div class="step">
        <ConfirmButton id="deliver" label={t.deliver} question={t.question} disabled={!ready || sending} onConfirm={() => void deliver()} />
      </div>
      <ErrorNote id="deliver-error" error={error} words={COURIER_ERRORS} />
    </section>
  );
}
