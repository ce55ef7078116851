/** The room's client-side routing: history navigation, the current location, in-app links (console and ops). */
import { useEffect, useState } from 'preact/hooks';

/** The first route whose path (`:name` parts are params) matches `pathname`. */
export function matchRoute<R extends { path: string }>(routes: readonly R[], pathname: string): { route: R; params: Record<string, string> } | null {
  const parts = pathname.replace(/\/+$/, '').split('/');
  for (const route of routes) {
    const pattern = route.path.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    if (pattern.every((p, i) => (p.startsWith(':') ? (params[p.slice(1)] = decodeURIComponent(parts[i]!)) !== '' : p === parts[i]))) return { route, params };
  }
  return null;
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The current location, re-rendering on navigation. */
export function useLocation(): { pathname: string; search: string } {
  const [location, setLocation] = useState({ pathname: location_().pathname, search: location_().search });
  useEffect(() => {
    const update = () => setLocation({ pathname: location_().pathname, search: location_().search });
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return location;
}
const location_ = () => window.location;

/** An in-app link: a real <a href> (opens in a new tab too), navigated without a reload. */
export function Link(props: { href: string; class?: string; children: preact.ComponentChildren; 'aria-current'?: 'page' }) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.href);
  };
  return <a href={props.href} class={props.class} aria-current={props['aria-current']} onClick={onClick}>{props.children}</a>;
}
