import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../shared/api/errors.js';
import type { Mode } from '../../shared/api/http.js';
import { useStrings, type Strings } from '../../shared/i18n.js';
import { ErrorNote } from '../../shared/ui/error-note.js';
import { useApp } from '../app-state.js';

const S: Strings<'inLive' | 'inTest' | 'toLive' | 'toTest'> = {
  es: { inLive: 'Este pedido es del modo real: estás viendo el modo prueba.', inTest: 'Este pedido es del modo prueba: estás viendo el modo real.', toLive: 'Ver en modo real', toTest: 'Ver en modo prueba' },
  en: { inLive: 'This order is a live one: you are in test mode.', inTest: 'This order is a test one: you are in live mode.', toLive: 'Open in live mode', toTest: 'Open in test mode' },
};

/**
 * A page's "not found" that may only be the other mode's (issue #38): `probe` reads it there; when
 * it exists, the page offers the switch instead of saying it does not exist.
 */
export function NotFoundOrOtherMode({ error, probe }: { error: unknown; probe: (mode: Mode) => Promise<unknown> }) {
  const app = useApp();
  const t = useStrings(S);
  const other: Mode = app.mode === 'live' ? 'test' : 'live';
  const missing = error instanceof ApiError && (error.code === 'ORDER_NOT_FOUND' || error.code === 'NOT_FOUND');
  const [found, setFound] = useState<boolean | null>(null);
  useEffect(() => {
    setFound(null);
    if (!missing) return;
    let current = true;
    probe(other).then(() => current && setFound(true), () => current && setFound(false));
    return () => { current = false; };
  }, [error]);
  if (missing && found === null) return <p aria-busy="true" />;
  if (!found) return <ErrorNote error={error} />;
  return (
    <div class="card note" id="other-mode" role="status" data-mode={other}>
      <p>{other === 'live' ? t.inLive : t.inTest}</p>
      <button type="button" id="switch-mode" onClick={() => app.setMode(other)}>{other === 'live' ? t.toLive : t.toTest}</button>
    </div>
  );
}
