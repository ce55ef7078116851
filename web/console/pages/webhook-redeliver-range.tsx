import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { request } from '../../shared/api/http.js';
import { useApp } from '../app-state.js';
import { graphql } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ConfirmButton } from '../../shared/ui/confirm-button.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { fromSantiagoInput, toSantiagoInput } from '../../shared/ui/santiago-time.js';
import '../ui/manage.css';

/** The most the preview counts (the log's page maximum); one redelivery call takes up to 1,000. */
const COUNT_MAX = 100;

const FAILED = graphql(`query ConsoleFailedWebhooks($from: DateTime!, $to: DateTime!, $first: Int) {
  webhookDeliveries(status: failed, createdFrom: $from, createdTo: $to, first: $first) { __typename
    ... on QueryWebhookDeliveriesSuccess { data { id } } ... on AppError { code message } } }`);
const REDELIVER_FAILED = graphql(`mutation ConsoleRedeliverFailedWebhooks($from: DateTime!, $to: DateTime!, $key: String) {
  redeliverFailedWebhooks(createdFrom: $from, createdTo: $to, idempotencyKey: $key) { __typename
    ... on MutationRedeliverFailedWebhooksSuccess { data more } ... on AppError { code message } } }`);

const S: Strings<'title' | 'from' | 'to' | 'count' | 'counted' | 'atLeast' | 'none' | 'redeliver' | 'question' | 'requeued' | 'more'> = {
  es: { title: 'Reenviar las fallidas de un período', from: 'Desde (hora de Santiago)', to: 'Hasta (hora de Santiago)', count: 'Contar fallidas', counted: 'Entregas fallidas en el período:', atLeast: 'al menos', none: 'No hay entregas fallidas en el período.', redeliver: 'Reenviar las fallidas', question: '¿Reenviar todas las fallidas del período?', requeued: 'Reenvíos en cola:', more: 'Quedan más: reenvía de nuevo.' },
  en: { title: 'Redeliver the failed ones of a time range', from: 'From (Santiago time)', to: 'To (Santiago time)', count: 'Count failed', counted: 'Failed deliveries in the range:', atLeast: 'at least', none: 'No failed deliveries in the range.', redeliver: 'Redeliver the failed ones', question: 'Redeliver every failed one of the range?', requeued: 'Requeued:', more: 'More remain: redeliver again.' },
};

/** Counts the failed deliveries of a range first, then requeues them (dispatcher and owner; hidden for a viewer). */
export function RedeliverFailedRange() {
  const app = useApp();
  const t = useStrings(S);
  const now = Date.now();
  const [range, setRange] = useState({ from: toSantiagoInput(now - 24 * 3_600_000), to: toSantiagoInput(now + 3_600_000) });
  const [count, setCount] = useState<number | null>(null);
  const [result, setResult] = useState<{ requeued: number; more: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [key, setKey] = useState(() => crypto.randomUUID());
  const vars = () => ({ from: fromSantiagoInput(range.from), to: fromSantiagoInput(range.to) });
  const set = (patch: Partial<typeof range>) => {
    setRange({ ...range, ...patch });
    setCount(null);
    setResult(null);
    setKey(crypto.randomUUID());
  };
  const run = async (action: () => Promise<void>) => {
    setError(null);
    try { await action(); } catch (failure) { setError(failure); }
  };
  const onCount = () => run(async () => {
    setResult(null);
    setCount(dataOf((await request(FAILED, { ...vars(), first: COUNT_MAX }, app.mode)).webhookDeliveries).length);
  });
  const onRedeliver = () => run(async () => {
    const outcome = (await request(REDELIVER_FAILED, { ...vars(), key }, app.mode)).redeliverFailedWebhooks;
    const requeued = dataOf(outcome);
    setResult({ requeued, more: 'more' in outcome && outcome.more === true });
    setCount(null);
    setKey(crypto.randomUUID());
  });

  return (
    <section class="card" aria-labelledby="redeliver-range-title" id="redeliver-range" hidden={app.me?.role === 'viewer'}>
      <h2 id="redeliver-range-title">{t.title}</h2>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); void onCount(); }}>
        <label>{t.from}<input type="datetime-local" id="range-from" required value={range.from} onChange={(e) => set({ from: e.currentTarget.value })} /></label>
        <label>{t.to}<input type="datetime-local" id="range-to" required value={range.to} onChange={(e) => set({ to: e.currentTarget.value })} /></label>
        <button type="submit" id="range-count">{t.count}</button>
      </form>
      <div aria-live="polite">
        {count !== null && (count === 0
          ? <p id="range-counted" data-count="0">{t.none}</p>
          : <p id="range-counted" data-count={count}>{t.counted} <strong>{count === COUNT_MAX ? `${t.atLeast} ${count}` : count}</strong></p>)}
        {result && <p id="range-result" data-requeued={result.requeued}>{t.requeued} <strong>{result.requeued}</strong>{result.more ? ` · ${t.more}` : ''}</p>}
      </div>
      {count !== null && count > 0 && <ConfirmButton id="range-redeliver" label={`${t.redeliver} (${count === COUNT_MAX ? `≥ ${count}` : count})`} question={t.question} onConfirm={() => void onRedeliver()} />}
      <ErrorNote error={error} />
    </section>
  );
}
