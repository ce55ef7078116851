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
 * Roles: hide or disable what a role may not do (`useApp().me.role`), but let the API decide:
 * show its refusal (`<ErrorNote error={…} />`) when an action is attempted anyway.
 */
import type { ComponentType } from 'preact';
import { matchRoute } from '../shared/router.js';
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

export { Link, navigate, useLocation } from '../shared/router.js';
