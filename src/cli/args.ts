import { settingFromFlag } from '../config.js';

export interface ParsedArgs {
  words: string[];
  settings: Record<string, string>;
  options: Record<string, string | true>;
}

/** `accounts create --json --data-dir x`: words, settings given as --kebab-case flags, and options. */
export function parseArgs(argv: string[]): ParsedArgs {
  const parsed: ParsedArgs = { words: [], settings: {}, options: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      parsed.words.push(arg);
      continue;
    }
    const [flag, inline] = arg.split('=', 2) as [string, string | undefined];
    const setting = settingFromFlag(flag);
    const next = argv[i + 1];
    const takesValue = inline === undefined && next !== undefined && !next.startsWith('--');
    const value = inline ?? (takesValue && (setting || flag !== '--json') ? argv[++i]! : undefined);
    if (setting) {
      if (value === undefined) throw new Error(`${flag} needs a value`);
      parsed.settings[setting] = value;
    } else {
      parsed.options[flag.slice(2)] = value ?? true;
    }
  }
  return parsed;
}
