import {
  ApplicationCommandOptionType,
  type APIApplicationCommandBasicOption,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import { COMMANDS, type Param } from '../commands/index.js';

// The slash commands, generated from the command layer's declarations (commands/params.ts): the
// same names, choices and bounds as the Telegram parser, so the two cannot drift.

const MAX_DESCRIPTION = 100; // Discord's limit for command, option and choice texts
const cut = (text: string): string => text.slice(0, MAX_DESCRIPTION);

function option(param: Param): APIApplicationCommandBasicOption {
  const base = { name: param.name, description: cut(param.help), required: !param.optional };
  switch (param.kind) {
    case 'text':
      return { ...base, type: ApplicationCommandOptionType.String, ...(param.autocomplete ? { autocomplete: true } : {}) };
    case 'choice':
      return {
        ...base,
        type: ApplicationCommandOptionType.String,
        choices: param.choices.map((c) => ({ name: cut(`${c.word} (${c.label})`), value: c.word })),
      };
    case 'number':
    case 'integer':
      // Discord's bounds are inclusive: an exclusive bound (0 or 100 %) is refused by checkValue instead.
      return param.kind === 'integer'
        ? { ...base, type: ApplicationCommandOptionType.Integer, min_value: param.min, max_value: param.max }
        : { ...base, type: ApplicationCommandOptionType.Number, min_value: param.min, max_value: param.max };
  }
}

/** Discord lists required options first; the declarations already put optional ones last. */
const options = (params: readonly Param[]) => params.map(option);

export const DISCORD_COMMANDS: RESTPostAPIChatInputApplicationCommandsJSONBody[] = COMMANDS.filter((c) => c.name !== 'start').map((c) => ({
  name: c.name,
  description: cut(c.summary),
  ...(c.subcommands
    ? {
        options: c.subcommands.map((s) => ({
          type: ApplicationCommandOptionType.Subcommand,
          name: s.name,
          description: cut(s.summary),
          options: options(s.params),
        })),
      }
    : c.params && c.params.length > 0
      ? { options: options(c.params) }
      : {}),
}));

/** An interaction option as Discord sends it. */
export interface RawOption {
  name: string;
  type: number;
  value?: string | number | boolean;
  focused?: boolean;
  options?: RawOption[];
}

/** Discord's typed options as the command layer's values: `/watchlist rename id:w1 name:X` → `rename`, `{ id, name }`. */
export function valuesFromOptions(options: readonly RawOption[] = []): { subcommand?: string; values: Record<string, string | number> } {
  const sub = options.find((o) => o.type === ApplicationCommandOptionType.Subcommand);
  const own = sub ? (sub.options ?? []) : options;
  const values: Record<string, string | number> = {};
  for (const o of own) if (typeof o.value === 'string' || typeof o.value === 'number') values[o.name] = o.value;
  return { ...(sub ? { subcommand: sub.name } : {}), values };
}
