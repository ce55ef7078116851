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
import { useFieldErrors } from '../../shared/ui/field-errors.js';
import { DeliveryMap } from '../../shared/ui/map.js';
import { IdCheckOption, idCheckInputOf } from '../ui/id-check.js';
import { PaymentFields, paymentInputOf } from '../ui/cod.js';
import { OrderOptions, orderOptionsOf } from '../ui/order-options.js';

const QUOTE = graphql(`query ConsoleQuote($input: QuoteInput!) { quote(input: $input) { __typename
  ... on QueryQuoteSuccess { data { quoteId expiresAt price distanceM estimatedDeliveryTime origin { lat lng } destination { lat lng }
    rates { id name cost estimatedMinutes recommended } } }
  ... on AppError { code message fields { field message } } } }`);

const CREATE_ORDER = graphql(`mutation ConsoleCreateOrder($input: CreateOrderInput!, $key: String) { createOrder(input: $input, idempotencyKey: $key) {
  __typename ... on MutationCreateOrderSuccess { data { id } } ... on AppError { code message fields { field message } } } }`);

type Location = NonNullable<VariablesOf<typeof QUOTE>['input']['destination']>;
type Quote = Extract<ResultOf<typeof QUOTE>['quote'], { data: unknown }>['data'];

const S: Strings<'recipient' | 'title' | 'pickup' | 'pickupHint' | 'dropoff' | 'byAddress' | 'byCoords' | 'address' | 'lat' | 'lng' | 'weight' | 'customer' | 'phone' | 'notes' | 'quote' | 'price' | 'distance' | 'eta' | 'rate' | 'create' | 'viewerNote' | 'map' | 'origin' | 'destination' | 'expires' | 'tip' | 'moreStops' | 'addStop' | 'removeStop' | 'stop' | 'contact' | 'contactPhone' | 'route' | 'given' | 'optimized' | 'stopsHint' | 'email' | 'emailHint' | 'unit' | 'instructions'> = {
  es: { recipient: 'Cliente', title: 'Nuevo pedido', pickup: 'Retiro', pickupHint: 'Vacío: la dirección del comercio', dropoff: 'Entrega', byAddress: 'Dirección', byCoords: 'Coordenadas', address: 'Dirección de entrega', lat: 'Latitud', lng: 'Longitud', weight: 'Peso (kg)', customer: 'Nombre del cliente', phone: 'Teléfono del cliente', notes: 'Notas', quote: 'Cotizar', price: 'Precio', distance: 'Distancia', eta: 'Entrega estimada', rate: 'Tarifa', create: 'Crear pedido', viewerNote: 'Tu rol (lector) puede cotizar, no crear pedidos.', map: 'Mapa del retiro y la entrega', origin: 'Retiro', destination: 'Entrega', expires: 'Válida hasta', tip: 'Propina para el repartidor (CLP, opcional)', moreStops: 'Más paradas', addStop: 'Agregar parada', removeStop: 'Quitar parada', stop: 'Parada', contact: 'Contacto', contactPhone: 'Teléfono del contacto', route: 'Orden de la ruta', given: 'Como las ingresé', optimized: 'Optimizado (el más corto)', stopsHint: 'Hasta 10 paradas: la entrega de arriba es la primera.', email: 'Correo del cliente (opcional)', emailHint: 'Para avisarle por correo del estado de su pedido.', unit: 'Depto., oficina o casa (opcional)', instructions: 'Indicaciones para llegar (opcional)' },
  en: { recipient: 'Recipient', title: 'New order', pickup: 'Pickup', pickupHint: "Empty: the merchant's address", dropoff: 'Drop-off', byAddress: 'Address', byCoords: 'Coordinates', address: 'Drop-off address', lat: 'Latitude', lng: 'Longitude', weight: 'Weight (kg)', customer: 'Customer name', phone: 'Customer phone', notes: 'Notes', quote: 'Get a quote', price: 'Price', distance: 'Distance', eta: 'Estimated delivery', rate: 'Rate', create: 'Create order', viewerNote: 'Your role (viewer) may quote, not create orders.', map: 'Map of pickup and drop-off', origin: 'Pickup', destination: 'Drop-off', expires: 'Valid until', tip: 'Tip for the courier (CLP, optional)', moreStops: 'More stops', addStop: 'Add a stop', removeStop: 'Remove stop', stop: 'Stop', contact: 'Contact', contactPhone: 'Contact phone', route: 'Route order', given: 'As entered', optimized: 'Optimised (the shortest)', stopsHint: 'Up to 10 stops: the drop-off above is the first.', email: 'Customer email (optional)', emailHint: 'To tell the customer about the order by email.', unit: 'Flat, office or house (optional)', instructions: 'Directions (optional)' },
};

const text = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

/** Pickup and drop-off as the API takes them: a text address, or coordinates. */
function locations(form: FormData): { origin?: Location; destination: Location } {
  const pickup = text(form, 'pickup');
  const destination = form.get('dropoffKind') === 'coords'
    ? { coords: { lat: Number(text(form, 'lat')), lng: Number(text(form, 'lng')) } }
    : { address: text(form, 'address'), ...(text(form, 'unit') && { number: text(form, 'unit') }), ...(text(form, 'instructions') && { instructions: text(form, 'instructions') }) };
  return pickup ? { origin: { address: pickup }, destination } : { destination };
}

/** Fields that do not change the price: editing them keeps the quote. */
const NOT_PRICED = ['rate', 'tip', 'email', 'unit', 'instructions', 'failedAttemptPolicy', 'deliveryPin', 'pickupAfter', 'deliverBefore'];
/** The API's fields (CreateOrderInput, QuoteInput) shown next to this form's inputs. */
const FIELD_NAMES: Record<string, string> = {
  pickup: 'pickup', origin: 'pickup', dropoff: 'address', destination: 'address', 'dropoff.address': 'address', 'dropoff.number': 'unit', 'dropoff.instructions': 'instructions',
  'dropoff.lat': 'lat', 'dropoff.lng': 'lng', customerName: 'customer', customerPhone: 'phone', customerEmail: 'email', totalWeightKg: 'weight', notes: 'notes', tip: 'tip',
  'dimensions.lengthCm': 'lengthCm', 'dimensions.widthCm': 'widthCm', 'dimensions.heightCm': 'heightCm', pickupAfter: 'pickupAfter', deliverBefore: 'deliverBefore', failedAttemptPolicy: 'failedAttemptPolicy',
};
/** Most stops an order takes (the drop-off above and these extra ones). */
const MAX_STOPS = 10;

/** The extra stops' rows of the form, in order; empty: a single drop-off. */
function extraStops(form: FormData, rows: readonly number[]) {
  return rows.map((row) => ({ address: { address: text(form, `stop-${row}-address`) }, contactName: text(form, `stop-${row}-name`), contactPhone: text(form, `stop-${row}-phone`) }));
}

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
  // Extra stops by row id (ids never reused: a removed row's inputs do not pass to another).
  const [rows, setRows] = useState<number[]>([]);
  const [nextRow, setNextRow] = useState(1);
  const f = useFieldErrors(error, 'new-order', FIELD_NAMES);
  const route = (data: FormData) => (data.get('route') === 'optimized' ? 'optimized' as const : 'given' as const);

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try { await action(); } catch (failure) { setError(failure); } finally { setBusy(false); }
  };
  const onQuote = (form: HTMLFormElement) => run(async () => {
    const data = new FormData(form);
    const weight = Number(text(data, 'weight')) || undefined;
    const { origin, destination } = locations(data);
    const stops = rows.length ? { stops: [destination, ...extraStops(data, rows).map((s) => s.address)], route: route(data) } : { destination };
    setQuote(dataOf((await request(QUOTE, { input: { origin, ...stops, totalWeightKg: weight } }, app.mode)).quote));
  });
  const onCreate = (form: HTMLFormElement) => run(async () => {
    const data = new FormData(form);
    const { origin, destination } = locations(data);
    const rateId: 'batched' | 'express' = data.get('rate') === 'batched' ? 'batched' : 'express';
    const first = { address: destination, contactName: text(data, 'customer'), contactPhone: text(data, 'phone') };
    const input = {
      pickup: origin, ...(rows.length ? { stops: [first, ...extraStops(data, rows)], route: route(data) } : { dropoff: destination }), customerName: text(data, 'customer'), customerPhone: text(data, 'phone'),
      ...(text(data, 'email') && { customerEmail: text(data, 'email') }),
      ...paymentInputOf(data), ...orderOptionsOf(data),
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
          <label>{t.pickup}<input name="pickup" placeholder={app.me?.merchant.address ?? ''} {...f.input('pickup', 'pickup-hint')} /></label>
          {f.reason('pickup')}
          <small id="pickup-hint">{t.pickupHint}{app.me?.merchant.address ? `: ${app.me.merchant.address}` : ''}</small>
        </fieldset>
        <fieldset>
          <legend>{t.dropoff}</legend>
          <div class="radios">
            <label><input type="radio" name="dropoffKind" value="address" checked={kind === 'address'} onChange={() => setKind('address')} />{t.byAddress}</label>
            <label><input type="radio" name="dropoffKind" value="coords" checked={kind === 'coords'} onChange={() => setKind('coords')} />{t.byCoords}</label>
          </div>
          {kind === 'address'
            ? <>
                <label>{t.address}<input name="address" required autocomplete="off" {...f.input('address')} /></label>
                {f.reason('address')}
                <label>{t.unit}<input name="unit" id="unit" maxLength={20} autocomplete="off" {...f.input('unit')} /></label>
                {f.reason('unit')}
                <label>{t.instructions}<input name="instructions" id="instructions" maxLength={500} autocomplete="off" {...f.input('instructions')} /></label>
                {f.reason('instructions')}
              </>
            : <div class="pair">
                <label>{t.lat}<input name="lat" type="number" step="any" min={-90} max={90} required {...f.input('lat')} /></label>
                <label>{t.lng}<input name="lng" type="number" step="any" min={-180} max={180} required {...f.input('lng')} /></label>
                {f.reason('lat')}{f.reason('lng')}
              </div>}
        </fieldset>
        <fieldset>
          <legend>{t.recipient}</legend>
          <label>{t.customer}<input name="customer" required autocomplete="off" {...f.input('customer')} /></label>
          {f.reason('customer')}
          <label>{t.phone}<input name="phone" type="tel" required placeholder="+56912345678" {...f.input('phone')} /></label>
          {f.reason('phone')}
          <label>{t.email}<input name="email" id="customer-email" type="email" maxLength={254} autocomplete="off" {...f.input('email', 'email-hint')} /></label>
          <small id="email-hint">{t.emailHint}</small>
          {f.reason('email')}
          <PaymentFields />
          <label>{t.weight}<input name="weight" type="number" step="0.1" min="0.1" defaultValue="1" {...f.input('weight')} /></label>
          {f.reason('weight')}
          <label>{t.notes}<input name="notes" autocomplete="off" {...f.input('notes')} /></label>
          {f.reason('notes')}
          <label>{t.tip}<input name="tip" type="number" inputMode="numeric" min={0} max={200_000} step={1} {...f.input('tip')} /></label>
          {f.reason('tip')}
          <IdCheckOption />
        </fieldset>
        <OrderOptions f={f} />
        <fieldset id="more-stops">
          <legend>{t.moreStops}</legend>
          <small>{t.stopsHint}</small>
          {rows.map((row, i) => (
            <div class="stop-row" key={row} data-row={row}>
              <label>{t.stop} {i + 2}: {t.address}<input name={`stop-${row}-address`} required autocomplete="off" /></label>
              <label>{t.contact}<input name={`stop-${row}-name`} required autocomplete="off" /></label>
              <label>{t.contactPhone}<input name={`stop-${row}-phone`} type="tel" required placeholder="+56912345678" /></label>
              <button type="button" class="secondary remove-stop" onClick={() => { setRows(rows.filter((r) => r !== row)); setQuote(null); }}>{t.removeStop} {i + 2}</button>
            </div>
          ))}
          {rows.length < MAX_STOPS - 1 && <button type="button" id="add-stop" class="secondary" onClick={() => { setRows([...rows, nextRow]); setNextRow(nextRow + 1); setQuote(null); }}>{t.addStop}</button>}
          {rows.length > 0 && (
            <label>{t.route}<select name="route" id="route"><option value="given">{t.given}</option><option value="optimized">{t.optimized}</option></select></label>
          )}
        </fieldset>
        <div class="actions">
          <button type="button" id="get-quote" disabled={busy} onClick={(e) => { const f = e.currentTarget.form!; if (f.reportValidity()) void onQuote(f); }}>{t.quote}</button>
          <button type="submit" id="create-order" disabled={busy || viewer}>{t.create}</button>
        </div>
        {viewer && <p class="note">{t.viewerNote}</p>}
        <ErrorNote error={error} shown={f.shown} />
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
