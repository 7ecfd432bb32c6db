import { listWords } from './shared.js';
import { UsageError } from './types.js';

// Each command's parameters, declared once. The Telegram/text parser, the Discord slash options
// and both platforms' /help are generated from these declarations (see ../discord/slash.ts).

interface BaseParam {
  /** The Discord option name and the word `/help` shows (`<market>`, `market:…`). */
  name: string;
  /** One line for Discord's option description (at most 100 characters). */
  help: string;
  optional?: boolean;
  /** The word Telegram's `/help` shows (`<alert id>`) when the name alone says too little. */
  word?: string;
  /** What the parameter takes, when its name says too little: /help shows it on a line of its own. */
  detail?: string;
}

/** Free text. `rest` takes every remaining word (a name, a search): it must be the last parameter. */
export interface TextParam extends BaseParam {
  kind: 'text';
  rest?: boolean;
  /**
   * Typed words: takes every word up to the first of these (the start of the next, optional,
   * parameter), so a text of several words need not be the last parameter.
   */
  until?: readonly string[];
  /** Discord offers choices while the user types, from this source (see ../discord/autocomplete.ts). */
  autocomplete?: 'market' | 'alert' | 'condition';
}

/** A number within bounds; `exclusive` when the bounds themselves are refused (a threshold of 0 or 100). */
export interface NumberParam extends BaseParam {
  kind: 'number' | 'integer';
  min: number;
  max: number;
  exclusive?: boolean;
  /** What the number is, in chat words: "150 is not a *percentage* between 0 and 100". */
  what: string;
}

/** One of a few words. `rest` lets a choice be several words (`every 30m`). */
export interface ChoiceParam extends BaseParam {
  kind: 'choice';
  choices: readonly { word: string; label: string }[];
  /** What a choice is, in chat words: "sideways is not a *direction*". */
  what: string;
  rest?: boolean;
}

export type Param = TextParam | NumberParam | ChoiceParam;
export type ParamValue = string | number;
/** A command's parameters by name, typed and checked; absent optional ones are missing. */
export type Values = Readonly<Record<string, ParamValue | undefined>>;

export interface Subcommand {
  name: string;
  summary: string;
  params: readonly Param[];
}

/** What a signature is declared on: a command, or a command with subcommands (`/watchlist new`). */
export interface Signature {
  name: string;
  params?: readonly Param[];
  subcommands?: readonly Subcommand[];
}

export type Platform = 'telegram' | 'discord';

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)$/;

/** A value from either platform checked against its declaration; the error names the word and the fix. */
export function checkValue(param: Param, raw: ParamValue): ParamValue {
  switch (param.kind) {
    case 'text':
      return String(raw);
    case 'choice': {
      const word = String(raw).trim().toLowerCase().replace(/\s+/g, ' ');
      if (param.choices.some((c) => c.word === word)) return word;
      throw new UsageError(`${String(raw)} is not a ${param.what}: use ${listWords(param.choices.map((c) => c.word))}.`);
    }
    case 'number':
    case 'integer': {
      const text = String(raw).trim().replace(/%$/, '');
      if (!NUMBER.test(text)) {
        throw new UsageError(
          param.kind === 'integer' ? `${String(raw)} is not a ${param.what}: write digits only, like 1.` : `${String(raw)} is not a number: write it with digits and a dot, like 60 or 60.5.`,
        );
      }
      const n = Number(text);
      const inside = param.exclusive ? n > param.min && n < param.max : n >= param.min && n <= param.max;
      if (!inside || (param.kind === 'integer' && !Number.isInteger(n))) {
        throw new UsageError(`${String(raw)} is not a ${param.what} between ${param.min} and ${param.max}.`);
      }
      return n;
    }
  }
}

/** The declared parameters read from a command's words (Telegram, typed text, a button's data). */
export function valuesFromWords(params: readonly Param[], words: readonly string[]): Values {
  const values: Record<string, ParamValue> = {};
  let at = 0;
  for (const param of params) {
    const rest = 'rest' in param && param.rest === true;
    const until = param.kind === 'text' && param.until ? untilWord(words, at, param.until) : undefined;
    const end = until ?? (rest ? words.length : at + 1);
    const taken = words.slice(at, end).join(' ');
    at = end;
    if (taken === '') {
      if (param.optional) continue;
      throw new UsageError();
    }
    values[param.name] = checkValue(param, taken);
  }
  if (at < words.length) throw new UsageError();
  return values;
}

/** Where a text declared with `until` ends: at the first of those words after its own first word, or at the end. */
function untilWord(words: readonly string[], from: number, until: readonly string[]): number {
  const stop = words.findIndex((w, i) => i > from && until.includes(w.toLowerCase()));
  return stop === -1 ? words.length : stop;
}

/** The subcommand a signature's first word names, and the words after it. */
export function pickSubcommand(signature: Signature, words: readonly string[]): { params: readonly Param[]; subcommand?: string; words: readonly string[] } {
  if (!signature.subcommands) return { params: signature.params ?? [], words };
  const sub = signature.subcommands.find((s) => s.name === words[0]?.toLowerCase());
  if (!sub) throw new UsageError();
  return { params: sub.params, subcommand: sub.name, words: words.slice(1) };
}

function paramUsage(param: Param, platform: Platform): string {
  if (platform === 'discord') return param.optional ? `[${param.name}:…]` : `${param.name}:…`;
  const word = param.word ?? (param.kind === 'choice' ? param.choices.map((c) => c.word).join('|') : param.name);
  return param.optional ? `[${word}]` : `<${word}>`;
}

const line = (name: string, params: readonly Param[], platform: Platform) => [name, ...params.map((p) => paramUsage(p, platform))].join(' ');

/**
 * How to call a command, in the platform's own syntax: Telegram `/alert <market id> <condition> [once | every …]`,
 * Discord `/alert market:… condition:… [repeat:…]`.
 */
export function usage(signature: Signature, platform: Platform): string {
  if (!signature.subcommands) return `/${line(signature.name, signature.params ?? [], platform)}`;
  return `/${signature.name} ${signature.subcommands.map((s) => line(s.name, s.params, platform)).join(' | ')}`;
}

/** A parsed text or choice value (undefined when an optional one was left out). */
export const textOf = (values: Values, name: string): string | undefined => (values[name] === undefined ? undefined : String(values[name]));

/** A parsed number value; its declaration made it a number. */
export const numberOf = (values: Values, name: string): number => Number(values[name]);

/** The one parameter of pause, resume, delete and alerts: an alert, offered by Discord's autocomplete. */
export const alertIdParam = (help: string, optional = false): TextParam => ({
  kind: 'text',
  name: 'id',
  word: 'alert id',
  help,
  autocomplete: 'alert',
  ...(optional ? { optional } : {}),
});

/** Values a platform typed itself (Discord options), checked against the declaration as typed words are. */
export function checkValues(signature: Signature, given: { subcommand?: string; values: Readonly<Record<string, ParamValue>> }): Values {
  const params = signature.subcommands ? signature.subcommands.find((s) => s.name === given.subcommand)?.params : (signature.params ?? []);
  if (!params) throw new UsageError();
  const values: Record<string, ParamValue> = {};
  for (const param of params) {
    const raw = given.values[param.name];
    if (raw === undefined || raw === '') {
      if (param.optional) continue;
      throw new UsageError();
    }
    values[param.name] = checkValue(param, raw);
  }
  return values;
}
