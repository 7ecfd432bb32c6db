/**
 * What Discord's HTTP API refuses, for the fake Discord API: a payload Discord would refuse fails a
 * test here. Limits come from discord-api-types (payloads/v10/message.d.ts "Length limit" notes on
 * embeds, rest/v10/channel.d.ts and webhook.d.ts "up to 2000 characters",
 * payloads/v10/_interactions/applicationCommands.d.ts) and, where those are silent (button label 80,
 * custom_id 1–100, command name pattern), from the validators of @discordjs/builders (dist/index.js
 * `buttonLabelValidator`, `customIdValidator`, `namePredicate`). A refusal is Discord's
 * `400 {code: 50035, message: "Invalid Form Body", errors: {...}}`, its `errors` nested by field
 * path down to `_errors: [{code, message}]`.
 */

type Path = (string | number)[];
interface FieldError {
  path: Path;
  code: string;
  message: string;
}

export interface DiscordRefusal {
  status: number;
  body: { code: number; message: string; errors?: Record<string, unknown> };
}

export const LIMITS = {
  content: 2000,
  embeds: 10,
  embedTitle: 256,
  embedDescription: 4096,
  embedFields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footerText: 2048,
  authorName: 256,
  embedTotal: 6000,
  actionRows: 5,
  buttonsPerRow: 5,
  buttonLabel: 80,
  customId: 100,
  selectOptions: 25,
  selectText: 100,
  placeholder: 150,
  commands: 100,
  commandDescription: 100,
  commandOptions: 25,
  choices: 25,
  choiceName: 100,
  choiceValue: 100,
} as const;

/** Discord's command and option name rule: lowercase where the script has case, 1–32 characters. */
const COMMAND_NAME = /^[-_\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

const COMPONENT = { ACTION_ROW: 1, BUTTON: 2, STRING_SELECT: 3, USER_SELECT: 5, ROLE_SELECT: 6, MENTIONABLE_SELECT: 7, CHANNEL_SELECT: 8 } as const;
const LINK_STYLE = 5;
const PREMIUM_STYLE = 6;
const SUBCOMMAND = 1;
const SUBCOMMAND_GROUP = 2;
const STRING_OPTION = 3;
/** Interaction callback types (discord-api-types InteractionResponseType). */
const CALLBACK_TYPES = [1, 4, 5, 6, 7, 8, 9, 10, 12];

/** The fields a message body may carry (RESTPostAPIChannelMessageJSONBody, RESTPostAPIWebhookWithTokenJSONBody, APIInteractionResponseCallbackData). */
const MESSAGE_FIELDS = new Set([
  'content', 'nonce', 'tts', 'embeds', 'allowed_mentions', 'message_reference', 'components', 'sticker_ids', 'files',
  'payload_json', 'attachments', 'flags', 'enforce_nonce', 'poll', 'username', 'avatar_url', 'thread_name', 'applied_tags',
]);

class Collector {
  readonly errors: FieldError[] = [];
  maxLength(path: Path, value: unknown, max: number): void {
    if (typeof value === 'string' && value.length > max) this.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
  }
  between(path: Path, value: unknown, min: number, max: number): void {
    if (typeof value !== 'string' || value.length < min || value.length > max) this.add(path, 'BASE_TYPE_BAD_LENGTH', `Must be between ${min} and ${max} in length.`);
  }
  required(path: Path): void {
    this.add(path, 'BASE_TYPE_REQUIRED', 'This field is required');
  }
  add(path: Path, code: string, message: string): void {
    this.errors.push({ path, code, message });
  }
}

/** Discord's Invalid Form Body answer for `errors`, or undefined when there are none. */
function invalidFormBody(errors: FieldError[]): DiscordRefusal | undefined {
  if (errors.length === 0) return undefined;
  const tree: Record<string, any> = {};
  for (const e of errors) {
    let node = tree;
    for (const key of e.path) node = node[String(key)] ??= {};
    (node._errors ??= []).push({ code: e.code, message: e.message });
  }
  return { status: 400, body: { code: 50035, message: 'Invalid Form Body', errors: tree } };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function checkEmbeds(c: Collector, embeds: unknown, at: Path): void {
  if (embeds === undefined || embeds === null) return;
  if (!Array.isArray(embeds)) return c.add(at, 'BASE_TYPE_ARRAY', 'Must be an array.');
  if (embeds.length > LIMITS.embeds) c.add(at, 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.embeds} or fewer in length.`);
  let total = 0;
  embeds.forEach((embed: Record<string, any>, i) => {
    const p = [...at, i];
    c.maxLength([...p, 'title'], embed.title, LIMITS.embedTitle);
    c.maxLength([...p, 'description'], embed.description, LIMITS.embedDescription);
    c.maxLength([...p, 'footer', 'text'], embed.footer?.text, LIMITS.footerText);
    c.maxLength([...p, 'author', 'name'], embed.author?.name, LIMITS.authorName);
    if (embed.url !== undefined && !isUrl(embed.url, ['http:', 'https:'])) c.add([...p, 'url'], 'URL_TYPE_INVALID_URL', 'Not a well formed URL.');
    const fields: Record<string, any>[] = Array.isArray(embed.fields) ? embed.fields : [];
    if (fields.length > LIMITS.embedFields) c.add([...p, 'fields'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.embedFields} or fewer in length.`);
    fields.forEach((f, j) => {
      c.between([...p, 'fields', j, 'name'], f.name, 1, LIMITS.fieldName);
      c.between([...p, 'fields', j, 'value'], f.value, 1, LIMITS.fieldValue);
    });
    total += text(embed.title).length + text(embed.description).length + text(embed.footer?.text).length + text(embed.author?.name).length;
    total += fields.reduce((n, f) => n + text(f.name).length + text(f.value).length, 0);
  });
  // "Length limit: 6000 characters" across every embed of the message (message.d.ts APIEmbed).
  if (total > LIMITS.embedTotal) c.add(at, 'MAX_EMBED_SIZE_EXCEEDED', `Embed size exceeds maximum size of ${LIMITS.embedTotal}`);
}

function isUrl(value: unknown, protocols: string[]): boolean {
  if (typeof value !== 'string') return false;
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function checkButton(c: Collector, b: Record<string, any>, p: Path): void {
  if (b.label !== undefined) c.maxLength([...p, 'label'], b.label, LIMITS.buttonLabel);
  if (b.style === PREMIUM_STYLE) return;
  if ((b.label === undefined || b.label === '') && b.emoji === undefined) c.add([...p, 'label'], 'BUTTON_COMPONENT_MUST_HAVE_LABEL_OR_EMOJI', 'Buttons must have a label or an emoji.');
  if (b.style === LINK_STYLE) {
    if (b.custom_id !== undefined) c.add([...p, 'custom_id'], 'BUTTON_COMPONENT_LINK_HAS_CUSTOM_ID', 'A link button cannot have a custom id.');
    if (b.url === undefined) c.required([...p, 'url']);
    else if (!isUrl(b.url, ['http:', 'https:', 'discord:'])) c.add([...p, 'url'], 'URL_TYPE_INVALID_URL', 'Not a well formed URL.');
  } else if (typeof b.style === 'number' && b.style >= 1 && b.style <= 4) {
    if (b.url !== undefined) c.add([...p, 'url'], 'BUTTON_COMPONENT_NON_LINK_HAS_URL', 'A non-link button cannot have a url.');
    if (b.custom_id === undefined) c.required([...p, 'custom_id']);
    else c.between([...p, 'custom_id'], b.custom_id, 1, LIMITS.customId);
  } else {
    c.add([...p, 'style'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2, 3, 4, 5, 6}.');
  }
}

function checkSelect(c: Collector, s: Record<string, any>, p: Path): void {
  c.between([...p, 'custom_id'], s.custom_id, 1, LIMITS.customId);
  c.maxLength([...p, 'placeholder'], s.placeholder, LIMITS.placeholder);
  if (s.type !== COMPONENT.STRING_SELECT) return;
  const options: Record<string, any>[] = Array.isArray(s.options) ? s.options : [];
  if (options.length < 1 || options.length > LIMITS.selectOptions) c.add([...p, 'options'], 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${LIMITS.selectOptions} in length.`);
  options.forEach((o, i) => {
    c.between([...p, 'options', i, 'label'], o.label, 1, LIMITS.selectText);
    c.between([...p, 'options', i, 'value'], o.value, 1, LIMITS.selectText);
    c.maxLength([...p, 'options', i, 'description'], o.description, LIMITS.selectText);
  });
  if (typeof s.max_values === 'number' && s.max_values > options.length) c.add([...p, 'max_values'], 'BASE_TYPE_MAX', `int value should be less than or equal to ${options.length}.`);
}

function checkComponents(c: Collector, rows: unknown, at: Path): void {
  if (rows === undefined || rows === null) return;
  if (!Array.isArray(rows)) return c.add(at, 'BASE_TYPE_ARRAY', 'Must be an array.');
  if (rows.length > LIMITS.actionRows) c.add(at, 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.actionRows} or fewer in length.`);
  rows.forEach((row: Record<string, any>, i) => {
    const p = [...at, i];
    if (row.type !== COMPONENT.ACTION_ROW) return c.add([...p, 'type'], 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'Only action rows are allowed at the top level of these components.');
    const children: Record<string, any>[] = Array.isArray(row.components) ? row.components : [];
    const selects = children.filter((k) => k.type >= COMPONENT.STRING_SELECT && k.type <= COMPONENT.CHANNEL_SELECT && k.type !== 4);
    if (children.length === 0) c.add([...p, 'components'], 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${LIMITS.buttonsPerRow} in length.`);
    // A row holds up to five buttons or a single select menu, never both.
    if (children.length > LIMITS.buttonsPerRow || (selects.length > 0 && children.length > 1)) {
      c.add([...p, 'components'], 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'The specified component exceeds the maximum width');
    }
    children.forEach((k, j) => {
      const q = [...p, 'components', j];
      if (k.type === COMPONENT.BUTTON) checkButton(c, k, q);
      else if (selects.includes(k)) checkSelect(c, k, q);
      else c.add([...q, 'type'], 'UNION_TYPE_CHOICES', `Value of field "type" must be one of (${COMPONENT.BUTTON}, ${COMPONENT.STRING_SELECT}, 5, 6, 7, 8).`);
    });
  });
  const ids = rows.flatMap((r: any) => (Array.isArray(r?.components) ? r.components : [])).map((k: any) => k?.custom_id).filter((id: unknown) => id !== undefined);
  if (new Set(ids).size !== ids.length) c.add(at, 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
}

function collectMessage(c: Collector, body: Record<string, any>, at: Path, edit: boolean): void {
  for (const key of Object.keys(body)) {
    // Discord ignores unknown fields; the fake refuses them, as a misspelt field is a silently lost one.
    if (!MESSAGE_FIELDS.has(key)) c.add([...at, key], 'UNKNOWN_FIELD', `Unknown field "${key}" (the real API would silently ignore it).`);
  }
  c.maxLength([...at, 'content'], body.content, LIMITS.content);
  checkEmbeds(c, body.embeds, [...at, 'embeds']);
  checkComponents(c, body.components, [...at, 'components']);
  const empty = !text(body.content) && !(Array.isArray(body.embeds) && body.embeds.length) && !(Array.isArray(body.components) && body.components.length) && !body.poll && !body.sticker_ids?.length && !body.attachments?.length;
  // Error 50006 is its own answer, not a form error: only when nothing else is wrong.
  if (empty && !edit && c.errors.length === 0) c.add([], 'EMPTY', '');
}

function refusal(c: Collector): DiscordRefusal | undefined {
  if (c.errors.some((e) => e.code === 'EMPTY')) return { status: 400, body: { code: 50006, message: 'Cannot send an empty message' } };
  return invalidFormBody(c.errors);
}

/** Create Message, Execute Webhook, a follow-up, or (edit) an edit of a message: what Discord refuses. */
export function checkDiscordMessage(body: unknown, { edit = false } = {}): DiscordRefusal | undefined {
  const c = new Collector();
  collectMessage(c, (body ?? {}) as Record<string, any>, [], edit);
  return refusal(c);
}

/** Create Interaction Response: the callback type and, by type, its data. */
export function checkInteractionCallback(body: unknown): DiscordRefusal | undefined {
  const c = new Collector();
  const b = (body ?? {}) as Record<string, any>;
  if (!CALLBACK_TYPES.includes(b.type)) {
    c.add(['type'], 'BASE_TYPE_CHOICES', `Value must be one of {${CALLBACK_TYPES.join(', ')}}.`);
    return refusal(c);
  }
  const data = (b.data ?? {}) as Record<string, any>;
  if (b.type === 4 || b.type === 7) collectMessage(c, data, ['data'], b.type === 7);
  if (b.type === 5 || b.type === 6) {
    for (const key of Object.keys(data)) if (key !== 'flags') c.add(['data', key], 'UNKNOWN_FIELD', `Unknown field "${key}" (the real API would silently ignore it).`);
  }
  if (b.type === 8) {
    const choices: Record<string, any>[] = Array.isArray(data.choices) ? data.choices : [];
    if (choices.length > LIMITS.choices) c.add(['data', 'choices'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.choices} or fewer in length.`);
    choices.forEach((ch, i) => {
      c.between(['data', 'choices', i, 'name'], ch.name, 1, LIMITS.choiceName);
      if (typeof ch.value === 'string') c.maxLength(['data', 'choices', i, 'value'], ch.value, LIMITS.choiceValue);
    });
  }
  if (b.type === 9) {
    c.between(['data', 'custom_id'], data.custom_id, 1, LIMITS.customId);
    c.between(['data', 'title'], data.title, 1, 45);
  }
  return refusal(c);
}

function checkOptions(c: Collector, options: unknown, at: Path): void {
  if (options === undefined) return;
  const list: Record<string, any>[] = Array.isArray(options) ? options : [];
  if (list.length > LIMITS.commandOptions) c.add(at, 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.commandOptions} or fewer in length.`);
  let optionalSeen = false;
  const names = new Set<string>();
  list.forEach((o, i) => {
    const p = [...at, i];
    checkName(c, o.name, [...p, 'name']);
    if (names.has(o.name)) c.add([...p, 'name'], 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option names must be unique');
    names.add(o.name);
    c.between([...p, 'description'], o.description, 1, LIMITS.commandDescription);
    if (o.type === SUBCOMMAND || o.type === SUBCOMMAND_GROUP) return checkOptions(c, o.options, [...p, 'options']);
    if (o.required === true && optionalSeen) c.add([...p, 'required'], 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', 'Required options must be placed before non-required options');
    if (o.required !== true) optionalSeen = true;
    if (o.choices !== undefined) {
      const choices: Record<string, any>[] = Array.isArray(o.choices) ? o.choices : [];
      if (choices.length > LIMITS.choices) c.add([...p, 'choices'], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.choices} or fewer in length.`);
      if (o.autocomplete === true && choices.length > 0) c.add([...p, 'autocomplete'], 'APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_WITH_CHOICES', 'Autocomplete cannot be enabled on options that have choices.');
      choices.forEach((ch, j) => {
        c.between([...p, 'choices', j, 'name'], ch.name, 1, LIMITS.choiceName);
        if (o.type === STRING_OPTION) c.between([...p, 'choices', j, 'value'], ch.value, 1, LIMITS.choiceValue);
      });
    }
  });
}

function checkName(c: Collector, name: unknown, p: Path): void {
  if (typeof name !== 'string' || !COMMAND_NAME.test(name)) c.add(p, 'APPLICATION_COMMAND_INVALID_NAME', `Command name is invalid`);
  else if (name !== name.toLowerCase()) c.add(p, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name must be lowercase');
}

/** Bulk Overwrite Application Commands (PUT …/commands): the array of chat-input commands. */
export function checkCommandRegistration(body: unknown): DiscordRefusal | undefined {
  const c = new Collector();
  if (!Array.isArray(body)) {
    c.add([], 'BASE_TYPE_ARRAY', 'Must be an array.');
    return refusal(c);
  }
  if (body.length > LIMITS.commands) c.add([], 'BASE_TYPE_MAX_LENGTH', `Must be ${LIMITS.commands} or fewer in length.`);
  const names = new Set<string>();
  body.forEach((cmd: Record<string, any>, i) => {
    checkName(c, cmd.name, [i, 'name']);
    if (names.has(cmd.name)) c.add([i, 'name'], 'APPLICATION_COMMANDS_DUPLICATE_NAME', `Application command names must be unique`);
    names.add(cmd.name);
    if ((cmd.type ?? 1) === 1) c.between([i, 'description'], cmd.description, 1, LIMITS.commandDescription);
    checkOptions(c, cmd.options, [i, 'options']);
  });
  return refusal(c);
}
