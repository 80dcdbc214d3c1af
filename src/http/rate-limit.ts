import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';
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
 * Several hits at once (a client address and a buyer), in one transaction whose commit does not
 * wait for the WAL to reach the disk: a counter need not outlive a crash of the database, and
 * a client address's bucket is one row every request of that address updates, so its lock is
 * then held for the update alone, not for a disk flush. Rows are updated in key order (no
 * deadlock between two requests hitting the same buckets); the first limit exceeded, in the
 * order given, is the one answered.
 */
export async function hitRateLimits(
  db: Executor,
  hits: readonly { limit: RateLimit; subject: string }[],
): Promise<void> {
  const keyed = hits.map((hit) => ({ ...hit, key: `${hit.limit.name}:${hit.subject}` }));
  const ordered = [...keyed].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const count = async (executor: Executor) => {
    const buckets = new Map<string, { hits: number; retry_after: number }>();
    for (const hit of ordered) buckets.set(hit.key, await countHit(executor, hit.key, hit.limit));
    return buckets;
  };
  const buckets = db.isTransaction
    ? await count(db)
    : await db.transaction().execute(async (tx) => {
        await sql`SET LOCAL synchronous_commit = off`.execute(tx);
        return count(tx);
      });
  for (const hit of keyed) {
    const bucket = buckets.get(hit.key)!;
    if (bucket.hits > hit.limit.max) throw rateLimited(bucket.retry_after);
  }
}

async function countHit(
  db: Executor,
  key: string,
  limit: RateLimit,
): Promise<{ hits: number; retry_after: number }> {
  const window = sql`${limit.windowSeconds} * interval '1 second'`;
  const row = await sql<{ hits: number; retry_after: number }>`
    INSERT INTO rate_limit_buckets AS b (key, window_start, hits) VALUES (${key}, now(), 1)
    ON CONFLICT (key) DO UPDATE SET
      window_start = CASE WHEN b.window_start <= now() - ${window} THEN now() ELSE b.window_start END,
      hits = CASE WHEN b.window_start <= now() - ${window} THEN 1 ELSE b.hits + 1 END
    RETURNING hits, ceil(extract(epoch FROM (window_start + ${window} - now())))::int AS retry_after`.execute(
    db,
  );
  return row.rows[0]!;
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
