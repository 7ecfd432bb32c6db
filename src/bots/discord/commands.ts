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
  cmd('watchlist')
    .addSubcommand((s) =>
      s.setName('new').setDescription('Create a watchlist').addStringOption((o) => o.setName('name').setDescription('Its name').setRequired(true)),
    )
    .addSubcommand((s) =>
      s.setName('show').setDescription('One watchlist and its events').addStringOption((o) => o.setName('watchlist').setDescription('Id or name').setRequired(true)),
    )
    .addSubcommand((s) =>
      s
        .setName('rename')
        .setDescription('Rename a watchlist')
        .addStringOption((o) => o.setName('id').setDescription('Its id').setRequired(true))
        .addStringOption((o) => o.setName('name').setDescription('The new name').setRequired(true)),
    )
    .addSubcommand((s) =>
      s.setName('delete').setDescription('Delete a watchlist and its alerts').addStringOption((o) => o.setName('watchlist').setDescription('Id or name').setRequired(true)),
    ),
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
  cmd('alerts').addStringOption((o) =>
    o.setName('id').setDescription("An alert's id: its last 5 firings and how each was delivered").setAutocomplete(true),
  ),
  cmd('testalert'),
  idOption('pause'),
  idOption('resume'),
  idOption('delete'),
  cmd('enable')
    .addStringOption((o) => o.setName('id').setDescription('The alert id').setRequired(true).setAutocomplete(true))
    .addIntegerOption((o) =>
      o.setName('channel').setDescription('The channel number the disabled notice names').setRequired(true).setMinValue(0).setMaxValue(999),
    ),
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
  return words(DISCORD_COMMANDS.find((c) => c.name === name), name, options).join(' ');
}

const SUBCOMMAND = 1;
type OptionDef = { name: string; type: number; options?: OptionDef[] };

/** The command (or subcommand) name and its option values in definition order; `/watchlist new name:X` → `watchlist new X`. */
function words(def: { options?: readonly OptionDef[] } | undefined, name: string, options: RawOption[]): string[] {
  const sub = options.find((o) => o.type === SUBCOMMAND);
  if (sub) return [name, ...words(def?.options?.find((o) => o.name === sub.name), sub.name, sub.options ?? [])];
  const byName = new Map(options.map((o) => [o.name, o.value]));
  const order = def?.options?.map((o) => o.name) ?? options.map((o) => o.name);
  const values = order
    .map((n) => byName.get(n))
    .filter((v): v is string | number | boolean => v !== undefined && v !== '')
    .map((v) => String(v).trim());
  return [name, ...values];
}
