import type { z } from 'zod';
import { eq, sql, type SQL } from 'drizzle-orm';
import { prepared, type Queryable } from '../../db/client.js';
import { SUBSCRIPTION_CHANGED } from '../../db/coordination.js';
import { insertWhere } from '../../db/insert-where.js';
import { accounts, subscriptionChannels, subscriptions, type ChannelSettings } from '../../db/schema/index.js';
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
  const accountId = ctx.account.id;
  const max = ctx.config.MAX_SUBSCRIPTIONS;
  // A scope naming the wrong fields is refused after the watchlist and the limit, as it always was.
  let wanted: ReturnType<typeof targetWanted> | undefined;
  let wantedError: unknown;
  try {
    wanted = targetWanted(body.subscriptionScope, body.eventId, body.marketId);
  } catch (err) {
    wantedError = err;
  }
  const eventId = body.eventId ?? null;
  const marketId = body.marketId ?? null;
  const targetHolds: SQL =
    wantedError !== undefined ? sql`false`
    : wanted === null ? sql`true`
    : wanted?.marketId === undefined ? sql`chk.event_in_watchlist`
    : sql`chk.event_in_watchlist and chk.market_in_event`;
  const id = newId();
  const subscription = insertWhere(
    subscriptions,
    {
      id,
      accountId,
      watchlistId: body.watchlistId,
      scope: body.subscriptionScope,
      eventId: wanted ? wanted.eventId : null,
      marketId: wanted?.marketId ?? null,
      ...ruleColumns(body.subscriptionTypeConfig, body.triggerType, body.triggerInterval),
      expiresAt: body.expiresAt ?? null,
      ...statusColumns(CREATED),
    },
    sql`exists (select 1 from chk where chk.watchlist_name is not null and chk.held < ${max} and ${targetHolds})`,
  );
  // Prepared on PGlite (its text depends on the scope's checks and the number of channels only,
  // never on values): parse and plan were more than half of the statement's cost.
  const [row] = await ctx.database.rows<CreatedRow>(
    prepared(sql`with chk as (
        select (select name from watchlists where id = ${body.watchlistId} and account_id = ${accountId}) as watchlist_name,
          coalesce((select subscriptions from subscription_list_versions where account_id = ${accountId}), 0) as held,
          exists (select 1 from watchlist_events where watchlist_id = ${body.watchlistId} and event_id = ${eventId}) as event_in_watchlist,
          exists (select 1 from catalog_markets where id = ${marketId} and event_id = ${eventId}) as market_in_event
      ), s as (${subscription} returning *),
      c as (${channelsOf(channels)}),
      n as (select pg_notify(${SUBSCRIPTION_CHANGED}, id) from s)
      select chk.watchlist_name, chk.held, chk.event_in_watchlist, chk.market_in_event,
        (select row_to_json(s) from s) as created,
        (select json_agg(json_build_object('position', c.position, 'type', c.type, 'settings', c.settings) order by c.position) from c) as channels,
        (select title from catalog_events where id = ${eventId}) as event_title,
        (select question from catalog_markets where id = ${marketId}) as market_question,
        (select count(*) from n)::int as notified
      from chk`),
    on,
  );
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

/** The channels' insert, one row per channel for each subscription `s` inserted (none when the checks failed). */
function channelsOf(channels: ChatChannel[]): SQL {
  if (channels.length === 0) return sql`select null::int as position, null::text as type, null::jsonb as settings where false`;
  const rows = channels.map((c, position) => {
    const settings: ChannelSettings = c.settings ?? {};
    return sql`(${position}::int, ${c.type}::text, ${sql.param(settings, subscriptionChannels.settings)}::jsonb)`;
  });
  return sql`insert into ${subscriptionChannels} (subscription_id, position, type, settings)
    select s.id, v.position, v.type, v.settings from s cross join (values ${sql.join(rows, sql`, `)}) as v(position, type, settings)
    returning position, type, settings`;
}
