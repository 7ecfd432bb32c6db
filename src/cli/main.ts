import { loadConfig } from '../env.js';
import { createLogger } from '../logger.js';
import { parseArgs } from './args.js';
import { runCommand } from './commands.js';

const args = (() => {
  try {
    return parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
})();
const config = loadConfig(args.settings);
// Logs go to stderr so that `--json` output on stdout stays exactly one line.
const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, process.stderr as never);
const name = args.words.slice(0, args.words[0] === 'migrate' ? 1 : 2).join(' ');

try {
  const result = (await runCommand(name, { config, logger, options: args.options })) as Record<string, unknown>;
  if (args.options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else for (const [key, value] of Object.entries(result)) process.stdout.write(`${key}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}\n`);
  process.exit(0);
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
