export { createDiscordBot, EPHEMERAL, NEED_WEBHOOK_PERMISSION, type DiscordBot, type RawInteraction } from './bot.js';
export { DISCORD_COMMANDS } from './slash.js';
export { discordInteractionsEndpoint, type InteractionsEndpoint } from './interactions-endpoint.js';
export { discordConnector } from './connection.js';
