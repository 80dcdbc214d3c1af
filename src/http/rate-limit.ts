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
  const key = `${limit.name}:${subject}`;
  const window = sql`${limit.windowSeconds} * interval '1 second'`;
  const row = await sql<{ hits: number; retry_after: number }>`
    INSERT INTO rate_limit_buckets AS b (key, window_start, hits) VALUES (${key}, now(), 1)
    ON CONFLICT (key) DO UPDATE SET
      window_start = CASE WHEN b.window_start <= now() - ${window} THEN now() ELSE b.window_start END,
      hits = CASE WHEN b.window_start <= now() - ${window} THEN 1 ELSE b.hits + 1 END
    RETURNING hits, ceil(extract(epoch FROM (window_start + ${window} - now())))::int AS retry_after`.execute(
    db,
  );
  const bucket = row.rows[0]!;
  if (bucket.hits > limit.max) throw rateLimited(bucket.retry_after);
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
