import { existsSync } from 'node:fs';

/**
 * Debian's Chromium (`apt-get install chromium`, as .ci/run does), never a browser download;
 * CHROMIUM_PATH names another build.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
