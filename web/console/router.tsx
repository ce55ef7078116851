/**
 * The console's pages and its navigation: one list.
 *
 * Adding a page (see also docs/decisions/0027-merchant-console.md and docs/development.md, "A page"):
 * 1. Write `pages/<name>.tsx` exporting a component `(props: PageProps) => JSX`; keep its strings
 *    in the same file as `const STRINGS: Strings<…> = { es: {…}, en: {…} }` and read them with
 *    `useStrings(STRINGS)`. Its GraphQL documents go beside it, written with `graphql(…)` from
 *    ../graphql.js (typed against the schema), sent with `request(doc, vars, mode)` and read with
 *    `dataOf(result)`; subscriptions with `useSubscription`.
 * 2. Add one line to ROUTES below: its path (`:name` parts become `props.params.name`), the
 *    component, and `nav: { es, en }` when it belongs in the header's menu.
 * 3. The server answers the app shell for every /console/* path already; nothing to do there.
 * Mode in the address (issue #38): a signed-in page's address names its mode
 * (/console/live/orders/…); ROUTES and links are written without it (`Link` and `navigate` below
 * add the current one) and an address without one is moved to the browser's last mode.
 * Roles: hide or disable what a role may not do (`useApp().me.role`), but let the API decide:
 * show its refusal (`<ErrorNote error={…} />`) when an action is attempted anyway.
 */
import type { ComponentType } from 'preact';
import type { Mode } from '../shared/api/http.js';
import { useMode } from '../shared/context.js';
import { Link as PlainLink, matchRoute, navigate as plainNavigate } from '../shared/router.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { BatchPage } from './pages/batch.js';
import { BatchesPage } from './pages/batches.js';
import { CodReportPage } from './pages/cod-report.js';
import { NewOrderPage } from './pages/new-order.js';
import { NotificationsPage } from './pages/notifications.js';
import { OrderPage } from './pages/order.js';
import { OrdersBoard } from './pages/orders-board.js';
import { SetPasswordPage } from './pages/set-password.js';
import { SettingsPage } from './pages/settings.js';
import { SignInPage } from './pages/sign-in.js';
import { TeamPage } from './pages/team.js';
import { WebhookDeliveryPage } from './pages/webhook-delivery.js';
import { WebhooksPage } from './pages/webhooks.js';

export interface PageProps { params: Record<string, string> }

export interface Route {
  path: string;
  page: ComponentType<PageProps>;
  /** Shown in the header's menu under this label. */
  nav?: { es: string; en: string };
  /** Reachable without a session (no header). */
  public?: boolean;
}

export const ROUTES: Route[] = [
  { path: '/console/sign-in', page: SignInPage, public: true },
  { path: '/console/set-password', page: SetPasswordPage, public: true },
  { path: '/console', page: OrdersBoard, nav: { es: 'Pedidos', en: 'Orders' } },
  { path: '/console/orders/new', page: NewOrderPage, nav: { es: 'Nuevo pedido', en: 'New order' } },
  { path: '/console/orders/:id', page: OrderPage },
  { path: '/console/batches', page: BatchesPage, nav: { es: 'Lotes', en: 'Batches' } },
  { path: '/console/batches/:id', page: BatchPage },
  { path: '/console/cod', page: CodReportPage, nav: { es: 'Contra entrega', en: 'Cash on delivery' } },
  { path: '/console/webhooks', page: WebhooksPage, nav: { es: 'Webhooks', en: 'Webhooks' } },
  { path: '/console/webhooks/deliveries/:id', page: WebhookDeliveryPage },
  { path: '/console/notifications', page: NotificationsPage, nav: { es: 'Avisos', en: 'Notifications' } },
  { path: '/console/api-keys', page: ApiKeysPage, nav: { es: 'Claves API', en: 'API keys' } },
  { path: '/console/settings', page: SettingsPage, nav: { es: 'Ajustes', en: 'Settings' } },
  { path: '/console/team', page: TeamPage, nav: { es: 'Equipo', en: 'Team' } },
];

export const match = (pathname: string) => matchRoute(ROUTES, pathname);

const MODE_SEGMENT = /^\/console\/(test|live)(?=\/|$|\?)/;
const PUBLIC = new Set(ROUTES.filter((r) => r.public).map((r) => r.path));

/** The mode an address names (/console/live/orders/…); null when it names none. */
export const modeOfPath = (pathname: string): Mode | null => (MODE_SEGMENT.exec(pathname)?.[1] as Mode | undefined) ?? null;

/** The page's path as ROUTES write it: without its mode. */
export const pageOfPath = (pathname: string): string => pathname.replace(MODE_SEGMENT, '/console');

/** A console path in `mode` (`/console/orders/x?y` → `/console/live/orders/x?y`); public pages and other paths as they are. */
export function inMode(path: string, mode: Mode): string {
  const page = pageOfPath(path);
  if (!page.startsWith('/console') || PUBLIC.has(page.split(/[?#]/)[0]!)) return page;
  return page.replace(/^\/console/, `/console/${mode}`);
}

/** An in-app link to a page of the current mode. */
export function Link(props: Parameters<typeof PlainLink>[0]) {
  return <PlainLink {...props} href={inMode(props.href, useMode())} />;
}

/** Navigates to a page, in the mode the address names now (else as given). */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const mode = modeOfPath(window.location.pathname);
  plainNavigate(mode ? inMode(path, mode) : path, options);
}

export { useLocation } from '../shared/router.js';
