import { and, asc, count, eq } from 'drizzle-orm';
import { accounts, demoWebhooks } from '../../db/schema/index.js';
import { dbOf, withTransaction, type ServiceContext } from '../context.js';
import { limitExceeded, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { outboundUrlCheck } from '../outbound-urls.js';
import { parseInput } from '../validate.js';
import { CreateDemoWebhookInput, DemoWebhookIdInput } from './schemas.js';

export interface DemoWebhookView {
  _id: string;
  url: string;
  active: boolean;
  createdAt: string;
}

const view = (w: typeof demoWebhooks.$inferSelect): DemoWebhookView => ({
  _id: w.id,
  url: w.url,
  active: w.active,
  createdAt: w.createdAt.toISOString(),
});

export const DEMO_WEBHOOK_NOT_FOUND = 'Demo webhook not found or already deleted';

export async function createDemoWebhook({ ctx, input }: { ctx: ServiceContext; input: CreateDemoWebhookInput }): Promise<DemoWebhookView> {
  const { url } = parseInput(CreateDemoWebhookInput, input);
  await outboundUrlCheck(ctx)('url', url);
  const limit = ctx.config.MAX_DEMO_WEBHOOKS;
  return withTransaction(ctx, async (tx) => {
    // Every catalog change is one POST per active demo webhook, so the quota is the fan-out bound;
    // the account row lock keeps concurrent registrations from passing it together.
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, ctx.account.id)).for('update');
    const [active] = await tx
      .select({ n: count() })
      .from(demoWebhooks)
      .where(and(eq(demoWebhooks.accountId, ctx.account.id), eq(demoWebhooks.active, true)));
    if ((active?.n ?? 0) >= limit) {
      throw limitExceeded(
        `Demo webhook limit reached: an account may hold ${limit} active demo webhooks (MAX_DEMO_WEBHOOKS); delete one first`,
      );
    }
    const [row] = await tx.insert(demoWebhooks).values({ id: newId(), accountId: ctx.account.id, url }).returning();
    return view(row!);
  });
}

export async function listDemoWebhooks({ ctx }: { ctx: ServiceContext }): Promise<DemoWebhookView[]> {
  const rows = await dbOf(ctx)
    .select()
    .from(demoWebhooks)
    .where(and(eq(demoWebhooks.accountId, ctx.account.id), eq(demoWebhooks.active, true)))
    .orderBy(asc(demoWebhooks.createdAt), asc(demoWebhooks.id));
  return rows.map(view);
}

/** Soft delete: the row stays with `active` false. Another account's webhook is "not found". */
export async function deleteDemoWebhook({ ctx, input }: { ctx: ServiceContext; input: DemoWebhookIdInput }): Promise<{ message: string }> {
  const { id } = parseInput(DemoWebhookIdInput, input);
  return withTransaction(ctx, async (tx) => {
    const updated = await tx
      .update(demoWebhooks)
      .set({ active: false, deletedAt: new Date() })
      .where(and(eq(demoWebhooks.id, id), eq(demoWebhooks.accountId, ctx.account.id), eq(demoWebhooks.active, true)))
      .returning({ id: demoWebhooks.id });
    if (updated.length === 0) throw notFound(DEMO_WEBHOOK_NOT_FOUND);
    return { message: 'Demo webhook deleted' };
  });
}
