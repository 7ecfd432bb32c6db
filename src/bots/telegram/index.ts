export { createTelegramBot, TELEGRAM_MENU, type TelegramBotOptions } from './bot.js';
export { startTelegramBot, webhookSecret, type RunningTelegramBot } from './start.js';
export type { OddsContext } from './context.js';
