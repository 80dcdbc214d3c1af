import { type Compilable, CompiledQuery, type QueryResult as KyselyResult, type RawBuilder } from 'kysely';
import pg from 'pg';
import type { Executor } from './executor.ts';

/**
 * Hot queries run as prepared statements: PostgreSQL parses and plans such a statement once per
 * connection instead of at every execution, which halves its own CPU for a primary-key read.
 * Only SQL registered here is prepared (a bounded set, each prepared on a connection the first
 * time that connection runs it); every other query runs as before.
 */
const names = new Map<string, string>();

/** Registers `text` to be prepared on each connection that runs it; answers `text`. */
export function preparedOnEachConnection(text: string): string {
  if (!names.has(text)) names.set(text, `hot_${names.size + 1}`);
  return text;
}

/**
 * A hot query of a fixed shape: `build` is compiled once (its SQL registered as prepared) and
 * each call sends only the parameters. `build` must use each of `params` once, in order: the first
 * call checks that the compiled query's parameters are exactly them.
 */
export function hotQuery<P extends readonly unknown[], R>(
  build: (db: Executor, ...params: P) => Compilable<R>,
): (db: Executor, ...params: P) => Promise<R[]> {
  let text: string | undefined;
  return async (db, ...params) => {
    if (text === undefined) {
      const compiled = build(db, ...params).compile();
      const same =
        compiled.parameters.length === params.length && compiled.parameters.every((p, i) => p === params[i]);
      if (!same) throw new Error(`a hot query must use its parameters once, in order: ${compiled.sql}`);
      text = preparedOnEachConnection(compiled.sql);
    }
    const { rows } = await db.executeQuery(CompiledQuery.raw(text, [...params]) as CompiledQuery<R>);
    return rows;
  };
}

/**
 * Runs `query` (of a few shapes at most: never SQL that varies with the values) with its SQL
 * registered as prepared.
 */
export function executePrepared<R>(
  db: Executor,
  query: RawBuilder<R> | Compilable<R>,
): Promise<KyselyResult<R>> {
  const compiled = 'isRawBuilder' in query ? query.compile(db) : query.compile();
  preparedOnEachConnection(compiled.sql);
  return db.executeQuery(compiled);
}

type QueryResult = pg.QueryResult<Record<string, unknown>>;

/**
 * The pool's client: a registered SQL text is sent as a named statement (pg parses it on the
 * connection once). A statement prepared before a migration changed the columns it returns fails
 * once with "cached plan must not change result type"; it is then dropped and prepared again.
 */
export class PreparingClient extends pg.Client {
  // pg's overloads: only the promise form with a string is taken over (Kysely's).
  override query(...args: unknown[]): never {
    const [text, values, callback] = args;
    const name = typeof text === 'string' && callback === undefined ? names.get(text) : undefined;
    if (name === undefined) return (super.query as (...a: unknown[]) => never)(...args);
    return this.#named(name, text as string, (values as unknown[] | undefined) ?? []) as never;
  }

  async #named(name: string, text: string, values: unknown[]): Promise<QueryResult> {
    const run = () => super.query({ name, text, values }) as Promise<QueryResult>;
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof Error && /cached plan must not change result type/.test(error.message)))
        throw error;
      await super.query(`DEALLOCATE ${name}`);
      // pg remembers what it prepared on this connection (Connection#parsedStatements).
      const parsed = (this as unknown as { connection: { parsedStatements: Record<string, string> } })
        .connection.parsedStatements;
      delete parsed[name];
      return run();
    }
  }
}
