import { COMMANDS, conditionChoices, type Param } from '../commands/index.js';
import type { ServiceContext } from '../../services/context.js';
import { isServiceError } from '../../services/errors.js';
import { findMarket, findMarkets } from '../../services/search/index.js';
import { listSubscriptions } from '../../services/subscriptions/index.js';
import { alertChoices, marketChoices } from './choice-labels.js';
import { CALLBACK, loggable, type InteractionCallback, type RawInteraction } from './interaction.js';
import type { RawOption } from './slash.js';

const MAX_CHOICES = 25; // Discord's limit

type Choice = { name: string; value: string };
type Source = NonNullable<Extract<Param, { kind: 'text' }>['autocomplete']>;

const SOURCES: Record<Source, (ctx: ServiceContext, typed: string) => Promise<Choice[]>> = {
  /** The markets people-search finds (docs/catalog.md); a market id typed whole finds that market. */
  async market(ctx, typed) {
    if (typed === '') return [];
    const found = await findMarkets({ ctx, input: { q: typed, limit: MAX_CHOICES } });
    if (found.length > 0 || !/^\d+$/.test(typed)) return marketChoices(found);
    const market = await findMarket({ ctx, input: { marketId: typed } }).catch((err: unknown) => {
      // An id that is no market is an answer ("none"), not a failure.
      if (isServiceError(err) && err.kind === 'not_found') return undefined;
      throw err;
    });
    return market ? marketChoices([market]) : [];
  },
  /** The caller's alerts whose label holds the typed words, or whose id starts with them (pasted). */
  async alert(ctx, typed) {
    const lower = typed.toLowerCase();
    return alertChoices(await listSubscriptions({ ctx, input: {} })).filter(
      (c) => c.name.toLowerCase().includes(lower) || c.value.toLowerCase().startsWith(lower),
    );
  },
  /** The condition forms of /alert that what was typed may be heading for (commands/alert-condition.ts). */
  async condition(_ctx, typed) {
    return conditionChoices(typed);
  },
};

/** The declaration of the option being typed in, found in the command (or its subcommand). */
function focusedParam(name: string | undefined, options: readonly RawOption[] = []): { param?: Param; typed: string } {
  const command = COMMANDS.find((c) => c.name === name);
  const sub = options.find((o) => o.options !== undefined);
  const own = sub ? (sub.options ?? []) : options;
  const focused = own.find((o) => o.focused);
  const params = sub ? command?.subcommands?.find((s) => s.name === sub.name)?.params : command?.params;
  return { param: params?.find((p) => p.name === focused?.name), typed: String(focused?.value ?? '').trim() };
}

/**
 * Answers an autocomplete interaction with the choices of the focused option's source. A service
 * failure is logged once and answered with no choices: the user keeps typing, nothing breaks.
 */
export async function autocomplete(interaction: RawInteraction, ctx: ServiceContext, respond: InteractionCallback): Promise<void> {
  const { param, typed } = focusedParam(interaction.data?.name, interaction.data?.options);
  const source = param?.kind === 'text' ? param.autocomplete : undefined;
  let choices: Choice[] = [];
  if (source) {
    try {
      choices = await SOURCES[source](ctx, typed);
    } catch (err) {
      ctx.logger.warn({ err: loggable(err), source, command: interaction.data?.name }, 'discord autocomplete failed; answered with no choices');
    }
  }
  await respond({ type: CALLBACK.AUTOCOMPLETE_RESULT, data: { choices: choices.slice(0, MAX_CHOICES) } });
}
