#!/usr/bin/env node
// The package's CLI: the compiled dist/cli/main.js (`npm run build`, or any `npm start`, makes it).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('oddswatch: dist/ is missing; run `npm run build` in the package folder first.\n');
  process.exit(1);
}
await import(entry.href);
