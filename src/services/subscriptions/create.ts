import type { z } from 'zod';
import { eq, sql, type SQL } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { SUBSCRIPTION_CHANGED } from '../../db/coordination.js';
import { encodedRow, insertWhere } from '../../db/insert-where.js';
import { StatementShapes } from '../../db/statement-shapes.js';
import { accounts, subscriptionChannels, subscriptions } from '../../db/schema/index.js';
import { CREATED, statusColumns } from '../../domain/subscription-status.js';
import { withTransaction, type ServiceContext } from '../context.js';
import { limitExceeded, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { parseInput } from '../validate.js';
import { requireOwnedWatchlist, WATCHLIST_NOT_FOUND } from '../watchlists/owned.js';
import { checkChannels } from './channels.js';
import { ruleColumns } from './rule-fields.js';
import { ChatSubscriptionInput, CreateSubscriptionInput, type ChatChannel } from './schemas.js';
import { targetFound, targetWanted } from './targets.js';
import { toView, type JsonRow, type SubscriptionView } from './view.js';

export async function createSubscription({ ctx, input }: { ctx: ServiceContext; input: CreateSubscriptionInput }): Promise<SubscriptionView> {
  return insertSubscription(ctx, parseInput(CreateSubscriptionInput, input));
}

/** A subscription a bot makes for the chat it was asked in: its channel may be the chat's own (ChatChannel). */
export async function createChatSubscription({ ctx, input }: { ctx: ServiceContext; input: ChatSubscriptionInput }): Promise<SubscriptionView> {
  return insertSubscription(ctx, parseInput(ChatSubscriptionInput, input));
}

type Body = z.output<typeof ChatSubscriptionInput>;

/**
 * The checks, the subscription, its channels, the change notice and the answer are one statement
 * (each statement through PGlite costs the service's own CPU: parse, plan and a protocol exchange).
 * On PGlite that statement is the whole create: one session, and a statement is atomic. On
 * PostgreSQL the account's lock comes first, as a statement of its own in a transaction: in one
 * statement with the checks, their snapshot would be taken before the lock was granted, and two
 * creates of one account could both pass the MAX_SUBSCRIPTIONS check. The limit is the account's,
 * so the lock is too (a watchlist's let creates into two watchlists pass it together); `no key
 * update` so it does not hold up writes that only reference the account. The watchlist's lock
 * follows all the same: a watchlist deleted meanwhile then answers 404, where the insert's foreign
 * key would fail. The count held is the one the subscriptions' trigger keeps beside the account's
 * listing counter (drizzle/0023): one row read, where counting the account's rows grew with them.
 */
async function insertSubscription(ctx: ServiceContext, body: Body): Promise<SubscriptionView> {
  const channels = await checkChannels(ctx, body.channels);
  if (ctx.database.kind === 'pglite' && !ctx.tx) return createIn(ctx.database.db, ctx, body, channels);
  return withTransaction(ctx, async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, ctx.account.id)).for('no key update');
    await requireOwnedWatchlist(tx, ctx.account.id, body.watchlistId);
    return createIn(tx, ctx, body, channels);
  });
}

/** What the create statement answers: the checks' findings, and the new row when they all passed. */
interface CreatedRow extends Record<string, unknown> {
  watchlist_name: string | null;
  held: number;
  event_in_watchlist: boolean;
  market_in_event: boolean;
  created: Omit<JsonRow, 'watchlist_name' | 'event_title' | 'market_question' | 'channels' | 'latest'> | string | null;
  channels: JsonRow['channels'] | string | null;
  event_title: string | null;
  market_question: string | null;
}

async function createIn(on: Queryable, ctx: ServiceContext, body: Body, channels: ChatChannel[]): Promise<SubscriptionView> {
  const max = ctx.config.MAX_SUBSCRIPTIONS;
  // A scope naming the wrong fields is refused after the watchlist and the limit, as it always was.
  let wanted: ReturnType<typeof targetWanted> | undefined;
  let wantedError: unknown;
  try {
    wanted = targetWanted(body.subscriptionScope, body.eventId, body.marketId);
  } catch (err) {
    wantedError = err;
  }
  const target: TargetCheck =
    wantedError !== undefined ? 'refused'
    : wanted === null ? 'none'
    : wanted?.marketId === undefined ? 'event'
    : 'market';
  const values: CreateValues = {
    ...encodedRow(subscriptions, INSERTED, {
      id: newId(),
      accountId: ctx.account.id,
      watchlistId: body.watchlistId,
      scope: body.subscriptionScope,
      eventId: wanted ? wanted.eventId : null,
      marketId: wanted?.marketId ?? null,
      ...ruleColumns(body.subscriptionTypeConfig, body.triggerType, body.triggerInterval),
      expiresAt: body.expiresAt ?? null,
      ...statusColumns(CREATED),
    }),
    askedEventId: body.eventId ?? null,
    askedMarketId: body.marketId ?? null,
    max,
  };
  channels.forEach((c, position) => {
    values[`channel${position}Type`] = c.type;
    values[`channel${position}Settings`] = subscriptionChannels.settings.mapToDriverValue(c.settings ?? {});
  });
  const [row] = await createStatements.rows<CreatedRow>(on, `${target}:${channels.length}`, values);
  if (!row?.watchlist_name) throw notFound(WATCHLIST_NOT_FOUND, 'watchlist');
  if (Number(row.held) >= max) {
    throw limitExceeded(`Subscription limit reached: an account may hold ${max} subscriptions (MAX_SUBSCRIPTIONS)`, 'subscription', max);
  }
  if (wantedError !== undefined) throw wantedError;
  targetFound(wanted!, { eventInWatchlist: row.event_in_watchlist, marketInEvent: row.market_in_event });
  if (row.created === null) throw new Error('the subscription was not inserted although its checks passed');
  // postgres.js parses json itself; PGlite's drizzle driver hands it over as text.
  const created = typeof row.created === 'string' ? (JSON.parse(row.created) as Exclude<CreatedRow['created'], string | null>) : row.created;
  const channelRows = typeof row.channels === 'string' ? (JSON.parse(row.channels) as JsonRow['channels']) : row.channels;
  return toView({
    ...created,
    watchlist_name: row.watchlist_name,
    event_title: row.event_title,
    market_question: row.market_question,
    channels: channelRows,
    // A new subscription has no notification yet.
    latest: null,
  });
}

/** Which of the target's checks the insert waits for: none, the event's, both, or a scope refused. */
type TargetCheck = 'refused' | 'none' | 'event' | 'market';

/** The create statement's values: the subscription's columns by key, what the request asked for, the limit, each channel's. */
type CreateValues = Record<string, unknown>;

/** The subscription's columns the create sets, each the placeholder of its key. */
const INSERTED = [
  'id', 'accountId', 'watchlistId', 'scope', 'eventId', 'marketId', 'type', 'thresholdPercent', 'ruleParams',
  'triggerType', 'triggerInterval', 'expiresAt', 'enabled', 'statusReason',
] as const;

const TARGET_HOLDS: Record<TargetCheck, SQL> = {
  refused: sql`false`,
  none: sql`true`,
  event: sql`chk.event_in_watchlist`,
  market: sql`chk.event_in_watchlist and chk.market_in_event`,
};

/**
 * The create statement of a shape (`<target check>:<channel count>`): its text depends on nothing
 * else, so it is built once per shape and prepared on PGlite (parse and plan were more than half
 * of the statement's cost). Every value is a placeholder, filled in by the call.
 */
function createStatement(shape: string): SQL {
  const [target, count] = shape.split(':') as [TargetCheck, string];
  const p = (name: string) => sql.placeholder(name);
  const subscription = insertWhere(
    subscriptions,
    INSERTED,
    sql`exists (select 1 from chk where chk.watchlist_name is not null and chk.held < ${p('max')} and ${TARGET_HOLDS[target]})`,
  );
  return sql`with chk as (
        select (select name from watchlists where id = ${p('watchlistId')} and account_id = ${p('accountId')}) as watchlist_name,
          coalesce((select subscriptions from subscription_list_versions where account_id = ${p('accountId')}), 0) as held,
          exists (select 1 from watchlist_events where watchlist_id = ${p('watchlistId')} and event_id = ${p('askedEventId')}) as event_in_watchlist,
          exists (select 1 from catalog_markets where id = ${p('askedMarketId')} and event_id = ${p('askedEventId')}) as market_in_event
      ), s as (${subscription} returning *),
      c as (${channelsOf(Number(count))}),
      n as (select pg_notify(${SUBSCRIPTION_CHANGED}, id) from s)
      select chk.watchlist_name, chk.held, chk.event_in_watchlist, chk.market_in_event,
        (select row_to_json(s) from s) as created,
        (select json_agg(json_build_object('position', c.position, 'type', c.type, 'settings', c.settings) order by c.position) from c) as channels,
        (select title from catalog_events where id = ${p('askedEventId')}) as event_title,
        (select question from catalog_markets where id = ${p('askedMarketId')}) as market_question,
        (select count(*) from n)::int as notified
      from chk`;
}

/** The channels' insert, one row per channel for each subscription `s` inserted (none when the checks failed). */
function channelsOf(count: number): SQL {
  if (count === 0) return sql`select null::int as position, null::text as type, null::jsonb as settings where false`;
  const rows = Array.from({ length: count }, (_, position) => {
    return sql`(${sql.raw(String(position))}::int, ${sql.placeholder(`channel${position}Type`)}::text, ${sql.placeholder(`channel${position}Settings`)}::jsonb)`;
  });
  return sql`insert into ${subscriptionChannels} (subscription_id, position, type, settings)
    select s.id, v.position, v.type, v.settings from s cross join (values ${sql.join(rows, sql`, `)}) as v(position, type, settings)
    returning position, type, settings`;
}

const createStatements = new StatementShapes<CreateValues>(createStatement);
