import { SlashCommandBuilder, type RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import { ALERT_TYPES } from '../commands/alert.js';
import { COMMANDS } from '../commands/index.js';

const summary = (name: string): string => (COMMANDS.find((c) => c.name === name)?.summary ?? name).slice(0, 100);
const cmd = (name: string) => new SlashCommandBuilder().setName(name).setDescription(summary(name));

const idOption = (name: 'pause' | 'resume' | 'delete') =>
  cmd(name).addStringOption((o) => o.setName('id').setDescription('The alert id').setRequired(true).setAutocomplete(true));

/**
 * The slash commands, mirroring the command layer. The options of each are in the order the
 * command layer reads its words: `optionsToText` relies on it.
 */
export const DISCORD_COMMANDS: RESTPostAPIChatInputApplicationCommandsJSONBody[] = [
  cmd('help'),
  cmd('search').addStringOption((o) =>
    o.setName('query').setDescription('Words, or tag:<slug> [tag:<slug> ...]').setRequired(true).setAutocomplete(false),
  ),
  cmd('watch')
    .addStringOption((o) => o.setName('event').setDescription('Event link, slug or id').setRequired(true))
    .addStringOption((o) => o.setName('watchlist').setDescription('Watchlist id or name ("My watchlist" by default)')),
  cmd('unwatch').addStringOption((o) => o.setName('event').setDescription('Event link, slug or id').setRequired(true)),
  cmd('watchlists'),
  cmd('alert')
    .addStringOption((o) => o.setName('market').setDescription('The market (type to search)').setRequired(true).setAutocomplete(true))
    .addStringOption((o) =>
      o
        .setName('type')
        .setDescription('When to alert')
        .setRequired(true)
        .addChoices(...Object.entries(ALERT_TYPES).map(([value, label]) => ({ name: `${value} (${label})`, value }))),
    )
    .addNumberOption((o) => o.setName('percent').setDescription('Threshold percent').setRequired(true).setMinValue(0).setMaxValue(100))
    .addStringOption((o) => o.setName('repeat').setDescription('"once" or "every 5m|30m|60m|6h|12h|24h" (every 30m by default)')),
  cmd('alerts'),
  idOption('pause'),
  idOption('resume'),
  idOption('delete'),
  cmd('inbox'),
  cmd('token'),
].map((b) => b.toJSON());

/** An interaction option as the gateway sends it. */
export interface RawOption {
  name: string;
  type: number;
  value?: string | number | boolean;
  focused?: boolean;
  options?: RawOption[];
}

/** `/alert market:501314 type:up percent:60 repeat:every 30m` → `alert 501314 up 60 every 30m`. */
export function optionsToText(name: string, options: RawOption[] = []): string {
  const def = DISCORD_COMMANDS.find((c) => c.name === name);
  const byName = new Map(options.map((o) => [o.name, o.value]));
  const order = def?.options?.map((o) => o.name) ?? options.map((o) => o.name);
  const words = order
    .map((n) => byName.get(n))
    .filter((v): v is string | number | boolean => v !== undefined && v !== '')
    .map((v) => String(v).trim());
  return [name, ...words].join(' ');
}
