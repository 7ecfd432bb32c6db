export { createTelegramBot, TELEGRAM_MENU, type TelegramBotOptions } from './bot.js';
export { createTelegramEndpoint, webhookSecret, type TelegramBotEndpoint } from './start.js';
export type { OddsContext } from './context.js';
