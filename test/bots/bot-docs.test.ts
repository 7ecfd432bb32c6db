import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';

// docs/bots.md is what an operator reads when a bot misbehaves: it must keep up with the code.

const root = path.resolve(import.meta.dirname, '../..');
const guide = readFileSync(path.join(root, 'docs/bots.md'), 'utf8');

function section(title: string): string {
  const start = guide.indexOf(`## ${title}\n`);
  expect(start, `docs/bots.md has a "## ${title}" section`).toBeGreaterThanOrEqual(0);
  const end = guide.indexOf('\n## ', start + 1);
  return guide.slice(start, end === -1 ? undefined : end);
}

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );

/** The message of every log call in src/bots: the string literal that ends the call. */
function logMessages(): string[] {
  const call = /\b(?:log|logger)\.(?:fatal|error|warn|info|debug)\(([^;]*?)(['`])((?:(?!\2).)*)\2\s*\)/gs;
  return sources(path.join(root, 'src/bots')).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(call)].map((m) => m[3]!));
}

describe('docs/bots.md', () => {
  it('explains every message the bots log in its troubleshooting table', () => {
    const table = section('Troubleshooting');
    const messages = logMessages();
    expect(messages.length).toBeGreaterThan(20);
    // A template's fixed parts: `${connector.platform}: could not connect…` is documented per platform.
    const missing = messages.filter((m) => m.split(/\$\{[^}]*\}/).some((part) => part.trim() && !table.includes(part.trim())));
    expect(missing).toEqual([]);
  });

  it("gives the invite URL's permission integer the code needs: view channels and manage webhooks", () => {
    const needed = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ManageWebhooks;
    expect(guide).toContain(`scope=bot+applications.commands&permissions=${needed}`);
  });
});
