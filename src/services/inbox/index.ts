export { listDeliveries, type DeliveryView } from './deliveries.js';
export { listSubscriptionHistory, type HistoryEntry } from './history.js';
export { findNotification, listNotifications, listNotificationsAfter } from './list.js';
export { markNotificationRead } from './read.js';
export { redeliverNotification } from './redeliver.js';
export * from './schemas.js';
export type { NotificationView } from './view.js';
