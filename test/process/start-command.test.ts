import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

// The node options that keep the service's memory down (docs/PERFORMANCE.md, Memory) are given at
// launch, in two places a user starts it from: `npm start` and the container image.
describe('the service start command', () => {
  it('gives node the same options in npm start and in the Dockerfile', async () => {
    const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const npmStart = pkg.scripts.start!.split(/\s+/);
    expect(npmStart.slice(0, 2)).toEqual(['exec', 'node']);
    expect(npmStart.at(-1)).toBe('dist/main.js');
    const cmd = /^CMD (\[.*\])$/m.exec(await readFile(path.join(root, 'Dockerfile'), 'utf8'))?.[1];
    expect(JSON.parse(cmd!)).toEqual(npmStart.slice(1));
    expect(npmStart).toContain('--v8-pool-size=1');
  });
});
