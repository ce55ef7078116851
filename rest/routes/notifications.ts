import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentNotification, presentNotificationSettings } from '../presenters/notification.js';
import { principalOf, sendOk } from '../respond.js';
import { listNotificationsQuery, notificationSettingsCommand } from '../wire/notifications.js';

/** Recipient notifications: the merchant's settings and its outbox (test keys: the sandbox outbox, never sent). */
export function notificationRoutes(router: Router, edge: Edge): void {
  const { notifications } = edge.services;

  router.get('/notifications', requireMerchant(edge, { level: 'profile' }), async (req, res) => {
    const page = await notifications.listNotifications({ principal: principalOf(res), input: listNotificationsQuery(req.query) });
    sendOk(res, { notifications: page.notifications.map(presentNotification), next_cursor: page.nextCursor, has_more: page.nextCursor !== null });
  });

  router.get('/notifications/settings', requireMerchant(edge, { level: 'profile' }), async (_req, res) => {
    sendOk(res, { settings: presentNotificationSettings(await notifications.getNotificationSettings({ principal: principalOf(res) })) });
  });

  router.put('/notifications/settings', requireMerchant(edge, { level: 'settings' }), async (req, res) => {
    const input = notificationSettingsCommand(req.body);
    sendOk(res, { settings: presentNotificationSettings(await notifications.updateNotificationSettings({ principal: principalOf(res), input })) });
  });
}
