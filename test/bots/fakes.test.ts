import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBotApi, type FakeBotApi } from './fake-bot-api.js';
import { startFakeDiscordApi, type FakeDiscordApi } from './fake-discord-api.js';
import { parseTelegramHtml } from './platform-rules/telegram.js';

// The fakes refuse what the real platforms refuse: these pin each refusal to the platform's answer.

const token = '123:fake';
let telegram: FakeBotApi;
let discord: FakeDiscordApi;
beforeAll(async () => {
  telegram = await startFakeBotApi(token);
  discord = await startFakeDiscordApi('app-1');
});
afterAll(async () => {
  await telegram.close();
  await discord.close();
});

async function bot(method: string, body: object): Promise<{ status: number; body: any }> {
  const res = await fetch(`${telegram.url}/bot${token}/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}
const refusedBy = (description: string) => ({ status: 400, body: { ok: false, error_code: 400, description } });
const send = (extra: object) => bot('sendMessage', { chat_id: 1, text: 'hi', ...extra });

describe('the fake Telegram Bot API', () => {
  it('accepts 4,096 characters after entity parsing and refuses 4,097, and an empty text', async () => {
    expect((await send({ text: 'a'.repeat(4096) })).status).toBe(200);
    // Entities count as the one character they stand for, tags as nothing.
    expect((await send({ text: `<b>${'&amp;'.repeat(4096)}</b>`, parse_mode: 'HTML' })).status).toBe(200);
    expect(await send({ text: 'a'.repeat(4097) })).toEqual(refusedBy('Bad Request: message is too long'));
    expect(await send({ text: `<i>${'&lt;'.repeat(4097)}</i>`, parse_mode: 'HTML' })).toEqual(refusedBy('Bad Request: message is too long'));
    expect(await send({ text: '  ' })).toEqual(refusedBy('Bad Request: message text is empty'));
    expect(await send({ text: '<b></b>', parse_mode: 'HTML' })).toEqual(refusedBy('Bad Request: message text is empty'));
  });

  it('parses HTML as Telegram does: its tags only, closed and nested, and its entities', async () => {
    const ok = '<b>1</b><strong>2</strong><i>3</i><em>4</em><u>5</u><ins>6</ins><s>7</s><strike>8</strike><del>9</del>' +
      '<span class="tg-spoiler">a</span><tg-spoiler>b</tg-spoiler><a href="https://x.test/?a=1&amp;b=2">c</a><code>d</code>' +
      '<pre><code class="language-js">e</code></pre><blockquote expandable>f</blockquote>&lt;&gt;&amp;&quot;&#33;&#x41;';
    expect((await send({ text: ok, parse_mode: 'HTML' })).status).toBe(200);
    expect(parseTelegramHtml(ok)).toEqual({ text: '123456789abcdef<>&"!A' });
    const cases: [string, string][] = [
      ['<div>x</div>', 'Unsupported start tag "div" at byte offset 0'],
      ['Q <2026> A', 'Unsupported start tag "2026" at byte offset 2'],
      ['<b>x', `Can't find end tag corresponding to start tag "b"`],
      ['<b><i>x</b></i>', 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'],
      ['x</b>', 'Unexpected end tag at byte offset 1'],
      ['a < b', 'Unclosed start tag at byte offset 2'],
      ['<span>x</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'],
      ['A & B', 'Unsupported HTML entity at byte offset 2'],
      ['&nbsp;', 'Unsupported HTML entity at byte offset 0'],
      ['é&', 'Unsupported HTML entity at byte offset 2'],
    ];
    for (const [text, error] of cases) {
      expect(await send({ text, parse_mode: 'HTML' })).toEqual(refusedBy(`Bad Request: can't parse entities: ${error}`));
    }
    // Without parse_mode the same text is plain and fine.
    expect((await send({ text: 'Q <2026> A & B' })).status).toBe(200);
  });

  it('checks inline keyboards: callback_data 1–64 bytes, a non-empty text, a valid url, an action per button', async () => {
    const kb = (button: object) => send({ reply_markup: { inline_keyboard: [[button]] } });
    expect((await kb({ text: 'x', callback_data: 'é'.repeat(32) })).status).toBe(200);
    expect(await kb({ text: 'x', callback_data: 'é'.repeat(32) + 'a' })).toEqual(refusedBy('Bad Request: BUTTON_DATA_INVALID'));
    expect(await kb({ text: 'x', callback_data: '' })).toEqual(refusedBy('Bad Request: BUTTON_DATA_INVALID'));
    expect(await kb({ text: ' ', callback_data: 'a' })).toEqual(refusedBy('Bad Request: BUTTON_TEXT_INVALID'));
    expect((await kb({ text: 'x', url: 'https://example.com/a' })).status).toBe(200);
    expect(await kb({ text: 'x', url: 'example.com' })).toEqual(refusedBy('Bad Request: BUTTON_URL_INVALID'));
    expect(await kb({ text: 'x', url: 'javascript:alert(1)' })).toEqual(refusedBy('Bad Request: BUTTON_URL_INVALID'));
    expect(await kb({ text: 'x', url: 'http://localhost:8080/markets/1/chart.svg' })).toEqual(refusedBy('Bad Request: BUTTON_URL_INVALID'));
    expect(await kb({ text: 'x', url: 'http://127.0.0.1:8080/' })).toEqual(refusedBy('Bad Request: BUTTON_URL_INVALID'));
    expect(await kb({ text: 'x' })).toEqual(refusedBy('Bad Request: text buttons are unallowed in the inline keyboard'));
  });

  it('refuses a callback answer over 200 characters, half an emoji, unknown parameters and unknown methods', async () => {
    expect((await bot('answerCallbackQuery', { callback_query_id: '1', text: 'a'.repeat(200) })).status).toBe(200);
    expect(await bot('answerCallbackQuery', { callback_query_id: '1', text: 'a'.repeat(201) })).toEqual(refusedBy('Bad Request: MESSAGE_TOO_LONG'));
    expect(await send({ text: 'cut \ud83d' })).toEqual(refusedBy('Bad Request: strings must be encoded in UTF-8'));
    expect((await send({ text: 'whole \ud83d\ude00' })).status).toBe(200);
    expect((await send({ parseMode: 'HTML' })).body.description).toMatch(/^Bad Request: unknown parameter "parseMode"/);
    expect(await bot('sendMesage', { chat_id: 1, text: 'hi' })).toEqual({ status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } });
    expect(telegram.refused.map((r) => r.method)).toContain('answerCallbackQuery');
  });
});

async function rest(method: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${discord.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: res.status === 204 ? undefined : await res.json() };
}
const invalid = (errors: object) => ({ status: 400, body: { code: 50035, message: 'Invalid Form Body', errors } });
const err = (code: string, message: string) => ({ _errors: [{ code, message }] });
const tooLong = (max: number) => err('BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
const badLength = (min: number, max: number) => err('BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
const button = (extra: object) => ({ type: 2, style: 2, label: 'Go', custom_id: 'go', ...extra });
const row = (...components: object[]) => ({ type: 1, components });

describe('the fake Discord API', () => {
  let hook = '';
  beforeAll(async () => {
    const made = await rest('POST', '/v10/channels/c-1/webhooks', { name: 'Oddswatch' });
    hook = new URL(made.body.url).pathname;
  });
  const execute = (body: object) => rest('POST', hook, body);
  const callback = (body: object) => rest('POST', '/v10/interactions/i-1/tok/callback', body);

  it('refuses content over 2,000 characters and an empty message, in a webhook, a callback and a follow-up', async () => {
    expect((await execute({ content: 'a'.repeat(2000) })).status).toBe(200);
    expect(await execute({ content: 'a'.repeat(2001) })).toEqual(invalid({ content: tooLong(2000) }));
    expect(await callback({ type: 4, data: { content: 'a'.repeat(2001) } })).toEqual(invalid({ data: { content: tooLong(2000) } }));
    expect(await rest('POST', '/v10/webhooks/app-1/tok', { content: 'a'.repeat(2001) })).toEqual(invalid({ content: tooLong(2000) }));
    expect(await rest('PATCH', '/v10/webhooks/app-1/tok/messages/@original', { content: 'a'.repeat(2001) })).toEqual(invalid({ content: tooLong(2000) }));
    expect(await execute({ content: '' })).toEqual({ status: 400, body: { code: 50006, message: 'Cannot send an empty message' } });
    expect(await execute({ content: 'cut \ud83d' })).toEqual({ status: 400, body: { code: 50109, message: 'The request body contains invalid JSON.' } });
  });

  it('holds embeds to their limits, each field and the 6,000 total', async () => {
    const embed = (extra: object) => execute({ embeds: [{ title: 't', ...extra }] });
    expect(await embed({ title: 'a'.repeat(257) })).toEqual(invalid({ embeds: { 0: { title: tooLong(256) } } }));
    expect(await embed({ description: 'a'.repeat(4097) })).toEqual(invalid({ embeds: { 0: { description: tooLong(4096) } } }));
    expect(await embed({ footer: { text: 'a'.repeat(2049) } })).toEqual(invalid({ embeds: { 0: { footer: { text: tooLong(2048) } } } }));
    expect(await embed({ author: { name: 'a'.repeat(257) } })).toEqual(invalid({ embeds: { 0: { author: { name: tooLong(256) } } } }));
    expect(await embed({ fields: [{ name: 'a'.repeat(257), value: '' }] })).toEqual(
      invalid({ embeds: { 0: { fields: { 0: { name: badLength(1, 256), value: badLength(1, 1024) } } } } }),
    );
    expect(await embed({ fields: [{ name: 'n', value: 'a'.repeat(1025) }] })).toEqual(invalid({ embeds: { 0: { fields: { 0: { value: badLength(1, 1024) } } } } }));
    expect(await embed({ fields: Array.from({ length: 26 }, () => ({ name: 'n', value: 'v' })) })).toEqual(invalid({ embeds: { 0: { fields: tooLong(25) } } }));
    expect(await execute({ embeds: Array.from({ length: 11 }, () => ({ title: 't' })) })).toEqual(invalid({ embeds: tooLong(10) }));
    // Each embed within its own limits, together over 6,000.
    const big = { description: 'a'.repeat(4000) };
    expect((await execute({ embeds: [big] })).status).toBe(200);
    expect(await execute({ embeds: [big, big] })).toEqual(invalid({ embeds: err('MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000') }));
  });

  it('holds components to theirs: 5 rows of 5 buttons, labels, custom_id, link buttons, select menus', async () => {
    const with_ = (...rows: object[]) => execute({ content: 'x', components: rows });
    expect((await with_(...Array.from({ length: 5 }, (_, r) => row(...Array.from({ length: 5 }, (_, i) => button({ custom_id: `b${r}-${i}` })))))).status).toBe(200);
    expect(await with_(...Array.from({ length: 6 }, (_, r) => row(button({ custom_id: `r${r}` }))))).toEqual(invalid({ components: tooLong(5) }));
    expect(await with_(row(...Array.from({ length: 6 }, (_, i) => button({ custom_id: `b${i}` }))))).toEqual(
      invalid({ components: { 0: { components: err('COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'The specified component exceeds the maximum width') } } }),
    );
    expect(await with_(row(button({ label: 'a'.repeat(81) })))).toEqual(invalid({ components: { 0: { components: { 0: { label: tooLong(80) } } } } }));
    expect(await with_(row(button({ custom_id: 'a'.repeat(101) })))).toEqual(invalid({ components: { 0: { components: { 0: { custom_id: badLength(1, 100) } } } } }));
    expect(await with_(row(button({ custom_id: '' })))).toEqual(invalid({ components: { 0: { components: { 0: { custom_id: badLength(1, 100) } } } } }));
    expect(await with_(row(button({ label: '' })))).toEqual(
      invalid({ components: { 0: { components: { 0: { label: err('BUTTON_COMPONENT_MUST_HAVE_LABEL_OR_EMOJI', 'Buttons must have a label or an emoji.') } } } } }),
    );
    expect((await with_(row({ type: 2, style: 5, label: 'Open', url: 'https://example.com' }))).status).toBe(200);
    expect(await with_(row({ type: 2, style: 5, label: 'Open', url: 'https://example.com', custom_id: 'x' }))).toEqual(
      invalid({ components: { 0: { components: { 0: { custom_id: err('BUTTON_COMPONENT_LINK_HAS_CUSTOM_ID', 'A link button cannot have a custom id.') } } } } }),
    );
    expect(await with_(row({ type: 2, style: 5, label: 'Open' }))).toEqual(invalid({ components: { 0: { components: { 0: { url: err('BASE_TYPE_REQUIRED', 'This field is required') } } } } }));
    const select = (options: object[]) => ({ type: 3, custom_id: 'pick', options });
    expect((await with_(row(select([{ label: 'A', value: 'a' }])))).status).toBe(200);
    expect(await with_(row(select([{ label: 'a'.repeat(101), value: 'a' }])))).toEqual(
      invalid({ components: { 0: { components: { 0: { options: { 0: { label: badLength(1, 100) } } } } } } }),
    );
    expect(await with_(row(select(Array.from({ length: 26 }, (_, i) => ({ label: `${i}`, value: `${i}` })))))).toEqual(
      invalid({ components: { 0: { components: { 0: { options: badLength(1, 25) } } } } }),
    );
    expect((await with_(row(select([{ label: 'A', value: 'a' }]), button({})))).body.errors).toEqual({
      components: { 0: { components: err('COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'The specified component exceeds the maximum width') } },
    });
  });

  it('checks interaction callback types and autocomplete choices, and refuses unknown fields', async () => {
    expect((await callback({ type: 5, data: { flags: 64 } })).status).toBe(204);
    expect(await callback({ type: 3 })).toEqual(invalid({ type: err('BASE_TYPE_CHOICES', 'Value must be one of {1, 4, 5, 6, 7, 8, 9, 10, 12}.') }));
    expect(await callback({ type: 8, data: { choices: Array.from({ length: 26 }, (_, i) => ({ name: `${i}`, value: `${i}` })) } })).toEqual(
      invalid({ data: { choices: tooLong(25) } }),
    );
    expect(await callback({ type: 8, data: { choices: [{ name: '', value: 'v' }] } })).toEqual(invalid({ data: { choices: { 0: { name: badLength(1, 100) } } } }));
    expect((await execute({ content: 'x', embed: { title: 't' } })).body.errors).toEqual({
      embed: err('UNKNOWN_FIELD', 'Unknown field "embed" (the real API would silently ignore it).'),
    });
  });

  it('validates command registration: names, descriptions, options, choices, required first', async () => {
    const register = (commands: unknown) => rest('PUT', '/v10/applications/app-1/commands', commands);
    const opt = (extra: object) => ({ type: 3, name: 'q', description: 'd', ...extra });
    expect((await register([{ name: 'ok-name_1', description: 'd', options: [opt({ required: true }), opt({ name: 'r' })] }])).status).toBe(200);
    const invalidName = err('APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    expect(await register([{ name: 'has space', description: 'd' }])).toEqual(invalid({ 0: { name: invalidName } }));
    expect(await register([{ name: 'a'.repeat(33), description: 'd' }])).toEqual(invalid({ 0: { name: invalidName } }));
    expect(await register([{ name: 'Upper', description: 'd' }])).toEqual(invalid({ 0: { name: err('APPLICATION_COMMAND_INVALID_NAME', 'Command name must be lowercase') } }));
    expect(await register([{ name: 'x', description: 'a'.repeat(101) }])).toEqual(invalid({ 0: { description: badLength(1, 100) } }));
    expect(await register([{ name: 'x', description: '' }])).toEqual(invalid({ 0: { description: badLength(1, 100) } }));
    expect(await register([{ name: 'x', description: 'd', options: Array.from({ length: 26 }, (_, i) => opt({ name: `o${i}` })) }])).toEqual(
      invalid({ 0: { options: tooLong(25) } }),
    );
    expect(await register([{ name: 'x', description: 'd', options: [opt({}), opt({ name: 'r', required: true })] }])).toEqual(
      invalid({ 0: { options: { 1: { required: err('APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', 'Required options must be placed before non-required options') } } } }),
    );
    const choices = Array.from({ length: 26 }, (_, i) => ({ name: `c${i}`, value: `c${i}` }));
    expect(await register([{ name: 'x', description: 'd', options: [opt({ choices })] }])).toEqual(invalid({ 0: { options: { 0: { choices: tooLong(25) } } } }));
    // Subcommands are checked the same way, one level down.
    expect(await register([{ name: 'x', description: 'd', options: [{ type: 1, name: 'sub', description: 'd', options: [opt({ description: '' })] }] }])).toEqual(
      invalid({ 0: { options: { 0: { options: { 0: { description: badLength(1, 100) } } } } } }),
    );
  });
});
