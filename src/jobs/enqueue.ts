import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { sql } from 'kysely';
import type { Executor } from '../db/executor.ts';
import type { JobDeclaration } from './job.ts';

export interface EnqueueOptions {
  /** A job with this key is replaced rather than added again (graphile-worker's job_key). */
  jobKey?: string;
  runAt?: Date;
  /** Overrides the task's maxAttempts. */
  maxAttempts?: number;
  /**
   * graphile-worker's named queue: its jobs run one at a time, so the jobs of one queue (one
   * webhook endpoint) never take more than one of the worker's slots.
   */
  queueName?: string;
}

/**
 * The only way to add a job: the payload is checked against the job's schema, and the job is
 * added in the caller's transaction, so it is queued with the state change that needs it, or not
 * at all.
 */
export async function enqueue<S extends TSchema>(
  db: Executor,
  job: JobDeclaration<S>,
  payload: Static<S>,
  options: EnqueueOptions = {},
): Promise<void> {
  const problems = payloadProblems(job, payload);
  if (problems !== undefined) throw new Error(`${job.name} job refused: ${problems}`);
  await sql`SELECT graphile_worker.add_job(
    ${job.name},
    ${JSON.stringify(payload)}::json,
    run_at := ${options.runAt ?? null}::timestamptz,
    max_attempts := ${options.maxAttempts ?? job.maxAttempts ?? null}::int,
    job_key := ${options.jobKey ?? null}::text,
    queue_name := ${options.queueName ?? null}::text
  )`.execute(db);
}

/**
 * Many jobs of one declaration in one statement (graphile-worker's add_jobs), in the caller's
 * transaction, as `enqueue` adds one.
 */
export async function enqueueMany<S extends TSchema>(
  db: Executor,
  job: JobDeclaration<S>,
  jobs: readonly { payload: Static<S>; jobKey?: string }[],
): Promise<void> {
  if (jobs.length === 0) return;
  for (const one of jobs) {
    const problems = payloadProblems(job, one.payload);
    if (problems !== undefined) throw new Error(`${job.name} job refused: ${problems}`);
  }
  const specs = jobs.map((one) => ({
    identifier: job.name,
    payload: one.payload,
    max_attempts: job.maxAttempts ?? null,
    job_key: one.jobKey ?? null,
  }));
  await sql`SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
    SELECT s FROM json_populate_recordset(NULL::graphile_worker.job_spec, ${JSON.stringify(specs)}::json) AS s
  ))`.execute(db);
}

/** Why a payload does not match its job's schema (the first few errors), or undefined when it does. */
export function payloadProblems(job: JobDeclaration, payload: unknown): string | undefined {
  if (Value.Check(job.payload, payload)) return undefined;
  return [...Value.Errors(job.payload, payload)]
    .slice(0, 5)
    .map((error) => `${error.path || '/'}: ${error.message}`)
    .join('; ');
}
