import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ADMIN_FILE } from '../admin/server.js';

export interface AdminClient {
  call(route: string, body: unknown): Promise<unknown>;
}

/** The running service's admin endpoint for this DATA_DIR, or undefined when none answers. */
export async function findRunningService(dataDir: string): Promise<AdminClient | undefined> {
  let info: { port: number; secret: string };
  try {
    info = JSON.parse(await readFile(path.join(dataDir, ADMIN_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  const call = async (route: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${info.port}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-secret': info.secret },
      body: JSON.stringify(body ?? {}),
      signal: AbortSignal.timeout(60_000),
    });
    const payload = (await res.json()) as { error?: string };
    if (!res.ok) throw new Error(payload.error ?? `service answered ${res.status}`);
    return payload;
  };
  try {
    // A stale file from a crashed service: nothing listens, so open the database directly.
    await fetch(`http://127.0.0.1:${info.port}/`, { signal: AbortSignal.timeout(2000) });
    return { call };
  } catch {
    return undefined;
  }
}
