import { type Compilable, type OperationNodeSource, type RawBuilder, sql } from 'kysely';
import { ASYNC_COMMIT } from '../db/database.ts';
import type { Executor } from '../db/executor.ts';
import { executePrepared } from '../db/prepared.ts';
import { ApiError } from '../lib/errors.ts';

/** A fixed-window limit: at most `max` hits per `windowSeconds`. */
export interface RateLimit {
  readonly name: string;
  readonly max: number;
  readonly windowSeconds: number;
}

/**
 * Limits kept in PostgreSQL, so every instance sees the same counts. Call with the pool, not a
 * request transaction: a hit must count even when the request then fails.
 */
export async function hitRateLimit(db: Executor, limit: RateLimit, subject: string): Promise<void> {
  await hitRateLimits(db, [{ limit, subject }]);
}

/** One request counted against `limit` for `subject` (a client address, an account). */
export type RateLimitHit = { limit: RateLimit; subject: string };
type Bucket = { key: string; hits: number; retry_after: number };

/**
 * The statement that counts `hits` (a new window when the last one ended), answering each
 * bucket's key, hits and seconds left; the check of its answer, which throws the first limit
 * exceeded in the order given. Rows are written in key order (no deadlock between two requests
 * hitting the same buckets). One statement text per number of limits (it is prepared).
 */
function counting(hits: readonly RateLimitHit[]): {
  upsert: (asyncCommit: RawBuilder<unknown>) => RawBuilder<Bucket>;
  check: (buckets: readonly Bucket[]) => void;
} {
  const keyed = hits.map((hit) => ({ ...hit, key: `${hit.limit.name}:${hit.subject}` }));
  const windows = new Map(keyed.map((hit) => [hit.key, hit.limit.windowSeconds]));
  const keys = [...windows.keys()].sort();
  const window = sql`(CASE b.key ${sql.join(
    keys.map((key) => sql`WHEN ${key} THEN ${windows.get(key)}::int`),
    sql` `,
  )} END) * interval '1 second'`;
  return {
    upsert: (asyncCommit) => sql<Bucket>`
      INSERT INTO rate_limit_buckets AS b (key, window_start, hits)
      SELECT hit.key, now(), 1
      FROM unnest(${keys}::text[]) WITH ORDINALITY AS hit(key, n) ${asyncCommit}
      ORDER BY hit.n
      ON CONFLICT (key) DO UPDATE SET
        window_start = CASE WHEN b.window_start <= now() - ${window} THEN now() ELSE b.window_start END,
        hits = CASE WHEN b.window_start <= now() - ${window} THEN 1 ELSE b.hits + 1 END
      RETURNING b.key, b.hits, ceil(extract(epoch FROM (b.window_start + ${window} - now())))::int AS retry_after`,
    check: (buckets) => {
      const byKey = new Map(buckets.map((bucket) => [bucket.key, bucket]));
      for (const hit of keyed) {
        const bucket = byKey.get(hit.key)!;
        if (bucket.hits > hit.limit.max) throw rateLimited(bucket.retry_after);
      }
    },
  };
}

/**
 * Several hits at once (a client address and a buyer), counted by one statement. Outside a
 * transaction its commit does not wait for the WAL to reach the disk: a counter need not outlive
 * a crash of the database, and a client address's bucket is one row every request of that
 * address updates, so its lock is then held for the update alone, not for a disk flush. The first
 * limit exceeded, in the order given, is the one answered.
 */
export async function hitRateLimits(db: Executor, hits: readonly RateLimitHit[]): Promise<void> {
  const { upsert, check } = counting(hits);
  const asyncCommit = db.isTransaction ? sql`` : sql`CROSS JOIN (SELECT ${ASYNC_COMMIT}) AS async_commit`;
  const { rows } = await executePrepared(db, upsert(asyncCommit));
  check(rows);
}

/**
 * hitRateLimits and then a read in the same statement (one round trip instead of two, on the
 * pool; its commit does not wait for the disk, as hitRateLimits' does not): throws as hitRateLimits
 * does, else answers the first row of `read` (the database's state before the hits), undefined
 * when it has none. `read` must be of a fixed shape (its SQL is prepared) and have no column named
 * `_rate_limit_buckets`.
 */
export async function hitRateLimitsThenRead<R extends object>(
  db: Executor,
  hits: readonly RateLimitHit[],
  read: Compilable<R> & OperationNodeSource,
): Promise<R | undefined> {
  if (db.isTransaction) throw new Error('hitRateLimitsThenRead runs on the pool, not in a transaction');
  const { upsert, check } = counting(hits);
  const { rows } = await executePrepared(
    db,
    sql<{ _rate_limit_buckets: Bucket[]; _found: boolean | null } & R>`
    WITH counted AS (${upsert(sql``)})
    SELECT (SELECT json_agg(counted) FROM counted) AS _rate_limit_buckets, found.*
    FROM (SELECT ${ASYNC_COMMIT}) AS async_commit
    LEFT JOIN LATERAL (SELECT true AS _found, r.* FROM (${read}) AS r LIMIT 1) AS found ON true`,
  );
  const { _rate_limit_buckets, _found, ...row } = rows[0]!;
  check(_rate_limit_buckets);
  return _found ? (row as unknown as R) : undefined;
}

/** Checks a limit without counting (for limits that only count failures). */
export async function checkRateLimit(db: Executor, limit: RateLimit, subject: string): Promise<void> {
  const key = `${limit.name}:${subject}`;
  const row = await sql<{ hits: number; retry_after: number }>`
    SELECT hits, ceil(extract(epoch FROM (window_start + ${limit.windowSeconds} * interval '1 second' - now())))::int AS retry_after
    FROM rate_limit_buckets WHERE key = ${key} AND window_start > now() - ${limit.windowSeconds} * interval '1 second'`.execute(
    db,
  );
  const bucket = row.rows[0];
  if (bucket && bucket.hits >= limit.max) throw rateLimited(bucket.retry_after);
}

function rateLimited(retryAfter: number): ApiError {
  const seconds = Math.max(1, retryAfter);
  return new ApiError('RATE_LIMITED', `too many attempts; retry in ${seconds} s`, {
    retryAfterSeconds: seconds,
  });
}

export async function deleteExpiredRateLimitBuckets(db: Executor, olderThanSeconds: number): Promise<void> {
  await sql`DELETE FROM rate_limit_buckets WHERE window_start < now() - ${olderThanSeconds} * interval '1 second'`.execute(
    db,
  );
}
