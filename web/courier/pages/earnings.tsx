import { useEffect, useState } from 'preact/hooks';
import { useLang } from '../../shared/context.js';
import { clp, dateTime } from '../../shared/format.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { courierApi, type Earnings } from '../api.js';
import { COURIER_ERRORS } from '../words.js';

const S: Strings<'title' | 'today' | 'week' | 'deliveries' | 'tips' | 'total' | 'none' | 'noPay' | 'order' | 'back' | 'loading' | 'truncated'> = {
  es: {
    title: 'Ganancias', today: 'Hoy', week: 'Últimos 7 días', deliveries: 'Entregas', tips: 'Propinas', total: 'Total', none: 'Sin entregas en este período.',
    noPay: 'La tarifa aún no paga por entrega: tus ganancias son las propinas.', order: 'Pedido', back: 'Volver a mis pedidos', loading: 'Cargando…',
    truncated: 'Hay más entregas de las que se muestran: elige un período más corto.',
  },
  en: {
    title: 'Earnings', today: 'Today', week: 'Last 7 days', deliveries: 'Deliveries', tips: 'Tips', total: 'Total', none: 'No deliveries in this period.',
    noPay: 'The tariff does not pay per delivery yet: your earnings are the tips.', order: 'Order', back: 'Back to my orders', loading: 'Loading…',
    truncated: 'There are more deliveries than shown: pick a shorter period.',
  },
};

type Period = 'today' | 'week';

/** [from, to) of a period on the phone's clock (the courier's own day). */
function rangeOf(period: Period): { from: string; to: string } {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  if (period === 'week') start.setDate(start.getDate() - 6);
  return { from: start.toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
}

/** The courier's "Ganancias": delivered orders of a period with their tips, and the totals. */
export function EarningsPage({ onBack }: { onBack: () => void }) {
  const t = useStrings(S);
  const lang = useLang();
  const [period, setPeriod] = useState<Period>('today');
  const [earnings, setEarnings] = useState<Earnings | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    setEarnings(null);
    setError(null);
    courierApi.earnings(rangeOf(period)).then((e) => live && setEarnings(e), (e: unknown) => live && setError(e));
    return () => void (live = false);
  }, [period]);

  return (
    <main id="main" class="earnings" aria-labelledby="earnings-title">
      <section class="card" id="earnings" data-period={period} data-loaded={earnings ? 'true' : 'false'}>
        <h1 id="earnings-title">{t.title}</h1>
        <div class="periods" role="group" aria-label={t.title}>
          {(['today', 'week'] as const).map((p) => (
            <button type="button" key={p} id={`period-${p}`} class={p === period ? undefined : 'secondary'} aria-pressed={p === period} onClick={() => setPeriod(p)}>{t[p]}</button>
          ))}
        </div>
        <ErrorNote error={error} words={COURIER_ERRORS} />
        {!earnings && !error && <p aria-busy="true">{t.loading}</p>}
        {earnings && (
          <>
            <dl class="totals" id="earnings-totals">
              <dt>{t.deliveries}</dt><dd id="earnings-deliveries">{earnings.totals.deliveries}</dd>
              <dt>{t.tips}</dt><dd id="earnings-tips">{clp(earnings.totals.tips)}</dd>
              <dt>{t.total}</dt><dd id="earnings-total"><strong>{clp(earnings.totals.earnings)}</strong></dd>
            </dl>
            {earnings.totals.delivery_pay === null && <p class="note" id="earnings-no-pay">{t.noPay}</p>}
            {earnings.truncated && <p class="note">{t.truncated}</p>}
            {earnings.deliveries.length === 0 ? <p id="earnings-none">{t.none}</p> : (
              <ol id="earnings-list" class="earnings-list">
                {earnings.deliveries.map((d) => (
                  <li key={d.booking_id} data-order-id={d.booking_id}>
                    <span>{t.order} {d.order_number} · <time dateTime={d.delivered_at}>{dateTime(d.delivered_at, lang)}</time></span>
                    <strong class="tip">{clp(d.tip)}</strong>
                  </li>
                ))}
              </ol>
            )}
          </>
        )}
      </section>
      <p><button type="button" class="secondary" id="earnings-back" onClick={onBack}>{t.back}</button></p>
    </main>
  );
}
