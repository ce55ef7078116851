import { useState } from 'preact/hooks';
import { operatorRequest } from '../../shared/api/http.js';
import { dateTime } from '../../shared/format.js';
import { graphql, type VariablesOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { fromSantiagoInput } from '../../shared/ui/santiago-time.js';
import { useApp } from '../app-state.js';
import type { PageProps } from '../router.js';
import { CourierName, useCourierNames } from '../ui/courier-names.js';
import { ActorName, AUDIT_ENTRY } from '../ui/history.js';

const AUDIT = graphql(`query OpsAudit($actor: String, $action: String, $targetType: AuditTargetType, $targetId: ID, $from: DateTime, $to: DateTime, $after: String) {
  adminAuditLog(actor: $actor, action: $action, targetType: $targetType, targetId: $targetId, from: $from, to: $to, first: 50, after: $after) {
    entries { ...OpsAuditEntry } nextCursor }
  adminOperators { id email } }`, [AUDIT_ENTRY]);
type Filters = Omit<VariablesOf<typeof AUDIT>, 'after'>;

const TARGET_TYPES = ['merchant', 'courier', 'user', 'member', 'operator', 'order'] as const;

const STRINGS: Strings<'title' | 'actor' | 'anyone' | 'cli' | 'token' | 'action' | 'actionHint' | 'targetType' | 'any' | 'targetId' | 'from' | 'to' | 'apply' | 'at' | 'target' | 'change' | 'empty' | 'newer' | 'older'> = {
  es: { title: 'Auditoría', actor: 'Quién', anyone: 'Cualquiera', cli: 'CLI', token: 'Token de administración', action: 'Acción', actionHint: 'p. ej. courier.disable', targetType: 'Tipo', any: 'Cualquiera', targetId: 'ID del objeto', from: 'Desde (Santiago)', to: 'Hasta (Santiago)', apply: 'Filtrar', at: 'Cuándo', target: 'Sobre', change: 'Antes → después', empty: 'Ninguna entrada coincide.', newer: 'Más recientes', older: 'Más antiguas' },
  en: { title: 'Audit log', actor: 'Who', anyone: 'Anyone', cli: 'CLI', token: 'Admin token', action: 'Action', actionHint: 'e.g. courier.disable', targetType: 'Type', any: 'Any', targetId: 'Target ID', from: 'From (Santiago)', to: 'To (Santiago)', apply: 'Filter', at: 'When', target: 'On', change: 'Before → after', empty: 'No entry matches.', newer: 'Newer', older: 'Older' },
};

/** The audit log, newest first, 50 a page, with every filter the query takes. */
export function AuditPage(_props: PageProps) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const [filters, setFilters] = useState<Filters>({});
  // The cursors of the pages before this one (to go back) and this page's own.
  const [trail, setTrail] = useState<string[]>([]);
  const after = trail.at(-1);
  const log = useLoad(() => operatorRequest(AUDIT, { ...filters, ...(after && { after }) }), [JSON.stringify(filters), after]);

  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const next: Filters = {};
    if (text('actor')) next.actor = text('actor');
    if (text('action')) next.action = text('action');
    if (text('targetType')) next.targetType = text('targetType') as (typeof TARGET_TYPES)[number];
    if (text('targetId')) next.targetId = text('targetId');
    if (text('from')) next.from = fromSantiagoInput(text('from'));
    if (text('to')) next.to = fromSantiagoInput(text('to'));
    setFilters(next);
    setTrail([]);
  };
  const page = log.data?.adminAuditLog;
  const couriers = useCourierNames(page?.entries.map((e) => (e.targetType === 'courier' ? e.targetId : null)) ?? []);

  return (
    <>
      <h1>{t.title}</h1>
      <form id="audit-filters" class="card filters" onSubmit={onSubmit}>
        <label>{t.actor}
          <select name="actor">
            <option value="">{t.anyone}</option>
            {log.data?.adminOperators.map((o) => <option key={o.id} value={o.id}>{o.email}</option>)}
            <option value="admin_token">{t.token}</option>
            <option value="cli">{t.cli}</option>
          </select>
        </label>
        <label>{t.action}<input name="action" placeholder={t.actionHint} /></label>
        <label>{t.targetType}
          <select name="targetType"><option value="">{t.any}</option>{TARGET_TYPES.map((type) => <option key={type} value={type}>{type}</option>)}</select>
        </label>
        <label>{t.targetId}<input name="targetId" /></label>
        <label>{t.from}<input name="from" type="datetime-local" /></label>
        <label>{t.to}<input name="to" type="datetime-local" /></label>
        <button type="submit">{t.apply}</button>
      </form>
      <ErrorNote error={log.error} />
      {page && page.entries.length === 0 && <p id="audit-empty">{t.empty}</p>}
      {page && page.entries.length > 0 && (
        <div class="table-wrap card">
          <table id="audit">
            <thead><tr><th>{t.at}</th><th>{t.actor}</th><th>{t.action}</th><th>{t.target}</th><th>{t.change}</th></tr></thead>
            <tbody>
              {page.entries.map((e) => (
                <tr key={e.id} data-action={e.action} data-target={e.targetId}>
                  <td data-label={t.at}>{dateTime(e.at, app.lang)}</td>
                  <td data-label={t.actor}><ActorName actor={e.actor} /></td>
                  <td data-label={t.action}><code>{e.action}</code></td>
                  <td class="wrap" data-label={t.target}>{e.targetType} {e.targetType === 'courier' ? <CourierName id={e.targetId} names={couriers} /> : <code>{e.targetId}</code>}</td>
                  <td class="wrap" data-label={t.change}><span class="snapshot">{e.before ?? '∅'} → {e.after ?? '∅'}</span></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        {trail.length > 0 && <button type="button" id="audit-newer" onClick={() => setTrail(trail.slice(0, -1))}>{t.newer}</button>}
        {page?.nextCursor && <button type="button" id="audit-older" onClick={() => setTrail([...trail, page.nextCursor!])}>{t.older}</button>}
      </div>
    </>
  );
}
