import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { onSocketState, subscribe, type SocketState } from '../api/socket.js';
import { useMode } from '../context.js';
import type { ResultOf, TadaDocumentNode, VariablesOf } from '../graphql.js';
import type { Mode } from '../api/http.js';

/** Loads with `load(mode)` now and whenever the mode or `deps` change; `reload` runs it again. */
export function useLoad<T>(load: (mode: Mode) => Promise<T>, deps: unknown[]) {
  const mode = useMode();
  const [state, setState] = useState<{ data: T | null; error: unknown; loading: boolean }>({ data: null, error: null, loading: true });
  const latest = useRef(0);
  const reload = useCallback(() => {
    const call = ++latest.current;
    setState((s) => ({ data: s.data, error: null, loading: true }));
    load(mode).then(
      (data) => call === latest.current && setState({ data, error: null, loading: false }),
      (error: unknown) => call === latest.current && setState({ data: null, error, loading: false }),
    );
  }, [mode, ...deps]);
  useEffect(reload, [reload]);
  return { ...state, reload, setData: (data: T) => setState({ data, error: null, loading: false }) };
}

/** A subscription in the current mode, open while the component is shown (reopened on a mode switch). */
export function useSubscription<D extends TadaDocumentNode<unknown, never>>(
  document: D,
  variables: VariablesOf<D> | null,
  onData: (data: ResultOf<D>) => void,
): void {
  const mode = useMode();
  const handler = useRef(onData);
  handler.current = onData;
  const key = JSON.stringify(variables);
  useEffect(() => (variables === null ? undefined : subscribe(document, variables, mode, (data) => handler.current(data))), [document, key, mode]);
}

/** The live socket's state, for a "live / reconnecting" indicator. */
export function useSocketState(): SocketState {
  const [state, setState] = useState<SocketState>('connecting');
  useEffect(() => onSocketState(setState), []);
  return state;
}

/**
 * Runs `onBack` each time the socket is live again after a drop: what happened meanwhile was never
 * pushed (a subscription does not replay), so the page fetches what it shows again.
 */
export function useReconnected(onBack: () => void): void {
  const handler = useRef(onBack);
  handler.current = onBack;
  useEffect(() => {
    let previous: SocketState | null = null;
    return onSocketState((next) => {
      if (previous === 'reconnecting' && next === 'live') handler.current();
      previous = next;
    });
  }, []);
}
