import type { Database, Unlisten } from './client.js';

/**
 * In-memory state of a database kept current by a notice channel, as the API's caches are (token
 * checks, search answers, listing generations): one per database, started by the app that serves
 * it, looked up by the code that uses it. Without a started one, that code reads the database.
 */
export class FollowedPerDatabase<T extends object> {
  private readonly byDatabase = new WeakMap<Database, T>();

  /** The state of a database whose notices are being followed, if any. */
  of(database: Database): T | undefined {
    return this.byDatabase.get(database);
  }

  /** Follows `channel` into `state` (`onNotice` applies a notice to it) and makes it the database's. Returns the stop. */
  async start(database: Database, channel: string, state: T, onNotice: (payload: string) => void): Promise<Unlisten> {
    const unlisten = await database.listen(channel, onNotice);
    this.byDatabase.set(database, state);
    return async () => {
      // Another app on the same database (tests) may have started its own since: that one stays.
      if (this.byDatabase.get(database) === state) this.byDatabase.delete(database);
      await unlisten();
    };
  }
}
