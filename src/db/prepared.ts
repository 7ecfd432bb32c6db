import { parse, protocol, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';

/**
 * Named statements on PGlite: parsed once per session, then only bound and executed. PGlite's
 * `query` parses and plans every statement anew through an unnamed statement; for the hot
 * statements (a create, the engine's reload of a rule) parse and plan were most of their cost.
 * A named statement keeps its parse tree, and PostgreSQL's plan cache switches it to one generic
 * plan after five executions when that plan is no dearer than the custom ones, so later binds
 * skip planning. Plans are invalidated by PostgreSQL itself when a table they read changes shape.
 */

/** Statements kept per instance; past it the oldest is closed (a bound against texts built from values). */
const MAX_STATEMENTS = 64;

interface Statement {
  name: string;
  /** PostgreSQL's types of the parameters, which pick PGlite's serializer for each value. */
  paramTypes: number[];
}

interface Session {
  statements: Map<string, Statement>;
  next: number;
}

// Per PGlite instance, not per wrapper: tests open several handles over one instance, and the
// statements belong to its one session.
const sessions = new WeakMap<PGlite, Session>();
const { serialize } = protocol;

/** Raised by PostgreSQL when a named statement is gone (`DEALLOCATE`, `DISCARD ALL`). */
const INVALID_STATEMENT_NAME = '26000';

/**
 * `query` outside a transaction through a named statement of its text (a create, the engine's
 * reload). Its text must not be built from values (values are parameters), or each call would
 * prepare a statement of its own. Takes PGlite's two locks as its own `query` does, so it never runs
 * inside someone's transaction; a statement gone (26000) is prepared again once, as nothing ran.
 */
export function preparedQuery<T>(pg: PGlite, text: string, params: unknown[], options: QueryOptions | undefined): Promise<Results<T>> {
  const session = sessionOf(pg);
  const run = async () => {
    const results = resultsOf<T>(pg, await bindAndExecute(pg, session, text, params), options);
    // As `query` does once a statement outside a transaction is done (no-op on a memory folder).
    await pg.syncToFs();
    return results;
  };
  return pg._runExclusiveTransaction(() =>
    pg._runExclusiveQuery(async () => {
      try {
        return await run();
      } catch (err) {
        if ((err as { code?: string }).code !== INVALID_STATEMENT_NAME) throw described(err, text, params);
        session.statements.clear();
        return run().catch((again: unknown) => Promise.reject(described(again, text, params)));
      }
    }),
  );
}

const resultsOf = <T>(pg: PGlite, messages: Awaited<ReturnType<typeof bindAndExecute>>, options: QueryOptions | undefined): Results<T> =>
  (parse.parseResults(messages, pg.parsers, { rowMode: options?.rowMode })[0] ?? { rows: [], fields: [] }) as Results<T>;

/** The named statement of `text` (prepared on first use) bound to `params` and run: its messages. */
async function bindAndExecute(pg: PGlite, session: Session, text: string, params: unknown[]) {
  const statement = session.statements.get(text) ?? (await prepare(pg, session, text));
  const values = params.map((value, i) => {
    if (value === null || value === undefined) return null;
    const serializer = pg.serializers[statement.paramTypes[i]!];
    return serializer ? serializer(value) : String(value);
  });
  // One exchange of the four messages, not one each: PGlite's per-call work (its parser and buffers,
  // the WebAssembly entry) was a third of a bound statement's CPU (35 against 50 µs). On an error
  // the backend skips to the Sync in the same buffer, so the session is ready again when PGlite
  // throws the first error it read; nothing is left half-sent.
  return exchange(pg, Buffer.concat([serialize.bind({ statement: statement.name, values }), DESCRIBE_PORTAL, EXECUTE, SYNC]));
}

// Fixed messages, serialized once.
const DESCRIBE_PORTAL = serialize.describe({ type: 'P' });
const EXECUTE = serialize.execute({});
const SYNC = serialize.sync();

/**
 * `query` of a PGlite transaction through a named statement (the firing write's statements, which
 * PGlite's own `tx.query` parses and plans on every call). The caller's transaction holds PGlite's
 * transaction lock; the query lock is taken as `tx.query` takes it. Named statements outlive a
 * rollback (they belong to the session, not the transaction), so the cache stays true. A statement
 * gone (26000) fails the transaction like any error; the cache is cleared for the next one.
 */
export function preparedInTransaction<T>(pg: PGlite, text: string, params: unknown[], options: QueryOptions | undefined): Promise<Results<T>> {
  const session = sessionOf(pg);
  return pg._runExclusiveQuery(async () => {
    try {
      return resultsOf<T>(pg, await bindAndExecute(pg, session, text, params), options);
    } catch (err) {
      if ((err as { code?: string }).code === INVALID_STATEMENT_NAME) session.statements.clear();
      throw described(err, text, params);
    }
  });
}

function sessionOf(pg: PGlite): Session {
  let session = sessions.get(pg);
  if (!session) sessions.set(pg, (session = { statements: new Map(), next: 0 }));
  return session;
}

/** Parse and describe in a round of their own: nothing else is in its implicit transaction. */
async function prepare(pg: PGlite, session: Session, text: string): Promise<Statement> {
  if (session.statements.size >= MAX_STATEMENTS) {
    const [oldestText, oldest] = session.statements.entries().next().value!;
    session.statements.delete(oldestText);
    await exchange(pg, serialize.close({ type: 'S', name: oldest.name }));
    await exchange(pg, serialize.sync());
  }
  const name = `oddswatch_${session.next++}`;
  const described = [];
  try {
    await exchange(pg, serialize.parse({ name, text }));
    described.push(...(await exchange(pg, serialize.describe({ type: 'S', name }))));
  } finally {
    await exchange(pg, serialize.sync());
  }
  const description = described.find((m) => m.name === 'parameterDescription') as { dataTypeIDs: number[] } | undefined;
  const statement = { name, paramTypes: description?.dataTypeIDs ?? [] };
  session.statements.set(text, statement);
  return statement;
}

/** The statement on its error, as PGlite's `query` puts it there. */
function described(err: unknown, query: string, params: unknown[]): unknown {
  if (err && typeof err === 'object') Object.assign(err, { query, params });
  return err;
}

/** One protocol message, as `query` sends each of its own (no file sync until the statement is done). */
function exchange(pg: PGlite, message: Uint8Array) {
  return pg.execProtocolStream(message, { syncToFs: false });
}
