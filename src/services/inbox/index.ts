export { listDeliveries } from './deliveries.js';
export { listSubscriptionHistory } from './history.js';
export { findNotification, listNotifications, listNotificationsAfter } from './list.js';
export { markNotificationRead } from './read.js';
export { redeliverNotification } from './redeliver.js';
export * from './schemas.js';
export type { NotificationView } from './view.js';
