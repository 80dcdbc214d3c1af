import { sql } from 'kysely';
import { ASYNC_COMMIT, type Executor } from '../db/database.ts';
import { executePrepared } from '../db/prepared.ts';
import { ApiError } from './errors.ts';

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

/**
 * Several hits at once (a client address and a buyer), counted by one statement. Outside a
 * transaction its commit does not wait for the WAL to reach the disk: a counter need not outlive
 * a crash of the database, and a client address's bucket is one row every request of that
 * address updates, so its lock is then held for the update alone, not for a disk flush. Rows are
 * written in key order (no deadlock between two requests hitting the same buckets); the first
 * limit exceeded, in the order given, is the one answered.
 */
export async function hitRateLimits(
  db: Executor,
  hits: readonly { limit: RateLimit; subject: string }[],
): Promise<void> {
  const keyed = hits.map((hit) => ({ ...hit, key: `${hit.limit.name}:${hit.subject}` }));
  const windows = new Map(keyed.map((hit) => [hit.key, hit.limit.windowSeconds]));
  const keys = [...windows.keys()].sort();
  const window = sql`(CASE b.key ${sql.join(
    keys.map((key) => sql`WHEN ${key} THEN ${windows.get(key)}::int`),
    sql` `,
  )} END) * interval '1 second'`;
  const asyncCommit = db.isTransaction ? sql`` : sql`CROSS JOIN (SELECT ${ASYNC_COMMIT}) AS async_commit`;
  // Prepared: one statement text per number of limits hit.
  const { rows } = await executePrepared(
    db,
    sql<{ key: string; hits: number; retry_after: number }>`
    INSERT INTO rate_limit_buckets AS b (key, window_start, hits)
    SELECT hit.key, now(), 1
    FROM unnest(${keys}::text[]) WITH ORDINALITY AS hit(key, n) ${asyncCommit}
    ORDER BY hit.n
    ON CONFLICT (key) DO UPDATE SET
      window_start = CASE WHEN b.window_start <= now() - ${window} THEN now() ELSE b.window_start END,
      hits = CASE WHEN b.window_start <= now() - ${window} THEN 1 ELSE b.hits + 1 END
    RETURNING b.key, b.hits, ceil(extract(epoch FROM (b.window_start + ${window} - now())))::int AS retry_after`,
  );
  const buckets = new Map(rows.map((row) => [row.key, row]));
  for (const hit of keyed) {
    const bucket = buckets.get(hit.key)!;
    if (bucket.hits > hit.limit.max) throw rateLimited(bucket.retry_after);
  }
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
