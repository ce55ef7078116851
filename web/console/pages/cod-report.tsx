import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { clp, dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { Link, type PageProps } from '../router.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { useCodAmountText } from '../ui/cod.js';
import '../ui/manage.css';

const PAGE_SIZE = 20;
const DAY_MS = 86_400_000;

const REPORT = graphql(`query ConsoleCodReport($from: DateTime, $to: DateTime, $first: Int, $after: String) {
  codReport(from: $from, to: $to, first: $first, after: $after) { __typename
    ... on QueryCodReportSuccess { data { from to collected pendingConfirmation handedOver settled outstanding payable mismatches nextCursor
      lines { id bookingId expected collected mismatch status handedOver collectedAt } } }
    ... on AppError { code message } } }`);

const S: Strings<'title' | 'help' | 'from' | 'to' | 'show' | 'collected' | 'settled' | 'outstanding' | 'mismatches' | 'order' | 'expected' | 'cash' | 'at' | 'mismatch' | 'ok' | 'empty' | 'next' | 'previous' | 'pending' | 'handedOver' | 'payable' | 'status' | 'counted' | 'pending_confirmation' | 'confirmed' | 'rejected'> = {
  es: {
    title: 'Contra entrega', help: 'El efectivo que los repartidores cobraron por tus pedidos y lo que ya se te pagó.', from: 'Desde', to: 'Hasta', show: 'Ver',
    collected: 'Cobrado', settled: 'Pagado a ti', outstanding: 'Pendiente de pago', mismatches: 'Diferencias', order: 'Pedido', expected: 'A cobrar', cash: 'Cobrado',
    at: 'Fecha', mismatch: 'Diferencia', ok: 'Correcto', empty: 'No hay cobros en este periodo.', next: 'Siguiente', previous: 'Anterior',
    pending: 'Por confirmar (no cuenta aún)', handedOver: 'Entregado por repartidores', payable: 'Disponible para pago', status: 'Estado',
    counted: 'Cuenta', pending_confirmation: 'Por confirmar', confirmed: 'Confirmado', rejected: 'Rechazado',
  },
  en: {
    title: 'Cash on delivery', help: 'The cash couriers collected for your orders and what has been paid out to you.', from: 'From', to: 'To', show: 'Show',
    collected: 'Collected', settled: 'Paid out to you', outstanding: 'Still owed', mismatches: 'Mismatches', order: 'Order', expected: 'To collect', cash: 'Collected',
    at: 'Date', mismatch: 'Mismatch', ok: 'Matches', empty: 'No collections in this period.', next: 'Next', previous: 'Previous',
    pending: 'To confirm (not counted yet)', handedOver: 'Handed over by couriers', payable: 'Available to pay out', status: 'Status',
    counted: 'Counts', pending_confirmation: 'To confirm', confirmed: 'Confirmed', rejected: 'Rejected',
  },
};

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The merchant's cash-on-delivery report (issue #30; claims, hand-overs and payouts, issue #39) for a range of days, its collections a page at a time. */
export function CodReportPage(_props: PageProps) {
  const { lang } = useApp();
  const t = useStrings(S);
  const amountText = useCodAmountText();
  const [range, setRange] = useState({ from: day(Date.now() - 30 * DAY_MS), to: day(Date.now()) });
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  // `to` is a whole day: the window ends at the next midnight (UTC).
  const report = useLoad(async (mode) => dataOf((await request(REPORT, {
    from: `${range.from}T00:00:00.000Z`, to: new Date(Date.parse(`${range.to}T00:00:00.000Z`) + DAY_MS).toISOString(), first: PAGE_SIZE, after,
  }, mode)).codReport), [range.from, range.to, after]);
  const r = report.data;

  return (
    <section aria-labelledby="cod-title">
      <h1 id="cod-title">{t.title}</h1>
      <p class="note">{t.help}</p>
      <form id="cod-range" class="card pair" onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        setCursors([null]);
        setRange({ from: String(data.get('from')), to: String(data.get('to')) });
      }}>
        <label>{t.from}<input type="date" name="from" defaultValue={range.from} required /></label>
        <label>{t.to}<input type="date" name="to" defaultValue={range.to} required /></label>
        <div class="actions"><button type="submit" id="cod-show">{t.show}</button></div>
      </form>
      <ErrorNote error={report.error} />
      {r && (
        <>
          <dl class="facts card" id="cod-totals">
            <dt>{t.collected}</dt><dd id="cod-collected-total">{clp(r.collected)}</dd>
            <dt>{t.pending}</dt><dd id="cod-pending-total" class={r.pendingConfirmation > 0 ? 'flag' : undefined}>{clp(r.pendingConfirmation)}</dd>
            <dt>{t.handedOver}</dt><dd id="cod-handed-over-total">{clp(r.handedOver)}</dd>
            <dt>{t.settled}</dt><dd id="cod-settled-total">{clp(r.settled)}</dd>
            <dt>{t.outstanding}</dt><dd id="cod-outstanding">{clp(r.outstanding)}</dd>
            <dt>{t.payable}</dt><dd id="cod-payable">{clp(r.payable)}</dd>
            <dt>{t.mismatches}</dt><dd id="cod-mismatches" class={r.mismatches > 0 ? 'flag' : undefined}>{r.mismatches}</dd>
          </dl>
          {r.lines.length === 0 ? <p id="cod-empty">{t.empty}</p> : (
            <div class="table-wrap">
              <table id="cod-lines">
                <thead><tr><th scope="col">{t.order}</th><th scope="col" class="num">{t.expected}</th><th scope="col" class="num">{t.cash}</th><th scope="col">{t.mismatch}</th><th scope="col">{t.status}</th><th scope="col" class="num">{t.handedOver}</th><th scope="col">{t.at}</th></tr></thead>
                <tbody>
                  {r.lines.map((l) => (
                    <tr key={l.id} data-order-id={l.bookingId} data-mismatch={String(l.mismatch)} data-status={l.status}>
                      <td data-label={t.order}><Link href={`/console/orders/${encodeURIComponent(l.bookingId)}`}>{l.bookingId}</Link></td>
                      <td class="num" data-label={t.expected} data-known={String(l.expected !== null)}>{amountText(l.expected)}</td>
                      <td class="num" data-label={t.cash}>{clp(l.collected)}</td>
                      <td data-label={t.mismatch}>{l.mismatch ? <strong class="flag">{t.mismatch}</strong> : t.ok}</td>
                      <td data-label={t.status}>{l.status === 'pending_confirmation' || l.status === 'rejected' ? <strong class="flag">{t[l.status]}</strong> : t[l.status]}</td>
                      <td class="num" data-label={t.handedOver}>{clp(l.handedOver)}</td>
                      <td data-label={t.at}>{dateTime(l.collectedAt, lang)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      <div class="pager">
        <button type="button" id="cod-previous" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>{t.previous}</button>
        <button type="button" id="cod-next" disabled={!r?.nextCursor} onClick={() => setCursors([...cursors, r!.nextCursor])}>{t.next}</button>
      </div>
    </section>
  );
}
