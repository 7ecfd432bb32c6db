export { createDemoWebhook, deleteDemoWebhook, listDemoWebhooks } from './webhooks.js';
export { listDemoEvents } from './events.js';
export { getVolumeStats } from './volume-stats.js';
export * from './schemas.js';
