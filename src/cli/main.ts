import { loadConfig } from '../env.js';
import { createLogger } from '../logger.js';
import { parseArgs, type ParsedArgs } from './args.js';
import { commandName, COMMANDS, helpText, runCommand } from './commands.js';

// With --json, stdout carries exactly one JSON line and nothing else: logs, progress and errors go
// to stderr, so `$(npm run -s cli -- accounts create --json)` can be parsed as it is.

/** Usage mistakes: the message and the help on stderr, exit 2. */
function usageError(message: string): never {
  process.stderr.write(`error: ${message}\n\n${helpText()}\n`);
  process.exit(2);
}

const args: ParsedArgs = (() => {
  try {
    return parseArgs(process.argv.slice(2));
  } catch (err) {
    return usageError((err as Error).message);
  }
})();
const json = args.options.json === true;

if (args.options.help || args.options.h || args.words[0] === 'help' || args.words.includes('-h')) {
  const commands = Object.values(COMMANDS).map(({ usage, summary }) => ({ usage, summary }));
  process.stdout.write(json ? `${JSON.stringify({ commands })}\n` : `${helpText()}\n`);
  process.exit(0);
}
const name = commandName(args.words);
if (!name) usageError(args.words.length === 0 ? 'no command given' : `unknown command "${args.words.join(' ')}"`);
const extra = args.words.slice(name.split(' ').length);
if (extra.length > 0) usageError(`unexpected argument "${extra.join(' ')}" after "${name}"`);

const config = loadConfig(args.settings);
const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, process.stderr as never);

try {
  const result = (await runCommand(name, { config, logger, options: args.options })) as Record<string, unknown>;
  if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else for (const [key, value] of Object.entries(result)) process.stdout.write(`${key}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}\n`);
  process.exit(0);
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
