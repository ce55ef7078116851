import { useState } from 'preact/hooks';
import { dataOf } from '../../shared/api/errors.js';
import { operatorRequest } from '../../shared/api/http.js';
import { dateTime } from '../../shared/format.js';
import { graphql, type ResultOf } from '../../shared/graphql.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useLoad } from '../../shared/ui/hooks.js';
import { may, useApp } from '../app-state.js';

export const AUDIT_ENTRY = graphql(`fragment OpsAuditEntry on AuditEntry @_unmask { id at action targetType targetId before after actor { kind email operatorId } }`);
export type AuditEntry = ResultOf<typeof AUDIT_ENTRY>;

const HISTORY = graphql(`query OpsHistory($targetType: AuditTargetType!, $targetId: ID!) {
  adminAuditLog(targetType: $targetType, targetId: $targetId, first: 20) { entries { ...OpsAuditEntry } } }`, [AUDIT_ENTRY]);
const ADD_NOTE = graphql(`mutation OpsAddNote($targetType: AuditTargetType!, $targetId: ID!, $text: String!) {
  adminAddNote(targetType: $targetType, targetId: $targetId, text: $text) { __typename ... on MutationAdminAddNoteSuccess { data { id } } ... on AppError { code message } } }`);

const STRINGS: Strings<'title' | 'note' | 'add' | 'empty' | 'cli' | 'token'> = {
  es: { title: 'Historial y notas', note: 'Nota nueva', add: 'Agregar nota', empty: 'Sin acciones registradas.', cli: 'CLI', token: 'token de administración' },
  en: { title: 'History and notes', note: 'New note', add: 'Add note', empty: 'No recorded actions.', cli: 'CLI', token: 'admin token' },
};

/** Who acted, as the log says it. */
export function ActorName({ actor }: { actor: AuditEntry['actor'] }) {
  const t = useStrings(STRINGS);
  return <>{actor.kind === 'operator' ? actor.email : actor.kind === 'cli' ? t.cli : t.token}</>;
}

/** A target's last 20 audit entries (newest first) and, for every role, a note to add. */
export function History({ targetType, targetId, version }: { targetType: 'merchant' | 'courier'; targetId: string; version: number }) {
  const app = useApp();
  const t = useStrings(STRINGS);
  const [error, setError] = useState<unknown>(null);
  const [text, setText] = useState('');
  const history = useLoad(async () => (await operatorRequest(HISTORY, { targetType, targetId })).adminAuditLog.entries, [targetId, version]);
  const add = async (event: SubmitEvent) => {
    event.preventDefault();
    try {
      dataOf((await operatorRequest(ADD_NOTE, { targetType, targetId, text })).adminAddNote);
      setText('');
      setError(null);
      history.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section class="card" aria-labelledby="history-title">
      <h2 id="history-title">{t.title}</h2>
      <ErrorNote error={history.error} />
      {history.data?.length === 0 && <p>{t.empty}</p>}
      <ol class="timeline" id="history">
        {history.data?.map((e) => (
          <li key={e.id} data-action={e.action}>
            <time dateTime={e.at}>{dateTime(e.at, app.lang)}</time> <strong>{e.action}</strong> · <ActorName actor={e.actor} />
            {e.action === 'note.add' && e.after && <> <q>{(JSON.parse(e.after) as { text?: string }).text}</q></>}
          </li>
        ))}
      </ol>
      {may(app.me, 'notes') && (
        <form id="note-form" onSubmit={(e) => void add(e)}>
          <label>{t.note}<textarea name="text" required maxLength={2000} rows={2} value={text} onInput={(e) => setText(e.currentTarget.value)} /></label>
          <ErrorNote error={error} />
          <div class="actions"><button type="submit">{t.add}</button></div>
        </form>
      )}
    </section>
  );
}
