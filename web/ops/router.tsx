/**
 * The ops app's pages and navigation: one list. Every role reads every page; what a role may not
 * do is hidden on the page (`may(me, …)`), and the API refuses it anyway (FORBIDDEN_ROLE).
 */
import type { ComponentType } from 'preact';
import { matchRoute } from '../shared/router.js';
import { AuditPage } from './pages/audit.js';
import { CouriersPage } from './pages/couriers.js';
import { MerchantPage } from './pages/merchant.js';
import { MerchantsPage } from './pages/merchants.js';
import { NowPage } from './pages/now.js';
import { OperatorsPage } from './pages/operators.js';
import { OrderPage } from './pages/order.js';
import { OrdersPage } from './pages/orders.js';
import { SetPasswordPage } from './pages/set-password.js';
import { SignInPage } from './pages/sign-in.js';
import { WebhooksPage } from './pages/webhooks.js';

export { Link, navigate, useLocation } from '../shared/router.js';

export interface PageProps { params: Record<string, string> }

export interface Route {
  path: string;
  page: ComponentType<PageProps>;
  nav?: { es: string; en: string };
  public?: boolean;
}

export const ROUTES: Route[] = [
  { path: '/ops/sign-in', page: SignInPage, public: true },
  { path: '/ops/set-password', page: SetPasswordPage, public: true },
  { path: '/ops', page: NowPage, nav: { es: 'Ahora', en: 'Now' } },
  { path: '/ops/merchants', page: MerchantsPage, nav: { es: 'Comercios', en: 'Merchants' } },
  { path: '/ops/merchants/:id', page: MerchantPage },
  { path: '/ops/webhooks', page: WebhooksPage, nav: { es: 'Webhooks con fallas', en: 'Failing webhooks' } },
  { path: '/ops/orders', page: OrdersPage, nav: { es: 'Pedidos', en: 'Orders' } },
  { path: '/ops/orders/:id', page: OrderPage },
  { path: '/ops/couriers', page: CouriersPage, nav: { es: 'Repartidores', en: 'Couriers' } },
  { path: '/ops/audit', page: AuditPage, nav: { es: 'Auditoría', en: 'Audit log' } },
  { path: '/ops/operators', page: OperatorsPage, nav: { es: 'Operadores', en: 'Operators' } },
];

export const match = (pathname: string) => matchRoute(ROUTES, pathname);
