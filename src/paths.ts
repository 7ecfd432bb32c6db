import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The package's folder (where package.json, drizzle/ and dist/ are), found upwards from this
 * module: the same answer from src/ under tsx, from dist/ compiled by tsc, and from the bundle.
 */
export function packageRoot(): string {
  if (root) return root;
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'drizzle'))) return (root = dir);
    if (path.dirname(dir) === dir) throw new Error('cannot find the oddswatch package folder (package.json beside drizzle/)');
  }
}
