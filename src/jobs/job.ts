import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { JobHelpers } from 'graphile-worker';
import type { AppContext } from '../context.ts';
import { UUID_PATTERN } from '../lib/ids.ts';

/**
 * One kind of background work, declared once, apart from what runs it: graphile-worker's task
 * name, the TypeBox schema of its payload (checked by `enqueue` and again before the handler
 * runs) and how it is run. Code that queues a job imports its declaration only (a module's
 * `<group>.jobs.ts`); the handler (`*.task.ts`) is joined to it in the job catalog
 * (src/wiring/jobs.ts), as graphile-worker's `add_job(identifier)` names a task it does not load.
 */
export interface JobDeclaration<S extends TSchema = TSchema> {
  /** graphile-worker's task identifier, stored with every queued job: never rename a live one. */
  readonly name: string;
  readonly payload: S;
  /** Attempts before graphile-worker gives up on a job (its default, 25, when absent). */
  readonly maxAttempts?: number;
  /** A crontab time (`0 * * * *`): the job also runs on this schedule, with graphile-worker's `_cron` payload. */
  readonly schedule?: string;
  /**
   * The worker's runner that takes its jobs: `default`, or `webhooks` for calls to organizations'
   * own endpoints, which run on their own slots (worker.ts) so a slow or dead endpoint never holds
   * the slots that settle transactions or send mail.
   */
  readonly runner?: 'default' | 'webhooks';
}

/** Declares a job; the declaration goes in its module's `<group>.jobs.ts`. */
export function declareJob<S extends TSchema>(declaration: JobDeclaration<S>): JobDeclaration<S> {
  return declaration;
}

/**
 * What runs a job: it carries ids, re-reads state and is idempotent (it may run more than once).
 */
export type JobHandler<S extends TSchema> = (
  payload: Static<S>,
  helpers: JobHelpers,
  ctx: AppContext,
) => Promise<void>;

/** A job's declaration with its handler: an entry of the job catalog. */
export interface JobEntry<S extends TSchema = TSchema> {
  readonly job: JobDeclaration<S>;
  // A method, so that an entry of any payload is an entry of the catalog (method parameters are
  // bivariant); the runner checks each payload against the declaration before calling it.
  handler(payload: Static<S>, helpers: JobHelpers, ctx: AppContext): Promise<void>;
}

/** Joins a declaration to its handler (a module's `*.task.ts`), for the job catalog. */
export function handleJob<S extends TSchema>(job: JobDeclaration<S>, handler: JobHandler<S>): JobEntry<S> {
  return { job, handler };
}

/**
 * A row id in a payload. A pattern, not `format: 'uuid'`: TypeBox's Value (unlike Fastify's ajv)
 * knows no format unless one is registered, and would refuse every payload.
 */
export const JobUuid = Type.String({
  pattern: UUID_PATTERN,
});

/** The payload of a job that runs on a schedule only: graphile-worker's cron adds `_cron: { ts, backfilled }`. */
export const CronPayload = Type.Object({ _cron: Type.Optional(Type.Unknown()) });
