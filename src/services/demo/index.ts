export { createDemoWebhook, deleteDemoWebhook, listDemoWebhooks, DEMO_WEBHOOK_NOT_FOUND, type DemoWebhookView } from './webhooks.js';
export { listDemoEvents } from './events.js';
export { getVolumeStats, windowStats, type WindowStats } from './volume-stats.js';
export * from './schemas.js';
