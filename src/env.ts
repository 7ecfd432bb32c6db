import { config as loadDotenv } from 'dotenv';
import { ConfigError, parseConfig, type Config } from './config.js';

/** Settings from `.env` (if present) and the environment, with CLI flags on top. */
export function loadConfig(overrides: Record<string, string> = {}): Config {
  loadDotenv({ quiet: true });
  try {
    return parseConfig({ ...process.env, ...overrides });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
