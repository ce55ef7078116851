import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { rateText } from '../../shared/catalog.js';
import { clp, time } from '../../shared/format.js';
import { graphql, type ResultOf, type VariablesOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { navigate, type PageProps } from '../router.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { DeliveryMap } from '../../shared/ui/map.js';
import { IdCheckOption, idCheckInputOf } from '../ui/id-check.js';
import { PaymentFields, paymentInputOf } from '../ui/cod.js';

const QUOTE = graphql(`query ConsoleQuote($input: QuoteInput!) { quote(input: $input) { __typename
  ... on QueryQuoteSuccess { data { quoteId expiresAt price distanceM estimatedDeliveryTime origin { lat lng } destination { lat lng }
    rates { id name cost estimatedMinutes recommended } } }
  ... on AppError { code message fields { field message } } } }`);

const CREATE_ORDER = graphql(`mutation ConsoleCreateOrder($input: CreateOrderInput!, $key: String) { createOrder(input: $input, idempotencyKey: $key) {
  __typename ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code message fields { field message } } } }`);

type Location = NonNullable<VariablesOf<typeof QUOTE>['input']['destination']>;
type Quote = Extract<ResultOf<typeof QUOTE>['quote'], { data: unknown }>['data'];

const S: Strings<'recipient' | 'title' | 'pickup' | 'pickupHint' | 'dropoff' | 'byAddress' | 'byCoords' | 'address' | 'lat' | 'lng' | 'weight' | 'customer' | 'phone' | 'notes' | 'quote' | 'price' | 'distance' | 'eta' | 'rate' | 'create' | 'viewerNote' | 'map' | 'origin' | 'destination' | 'expires' | 'tip'> = {
  es: { recipient: 'Cliente', title: 'Nuevo pedido', pickup: 'Retiro', pickupHint: 'Vacío: la dirección del comercio', dropoff: 'Entrega', byAddress: 'Dirección', byCoords: 'Coordenadas', address: 'Dirección de entrega', lat: 'Latitud', lng: 'Longitud', weight: 'Peso (kg)', customer: 'Nombre del cliente', phone: 'Teléfono del cliente', notes: 'Notas', quote: 'Cotizar', price: 'Precio', distance: 'Distancia', eta: 'Entrega estimada', rate: 'Tarifa', create: 'Crear pedido', viewerNote: 'Tu rol (lector) puede cotizar, no crear pedidos.', map: 'Mapa del retiro y la entrega', origin: 'Retiro', destination: 'Entrega', expires: 'Válida hasta', tip: 'Propina para el repartidor (CLP, opcional)' },
  en: { recipient: 'Recipient', title: 'New order', pickup: 'Pickup', pickupHint: "Empty: the merchant's address", dropoff: 'Drop-off', byAddress: 'Address', byCoords: 'Coordinates', address: 'Drop-off address', lat: 'Latitude', lng: 'Longitude', weight: 'Weight (kg)', customer: 'Customer name', phone: 'Customer phone', notes: 'Notes', quote: 'Get a quote', price: 'Price', distance: 'Distance', eta: 'Estimated delivery', rate: 'Rate', create: 'Create order', viewerNote: 'Your role (viewer) may quote, not create orders.', map: 'Map of pickup and drop-off', origin: 'Pickup', destination: 'Drop-off', expires: 'Valid until', tip: 'Tip for the courier (CLP, optional)' },
};

const text = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

/** Pickup and drop-off as the API takes them: a text address, or coordinates. */
function locations(form: FormData): { origin?: Location; destination: Location } {
  const pickup = text(form, 'pickup');
  const destination = form.get('dropoffKind') === 'coords'
    ? { coords: { lat: Number(text(form, 'lat')), lng: Number(text(form, 'lng')) } }
    : { address: text(form, 'address') };
  return pickup ? { origin: { address: pickup }, destination } : { destination };
}

/** Fields that do not change the price: editing them keeps the quote. */
const NOT_PRICED = ['rate', 'tip'];

export function NewOrderPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(S);
  const [kind, setKind] = useState<'address' | 'coords'>('address');
  const [quote, setQuote] = useState<Quote | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // One key per form: a retried or double-clicked create books one order.
  const [key] = useState(() => crypto.randomUUID());
  const viewer = app.me?.role === 'viewer';

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try { await action(); } catch (failure) { setError(failure); } finally { setBusy(false); }
  };
  const onQuote = (form: HTMLFormElement) => run(async () => {
    const data = new FormData(form);
    const weight = Number(text(data, 'weight')) || undefined;
    setQuote(dataOf((await request(QUOTE, { input: { ...locations(data), totalWeightKg: weight } }, app.mode)).quote));
  });
  const onCreate = (form: HTMLFormElement) => run(async () => {
    const data = new FormData(form);
    const { origin, destination } = locations(data);
    const rateId: 'batched' | 'express' = data.get('rate') === 'batched' ? 'batched' : 'express';
    const input = {
      pickup: origin, dropoff: destination, customerName: text(data, 'customer'), customerPhone: text(data, 'phone'),
      ...paymentInputOf(data),
      totalWeightKg: Number(text(data, 'weight')) || undefined, notes: text(data, 'notes') || undefined, quoteId: quote?.quoteId, rateId: quote ? rateId : undefined,
      idCheck: idCheckInputOf(data),
      tip: Number(text(data, 'tip')) || undefined,
    };
    const order = dataOf((await request(CREATE_ORDER, { input, key }, app.mode)).createOrder);
    navigate(`/console/orders/${encodeURIComponent(order.id)}`);
  });

  return (
    <section aria-labelledby="new-order-title">
      <h1 id="new-order-title">{t.title}</h1>
      <form id="new-order" class="card grid" onSubmit={(e) => { e.preventDefault(); void onCreate(e.currentTarget); }} onInput={(e) => !NOT_PRICED.includes((e.target as HTMLInputElement).name) && setQuote(null)}>
        <fieldset>
          <legend>{t.pickup}</legend>
          <label>{t.pickup}<input name="pickup" placeholder={app.me?.merchant.address ?? ''} aria-describedby="pickup-hint" /></label>
          <small id="pickup-hint">{t.pickupHint}{app.me?.merchant.address ? `: ${app.me.merchant.address}` : ''}</small>
        </fieldset>
        <fieldset>
          <legend>{t.dropoff}</legend>
          <div class="radios">
            <label><input type="radio" name="dropoffKind" value="address" checked={kind === 'address'} onChange={() => setKind('address')} />{t.byAddress}</label>
            <label><input type="radio" name="dropoffKind" value="coords" checked={kind === 'coords'} onChange={() => setKind('coords')} />{t.byCoords}</label>
          </div>
          {kind === 'address'
            ? <label>{t.address}<input name="address" required autocomplete="off" /></label>
            : <div class="pair">
                <label>{t.lat}<input name="lat" type="number" step="any" min={-90} max={90} required /></label>
                <label>{t.lng}<input name="lng" type="number" step="any" min={-180} max={180} required /></label>
              </div>}
        </fieldset>
        <fieldset>
          <legend>{t.recipient}</legend>
          <label>{t.customer}<input name="customer" required autocomplete="off" /></label>
          <label>{t.phone}<input name="phone" type="tel" required placeholder="+56912345678" /></label>
          <PaymentFields />
          <label>{t.weight}<input name="weight" type="number" step="0.1" min="0.1" defaultValue="1" /></label>
          <label>{t.notes}<input name="notes" autocomplete="off" /></label>
          <label>{t.tip}<input name="tip" type="number" inputMode="numeric" min={0} max={200_000} step={1} /></label>
          <IdCheckOption />
        </fieldset>
        <div class="actions">
          <button type="button" id="get-quote" disabled={busy} onClick={(e) => { const f = e.currentTarget.form!; if (f.reportValidity()) void onQuote(f); }}>{t.quote}</button>
          <button type="submit" id="create-order" disabled={busy || viewer}>{t.create}</button>
        </div>
        {viewer && <p class="note">{t.viewerNote}</p>}
        <ErrorNote error={error} />
        {quote && (
          <div id="quote" class="quote" aria-live="polite">
            <dl>
              <dt>{t.price}</dt><dd id="quote-price">{clp(quote.price)}</dd>
              <dt>{t.distance}</dt><dd>{(quote.distanceM / 1000).toFixed(1)} km</dd>
              <dt>{t.eta}</dt><dd>{time(quote.estimatedDeliveryTime, app.lang)}</dd>
              <dt>{t.expires}</dt><dd>{time(quote.expiresAt, app.lang)}</dd>
            </dl>
            <fieldset class="radios"><legend>{t.rate}</legend>
              {quote.rates.map((r) => (
                <label key={r.id}><input type="radio" name="rate" value={r.id} defaultChecked={r.id === 'express'} />{rateText(r.id, app.lang)}: {clp(r.cost)} · {r.estimatedMinutes} min</label>
              ))}
            </fieldset>
            <DeliveryMap label={t.map} points={[{ ...quote.origin, kind: 'pickup', label: t.origin }, { ...quote.destination, kind: 'dropoff', label: t.destination }]} />
          </div>
        )}
      </form>
    </section>
  );
}
