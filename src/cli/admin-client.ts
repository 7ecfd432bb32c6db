import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ADMIN_FILE } from '../admin/server.js';

export interface AdminClient {
  call(route: string, body: unknown): Promise<unknown>;
}

/** The running service's admin endpoint for this DATA_DIR, or undefined when none answers. */
export async function findRunningService(dataDir: string): Promise<AdminClient | undefined> {
  let info: { port: number; secret: string; pid?: number };
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
    await fetch(`http://127.0.0.1:${info.port}/`, { signal: AbortSignal.timeout(10_000) });
    return { call };
  } catch {
    // A stale file from a crashed service: nothing holds the folder, so open the database directly.
    // A live service that does not answer must not have its folder opened a second time.
    if (info.pid !== undefined && isAlive(info.pid)) {
      throw new Error(`the service (pid ${info.pid}) holds ${dataDir} but its admin endpoint does not answer; try again`);
    }
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
