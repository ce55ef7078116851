import { FAILED_POLICY_LABELS } from '../../shared/catalog.js';
import { useLang } from '../../shared/context.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { fromSantiagoInput } from '../../shared/ui/santiago-time.js';
import type { useFieldErrors } from '../../shared/ui/field-errors.js';

const S: Strings<'title' | 'size' | 'length' | 'width' | 'height' | 'sizeHint' | 'pickupAfter' | 'deliverBefore' | 'windowHint' | 'policy' | 'pin' | 'pinHint'> = {
  es: {
    title: 'Paquete y entrega', size: 'Medidas del paquete (cm, opcional)', length: 'Largo', width: 'Ancho', height: 'Alto', sizeHint: 'Las tres medidas o ninguna: eligen el vehículo.',
    pickupAfter: 'Retirar desde', deliverBefore: 'Entregar antes de', windowHint: 'Hora de Santiago, hasta 7 días adelante. Vacío: lo antes posible.',
    policy: 'Si no se puede entregar', pin: 'Pedir un PIN de entrega al cliente', pinHint: 'El cliente recibe 4 dígitos y se los da al repartidor al recibir.',
  },
  en: {
    title: 'Parcel and delivery', size: 'Parcel size (cm, optional)', length: 'Length', width: 'Width', height: 'Height', sizeHint: 'All three or none: they choose the vehicle.',
    pickupAfter: 'Pick up from', deliverBefore: 'Deliver before', windowHint: 'Santiago time, up to 7 days ahead. Empty: as soon as possible.',
    policy: 'If it cannot be delivered', pin: 'Ask the customer for a delivery PIN', pinHint: 'The customer gets 4 digits and gives them to the courier on receipt.',
  },
};

const POLICIES = ['return', 'retry', 'dispose'] as const;
type Fields = ReturnType<typeof useFieldErrors>;

/** The new-order form's parcel size, time window, failed-attempt policy and PIN (issue #38 item 8). */
export function OrderOptions({ f }: { f: Fields }) {
  const t = useStrings(S);
  const lang = useLang();
  return (
    <fieldset id="order-options">
      <legend>{t.title}</legend>
      <fieldset class="pair" aria-describedby="size-hint">
        <legend>{t.size}</legend>
        {(['length', 'width', 'height'] as const).map((side) => (
          <label key={side}>{t[side]}<input name={`${side}Cm`} id={`${side}-cm`} type="number" inputMode="decimal" min={1} max={1000} step="any" {...f.input(`${side}Cm`)} /></label>
        ))}
      </fieldset>
      <small id="size-hint">{t.sizeHint}</small>
      {f.reason('lengthCm')}{f.reason('widthCm')}{f.reason('heightCm')}{f.reason('dimensions')}
      <div class="pair">
        <label>{t.pickupAfter}<input name="pickupAfter" id="pickup-after" type="datetime-local" {...f.input('pickupAfter', 'window-hint')} /></label>
        <label>{t.deliverBefore}<input name="deliverBefore" id="deliver-before" type="datetime-local" {...f.input('deliverBefore', 'window-hint')} /></label>
      </div>
      <small id="window-hint">{t.windowHint}</small>
      {f.reason('pickupAfter')}{f.reason('deliverBefore')}
      <label>{t.policy}<select name="failedAttemptPolicy" id="failed-attempt-policy" {...f.input('failedAttemptPolicy')}>
        {POLICIES.map((p) => <option key={p} value={p}>{FAILED_POLICY_LABELS[lang][p]}</option>)}
      </select></label>
      {f.reason('failedAttemptPolicy')}
      <label class="check"><input type="checkbox" name="deliveryPin" id="delivery-pin" aria-describedby="pin-hint" />{t.pin}</label>
      <small id="pin-hint">{t.pinHint}</small>
    </fieldset>
  );
}

const value = (data: FormData, name: string) => String(data.get(name) ?? '').trim();

/** The form's options as CreateOrderInput fields (left out when not given: the API's defaults). */
export function orderOptionsOf(data: FormData) {
  const sides = ['lengthCm', 'widthCm', 'heightCm'].map((name) => value(data, name));
  const [pickupAfter, deliverBefore] = [value(data, 'pickupAfter'), value(data, 'deliverBefore')];
  const policy = value(data, 'failedAttemptPolicy');
  return {
    // Some sides only: sent as given, for the API to say which one is missing.
    ...(sides.some(Boolean) && { dimensions: { lengthCm: Number(sides[0]) || 0, widthCm: Number(sides[1]) || 0, heightCm: Number(sides[2]) || 0 } }),
    ...(pickupAfter && { pickupAfter: fromSantiagoInput(pickupAfter) }),
    ...(deliverBefore && { deliverBefore: fromSantiagoInput(deliverBefore) }),
    ...(POLICIES.includes(policy as 'return') && { failedAttemptPolicy: policy as (typeof POLICIES)[number] }),
    ...(data.get('deliveryPin') !== null && { deliveryPin: true }),
  };
}
