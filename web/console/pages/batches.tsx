import { useState } from 'preact/hooks';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { dateTime } from '../../shared/format.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { Link, type PageProps } from '../router.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { BATCH_STATUS, VEHICLES } from '../ui/batch-labels.js';
import '../ui/manage.css';

const PAGE_SIZE = 20;

const BATCHES = graphql(`query ConsoleBatches($first: Int, $after: ID) { batches(first: $first, after: $after) {
  id status vehicleType totalWeightKg geohashZone createdAt orders { id } } }`);

const S: Strings<'title' | 'batch' | 'status' | 'vehicle' | 'weight' | 'orders' | 'zone' | 'created' | 'empty' | 'next' | 'previous' | 'help'> = {
  es: { title: 'Lotes', batch: 'Lote', status: 'Estado', vehicle: 'Vehículo', weight: 'Peso', orders: 'Pedidos', zone: 'Zona', created: 'Creado', empty: 'No hay lotes en este modo.', next: 'Siguiente', previous: 'Anterior', help: 'Pedidos consolidados en un solo viaje.' },
  en: { title: 'Batches', batch: 'Batch', status: 'Status', vehicle: 'Vehicle', weight: 'Weight', orders: 'Orders', zone: 'Zone', created: 'Created', empty: 'No batches in this mode.', next: 'Next', previous: 'Previous', help: 'Orders consolidated into one trip.' },
};

/** The merchant's batches in the current mode; pages where `after` is the last id shown. */
export function BatchesPage(_props: PageProps) {
  const { lang } = useApp();
  const t = useStrings(S);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const page = useLoad(async (mode) => {
    const rows = (await request(BATCHES, { first: PAGE_SIZE + 1, after }, mode)).batches;
    return { rows: rows.slice(0, PAGE_SIZE), hasNext: rows.length > PAGE_SIZE };
  }, [after]);

  return (
    <section aria-labelledby="batches-title">
      <h1 id="batches-title">{t.title}</h1>
      <p class="note">{t.help}</p>
      <ErrorNote error={page.error} />
      {page.data && (page.data.rows.length === 0 ? <p id="batches-empty">{t.empty}</p> : (
        <div class="table-wrap">
          <table id="batches">
            <thead><tr><th scope="col">{t.batch}</th><th scope="col">{t.status}</th><th scope="col">{t.vehicle}</th><th scope="col" class="num">{t.orders}</th><th scope="col" class="num">{t.weight}</th><th scope="col">{t.zone}</th><th scope="col">{t.created}</th></tr></thead>
            <tbody>
              {page.data.rows.map((b) => (
                <tr key={b.id} data-batch-id={b.id}>
                  <td data-label={t.batch}><Link href={`/console/batches/${encodeURIComponent(b.id)}`}>{b.id}</Link></td>
                  <td data-label={t.status}>{BATCH_STATUS[lang][b.status as keyof (typeof BATCH_STATUS)['es']] ?? b.status}</td>
                  <td data-label={t.vehicle}>{VEHICLES[lang][b.vehicleType]}</td>
                  <td class="num" data-label={t.orders}>{b.orders.length}</td>
                  <td class="num" data-label={t.weight}>{b.totalWeightKg} kg</td>
                  <td class="mono" data-label={t.zone}>{b.geohashZone}</td>
                  <td data-label={t.created}>{dateTime(b.createdAt, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      <div class="pager">
        <button type="button" id="batches-previous" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>{t.previous}</button>
        <button type="button" id="batches-next" disabled={!page.data?.hasNext} onClick={() => setCursors([...cursors, page.data!.rows.at(-1)!.id])}>{t.next}</button>
      </div>
    </section>
  );
}
