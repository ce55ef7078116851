import { useState } from 'preact/hooks';
import { ApiError } from '../../shared/api/errors.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ConfirmButton } from '../../shared/ui/confirm-button.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { courierApi, FAILED_REASONS, type CourierOrder, type FailedReason } from '../api.js';
import { downscalePhoto } from '../proof.js';
import { useCourier } from '../state.js';
import { COURIER_ERRORS, FAILED_REASON_WORDS } from '../words.js';

const S: Strings<'open' | 'title' | 'reason' | 'note' | 'photo' | 'photoHint' | 'uploading' | 'photoAlt' | 'report' | 'question' | 'close' | 'noFix'> = {
  es: {
    open: 'No pude entregar', title: 'Intento de entrega fallido', reason: 'Motivo', note: 'Nota (opcional)', photo: 'Foto (opcional)',
    photoHint: 'La puerta, la dirección o lo que impidió la entrega.', uploading: 'Subiendo…', photoAlt: 'Foto del intento, vista previa',
    report: 'Informar el intento fallido', question: '¿Confirmas que no pudiste entregar el pedido?', close: 'Volver a la entrega', noFix: 'Esperando tu ubicación…',
  },
  en: {
    open: 'I could not deliver', title: 'Failed delivery attempt', reason: 'Reason', note: 'Note (optional)', photo: 'Photo (optional)',
    photoHint: 'The door, the address or whatever stopped the delivery.', uploading: 'Uploading…', photoAlt: 'Photo of the attempt, preview',
    report: 'Report the failed attempt', question: 'Confirm that you could not deliver the order?', close: 'Back to the delivery', noFix: 'Waiting for your location…',
  },
};

/**
 * "I could not deliver": the reason, an optional note and photo, then the report. The server's answer
 * is where the order's policy sent it (another try, the return to the shop, or disposal).
 */
export function FailedAttemptForm({ order, onReported }: { order: CourierOrder; onReported: (status: CourierOrder['status']) => void }) {
  const t = useStrings(S);
  const c = useCourier();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState<FailedReason>('recipient_absent');
  const [note, setNote] = useState('');
  const [photo, setPhoto] = useState<{ preview: string; proofId: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const run = async (work: () => Promise<void>) => {
    setError(null);
    setBusy(true);
    try { await work(); } catch (e) { setError(e); } finally { setBusy(false); }
  };
  const takePhoto = (file: File | undefined) => file && run(async () => {
    const small = await downscalePhoto(file);
    setPhoto({ preview: small.preview, proofId: (await courierApi.uploadProof(order.booking_id, 'photo', small.jpeg)).proof_id });
  });
  const report = () => run(async () => {
    if (!c.here) throw new ApiError('NETWORK', t.noFix);
    const moved = await courierApi.failedAttempt(order.booking_id, {
      reason, coords: { lat: c.here.lat, lng: c.here.lng }, ...(note.trim() && { note: note.trim() }), ...(photo && { photo_proof_id: photo.proofId }),
      ...(order.stop_id && { stop_id: order.stop_id }),
    });
    setOpen(false);
    onReported(moved.status);
  });

  if (!open) return <p class="step"><button type="button" id="cannot-deliver" class="secondary" onClick={() => setOpen(true)}>{t.open}</button></p>;
  return (
    <section class="proof failed-attempt" id="failed-attempt" aria-labelledby="failed-title">
      <h3 id="failed-title">{t.title}</h3>
      <label>{t.reason}
        <select id="failed-reason" value={reason} onChange={(e) => setReason(e.currentTarget.value as FailedReason)}>
          {FAILED_REASONS.map((r) => <option key={r} value={r}>{FAILED_REASON_WORDS[c.lang][r]}</option>)}
        </select>
      </label>
      <label>{t.note}
        <textarea id="failed-note" rows={2} maxLength={500} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      </label>
      <label class="photo-input">{t.photo}
        <input type="file" id="failed-photo" accept="image/*" capture="environment" aria-describedby="failed-photo-hint" onChange={(e) => void takePhoto(e.currentTarget.files?.[0])} />
      </label>
      <p class="note" id="failed-photo-hint">{t.photoHint}</p>
      {busy && <p role="status">{t.uploading}</p>}
      {photo && <p class="photo-preview"><img id="failed-photo-preview" src={photo.preview} alt={t.photoAlt} /></p>}
      <div class="step">
        <ConfirmButton id="failed-report" label={t.report} question={t.question} danger disabled={busy} onConfirm={() => void report()} />
        <button type="button" class="link" id="failed-close" onClick={() => setOpen(false)}>{t.close}</button>
      </div>
      <ErrorNote id="failed-error" error={error} words={COURIER_ERRORS} />
    </section>
  );
}
