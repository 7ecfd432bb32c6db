import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookSecret } from '../../src/bots/telegram/index.js';
import { parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService, type RunningService } from '../../src/service.js';
import { insertAccountWithToken } from '../../src/services/accounts/index.js';
import { issueLoginCode } from '../../src/services/sessions/index.js';
import { startFakeBotApi, type FakeBotApi } from '../bots/fake-bot-api.js';
import { startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { createTestDatabase, engineName } from '../support/db.js';
import { TEST_SETTINGS } from '../support/context.js';
import { waitFor } from '../support/wait.js';

// Debian's chromium package (.ci/run installs it); no browser is downloaded.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) throw new Error(`${CHROMIUM} is missing: .ci/run installs Debian's chromium package`);
if (!haveChromium) console.warn(`Skipping the console's browser test: ${CHROMIUM} is not installed (apt-get install chromium)`);
// `npm run screenshots` sets it: each page is saved to docs/console/ as the test passes through it.
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1';

let service: RunningService;
let receiver: Receiver;
let telegramApi: FakeBotApi;
const TELEGRAM_TOKEN = '123456:CONSOLE-token';
let browser: Browser;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let dataDir: string;
/** The webhook receiver's state: down, deliveries to it fail (and the console offers to redeliver). */
let hookFails = false;

beforeAll(async () => {
  if (!haveChromium) return;
  receiver = await startReceiver((_req, res) => res.writeHead(hookFails ? 503 : 200).end(hookFails ? 'down' : 'ok'));
  // The Telegram bot in webhook mode: the test posts updates to the service as Telegram would.
  telegramApi = await startFakeBotApi(TELEGRAM_TOKEN);
  database = await createTestDatabase();
  dataDir = await mkdtemp(path.join(tmpdir(), 'oddswatch-console-'));
  const config = parseConfig({
    ...TEST_SETTINGS,
    DATA_DIR: dataDir,
    PORT: '0',
    VENUE: 'simulator',
    SIMULATOR_PORT: '0',
    SIMULATOR_RANDOM_WALK: 'false',
    ROLES: 'api,engine,worker,sync,bots',
    TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
    TELEGRAM_API_URL: telegramApi.url,
    TELEGRAM_WEBHOOK_URL: 'https://bots.example.com/telegram',
    WEBHOOK_RETRY_DELAY_MS: '50',
  });
  service = await startService(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), { database });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.stop();
  await database?.drop();
  await receiver?.close();
  await telegramApi?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };
const movePrice = (marketId: string, price: number) =>
  fetch(`${service.venue.controlUrl}/markets/${marketId}/price`, { method: 'POST', headers: json, body: JSON.stringify({ price }) });

/** From the navigation's start to the console's first view on screen, as the page marked it. */
// The page marks it in an effect, which runs just after the render the test saw: waited for.
const firstViewMs = async (page: Page) =>
  (await page.waitForFunction(() => performance.getEntriesByName('console:first-view')[0]?.startTime)).jsonValue() as Promise<number>;

let updateId = 1;
/** What the Telegram user reads after sending `text` to the bot privately (delivered like Telegram's webhook). */
async function telegramSays(fromId: number, text: string): Promise<string> {
  const before = telegramApi.callsTo('sendMessage').length;
  const update = {
    update_id: updateId++,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: fromId, type: 'private', first_name: 'U' },
      from: { id: fromId, is_bot: false, first_name: `User ${fromId}` },
      text,
      entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }],
    },
  };
  const res = await fetch(`${service.url}/telegram`, {
    method: 'POST',
    headers: { ...json, 'x-telegram-bot-api-secret-token': webhookSecret(TELEGRAM_TOKEN) },
    body: JSON.stringify(update),
  });
  expect(res.status).toBe(200);
  await expect.poll(() => telegramApi.callsTo('sendMessage').length, { timeout: 5000 }).toBe(before + 1);
  return telegramApi.callsTo('sendMessage').at(-1)!.body.text as string;
}

async function shot(page: Page, name: string) {
  if (!SCREENSHOTS) return;
  await mkdir('docs/console', { recursive: true });
  await page.screenshot({ path: `docs/console/${name}.png`, fullPage: true });
}

describe.skipIf(!haveChromium)(`the web console in Chromium, against the whole service and the venue simulator (${engineName})`, () => {
  it('signs in with a token, builds a watchlist by search and a rule on the chart, and sees the alert arrive live in the inbox', async () => {
    const { token } = await insertAccountWithToken(service.database.db, {});
    await waitFor(
      async () => {
        const res = await fetch(`${service.url}/catalog/search?q=bitcoin`);
        return res.ok && ((await res.json()) as unknown[]).length > 0;
      },
      { timeoutMs: 15_000, intervalMs: 200, message: 'the first catalog sync' },
    );
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));

    // Sign in by pasting the token.
    // The budget is the page's, not the browser's start: its renderer is up first (same origin).
    await page.goto(`${service.url}/healthz`);
    await page.goto(`${service.url}/app/`);
    await page.getByLabel('API token').waitFor();
    const firstView = await firstViewMs(page);
    console.info(`console first view (sign-in page shown): ${Math.round(firstView)} ms`);
    await shot(page, 'sign-in');
    await page.getByLabel('API token').fill('ow_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Invalid token/);
    await page.getByLabel('API token').fill(token);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Inbox/ }).waitFor();
    expect(firstView).toBeLessThan(1000);
    // Signed in, a reload shows the inbox and its list.
    await page.reload();
    await page.getByText(/No alerts yet|Live:|Connecting/).first().waitFor();
    const inboxView = await firstViewMs(page);
    console.info(`console first view (signed in, inbox shown): ${Math.round(inboxView)} ms`);
    expect(inboxView).toBeLessThan(1000);

    // A watchlist by search-as-you-type: pick the first market of the first result.
    await page.getByRole('link', { name: 'Watchlists' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Bitcoin watch');
    await page.getByLabel('Search events and markets').pressSequentially('bitcoin', { delay: 30 });
    const result = page.getByTestId('search-result').first();
    await result.waitFor();
    const market = await result.locator('label').first();
    const question = (await market.textContent())!.replace(/\d+(\.\d)?%$/, '').trim();
    await market.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Create watchlist' }).click();
    const card = page.getByTestId('watchlist').filter({ hasText: 'Bitcoin watch' });
    await card.waitFor();
    await expect.poll(() => card.locator('.price').first().textContent()).toMatch(/%$/);
    await shot(page, 'watchlists');

    // The market's id, to move its price with the simulator's control endpoint.
    const lists = (await page.evaluate(() => fetch('/watchlists').then((r) => r.json()))) as { watchLists: { events: Record<string, { markets: string[] }> }[] };
    const marketId = Object.values(lists.watchLists[0]!.events)[0]!.markets[0]!;

    // A rule on the chart: the threshold follows a click, then the field is set exactly.
    await page.getByRole('link', { name: 'New rule' }).click();
    await page.getByLabel('Rule type').selectOption('Crossing Up');
    const chart = page.getByTestId('price-chart');
    await chart.locator('canvas').waitFor();
    // No rule watches the market yet: the price shown is the catalog's, as the last sync read it.
    const current = Number((await page.getByTestId('current-price').textContent())!.replace('%', ''));
    expect(current).toBeGreaterThan(0);
    expect(current).toBeLessThan(50);
    const threshold = page.getByLabel('Threshold (price, %)');
    const box = (await chart.locator('.u-over').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + 5);
    const picked = Number(await threshold.inputValue());
    expect(picked).toBeGreaterThan(current);
    await chart.focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(async () => Number(await threshold.inputValue())).toBeCloseTo(picked - 0.5, 5);
    await threshold.fill('50');
    await expect.poll(() => page.getByTestId('distance').textContent()).toBe(`Distance to trigger: needs +${(50 - current).toFixed(1)} pts from ${current.toFixed(1)}%`);
    await page.getByRole('button', { name: 'Add a channel' }).click();
    await page.getByLabel('Webhook URL').fill(`${receiver.url}/hook`);
    await page.getByTestId('channel').nth(1).getByRole('button', { name: 'Test' }).click();
    await expect.poll(() => page.getByTestId('channel').nth(1).getByRole('status').textContent()).toMatch(/Test delivered \(200/);
    await page.getByRole('button', { name: /Dry run/ }).click();
    await expect.poll(() => page.getByTestId('dry-run').textContent()).toMatch(/would have fired \d+ time/);
    await shot(page, 'rule-builder');
    await page.getByRole('button', { name: 'Create rule' }).click();
    const rule = page.getByTestId('rule').filter({ hasText: 'Crossing Up 50%' });
    await rule.waitFor();
    expect(await rule.textContent()).toContain(question);

    // The inbox, open, while the simulator moves the price across the threshold (the webhook down).
    hookFails = true;
    await page.getByRole('link', { name: 'Inbox' }).click();
    await page.getByText('Live: new alerts appear here').waitFor();
    await page.evaluate(() => ((globalThis as unknown as { stayed: boolean }).stayed = true));
    const item = page.getByTestId('inbox-item').first();
    await waitFor(
      async () => {
        await movePrice(marketId, 0.3);
        await movePrice(marketId, 0.7);
        return item.isVisible();
      },
      { timeoutMs: 20_000, intervalMs: 300, message: 'the alert to arrive in the open inbox' },
    );
    expect(await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(await item.textContent()).toMatch(/Crossing Up at 70\.0%/);
    await item.getByRole('button', { name: 'Deliveries' }).click();
    const deliveries = item.getByTestId('deliveries');
    // The panel follows a channel still being tried until it settles: here, three failed attempts.
    await expect.poll(() => deliveries.textContent(), { timeout: 10_000 }).toMatch(/Webhook\s*FAILED/);
    expect(await deliveries.textContent()).toMatch(/In App\s*SENT.*Webhook\s*FAILED.*503.*503.*503/s);
    await shot(page, 'inbox');
    hookFails = false;
    await item.getByRole('button', { name: 'Redeliver failed channels' }).click();
    await expect.poll(() => deliveries.textContent(), { timeout: 10_000 }).toMatch(/Webhook\s*SENT/);
    await item.getByRole('button', { name: 'Mark read' }).click();
    await expect.poll(() => item.textContent()).toMatch(/· read/);

    // Rules and settings: the session is listed beside the token.
    await page.getByRole('link', { name: 'Rules' }).click();
    await expect.poll(() => page.getByTestId('rule').first().textContent()).toMatch(/Fired|1/);
    await shot(page, 'rules');
    const row = page.getByTestId('rule').first();
    await row.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => row.textContent()).toMatch(/Paused\s*Paused by user/);
    await row.getByRole('button', { name: 'Restart' }).click();
    await expect.poll(() => row.textContent()).toMatch(/Active\s*Restarted by user/);
    await row.getByLabel(/^Snooze/).selectOption('1h');
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Snoozed .* for 1h/);
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect.poll(() => page.getByTestId('token').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/web console.*console session/)]));
    await shot(page, 'settings');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a /login link signs a fresh browser in once; the spent link then shows why it fails', async () => {
    const { userId } = await insertAccountWithToken(service.database.db, {});
    const ctx = { database: service.database, config: parseConfig({ ...TEST_SETTINGS }), logger: createLogger('silent'), account: { id: userId, isAdmin: false } };
    const { code } = await issueLoginCode({ ctx });
    const link = `${service.url}/app/login#code=${encodeURIComponent(code)}`;
    const first = await browser.newContext();
    const page = await first.newPage();
    await page.goto(link);
    await page.getByRole('heading', { name: /Inbox/ }).waitFor();
    expect(page.url()).not.toContain('code=');
    await first.close();

    const second = await browser.newContext();
    const again = await second.newPage();
    await again.goto(link);
    await expect.poll(() => again.getByRole('alert').textContent()).toMatch(/invalid, used or expired/);
    await second.close();
  });

  it('links a Telegram user from Settings with a one-time code, sees it linked, and unlinks it', async () => {
    const { token } = await insertAccountWithToken(service.database.db, {});
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${service.url}/app/settings`);
    await page.getByLabel('API token').fill(token);
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Settings' }).click();
    const card = page.getByTestId('linked-accounts');
    const telegramRow = card.getByTestId('link-telegram');
    await expect.poll(() => telegramRow.textContent()).toBe('Telegramnot linked');

    // A code, with the exact words to send each bot, copyable.
    await card.getByRole('button', { name: 'Link a chat account' }).click();
    const telegramWords = page.getByLabel('In Telegram, send');
    await telegramWords.waitFor();
    const words = await telegramWords.inputValue();
    expect(words).toMatch(/^\/link [0-9A-Z]{5}-[0-9A-Z]{5}$/);
    expect(await page.getByLabel('In Discord, send').inputValue()).toBe(words.replace('/link ', '/link code:'));
    expect(await card.getByTestId('link-code').textContent()).toMatch(/It works once, until .* \(about 10 minutes\)/);
    await card.getByRole('button', { name: `Copy: ${words}` }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(words);
    await expect.poll(() => card.textContent()).toContain('Copied.');

    // Sent to the Telegram bot (once the bot is up: it connects in the background).
    await expect.poll(async () => JSON.stringify(await (await fetch(`${service.url}/readyz`)).json()), { timeout: 10_000 }).toMatch(/"telegram".*"connected"|"connected".*"telegram"/);
    expect(await telegramSays(8801, words)).toMatch(/^Linked: from now on you act here as the account that made this code/);
    // The open page notices without a reload; a reload shows the same.
    await expect.poll(() => card.textContent(), { timeout: 10_000 }).toContain('Telegram user 8801 is now linked to this account.');
    expect(await card.getByTestId('link-code').count()).toBe(0);
    await page.reload();
    await expect.poll(() => telegramRow.textContent()).toMatch(/Telegramlinked: user 8801\s*Unlink/);
    expect(await card.getByTestId('link-discord').textContent()).toBe('Discordnot linked');

    // A second code is for Discord only now.
    await card.getByRole('button', { name: 'Link a chat account' }).click();
    await page.getByLabel('In Discord, send').waitFor();
    expect(await page.getByLabel('In Telegram, send').count()).toBe(0);
    await shot(page, 'settings-linking');

    // Unlinking, after a confirmation that says what it means.
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await card.getByRole('button', { name: 'Unlink Telegram' }).click();
    await expect.poll(() => telegramRow.textContent()).toBe('Telegramnot linked');
    expect(asked).toMatch(/^Unlink Telegram user 8801\?.*new, empty account of their own/s);

    // The code still shown now serves Telegram again; a link undone elsewhere meanwhile is named.
    expect(await telegramSays(8802, await page.getByLabel('In Telegram, send').inputValue())).toMatch(/^Linked/);
    await expect.poll(() => telegramRow.textContent(), { timeout: 10_000 }).toMatch(/linked: user 8802/);
    await fetch(`${service.url}/links/telegram`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    page.once('dialog', (dialog) => void dialog.accept());
    await card.getByRole('button', { name: 'Unlink Telegram' }).click();
    await expect.poll(() => card.getByRole('alert').textContent()).toBe('No telegram user is linked to this account');
    expect(await telegramRow.textContent()).toBe('Telegramnot linked');
    await page.reload();
    await expect.poll(() => telegramRow.textContent()).toBe('Telegramnot linked');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('is usable from the keyboard alone, and follows the light or dark preference', async () => {
    const { token } = await insertAccountWithToken(service.database.db, {});
    const background = async (colorScheme: 'light' | 'dark') => {
      const context = await browser.newContext({ colorScheme });
      const page = await context.newPage();
      await page.goto(`${service.url}/app/`);
      const color = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
      return { context, page, color };
    };
    const light = await background('light');
    const dark = await background('dark');
    expect(light.color).toBe('rgb(255, 255, 255)');
    expect(dark.color).toBe('rgb(20, 22, 27)');
    await light.context.close();

    // Tab into the token field, type, Enter; then Tab through the navigation and open Settings.
    const page = dark.page;
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('token');
    await page.keyboard.type(token);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /Inbox/ }).waitFor();
    const focused: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      focused.push(await page.evaluate<string>("document.activeElement.textContent.trim()"));
    }
    expect(focused).toEqual(['Skip to content', 'Inbox', 'Watchlists', 'New rule', 'Rules', 'Settings']);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await shot(page, 'settings-dark');
    await dark.context.close();
  });
});
