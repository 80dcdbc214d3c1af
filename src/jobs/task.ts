import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { JobHelpers } from 'graphile-worker';
import type { AppContext } from '../context.ts';
import { UUID_PATTERN } from '../lib/ids.ts';

/**
 * One kind of background work, declared once: graphile-worker's task name, the TypeBox schema of
 * its payload (checked by `enqueue` and again before the handler runs), and the handler. A job
 * carries ids, re-reads state and is idempotent: it may run more than once.
 */
export interface TaskDefinition<S extends TSchema = TSchema> {
  /** graphile-worker's task identifier, stored with every queued job: never rename a live one. */
  readonly name: string;
  readonly payload: S;
  /** Attempts before graphile-worker gives up on a job (its default, 25, when absent). */
  readonly maxAttempts?: number;
  /** A crontab time (`0 * * * *`): the task also runs on this schedule, with graphile-worker's `_cron` payload. */
  readonly schedule?: string;
  /**
   * The worker's runner that takes its jobs: `default`, or `webhooks` for calls to organizations'
   * own endpoints, which run on their own slots (worker.ts) so a slow or dead endpoint never holds
   * the slots that settle transactions or send mail.
   */
  readonly runner?: 'default' | 'webhooks';
  handler(payload: Static<S>, helpers: JobHelpers, ctx: AppContext): Promise<void>;
}

/** Declares a task; the declaration goes in its module's `*.task.ts` and in src/wiring/jobs.ts. */
export function defineTask<S extends TSchema>(definition: TaskDefinition<S>): TaskDefinition<S> {
  return definition;
}

/**
 * A row id in a payload. A pattern, not `format: 'uuid'`: TypeBox's Value (unlike Fastify's ajv)
 * knows no format unless one is registered, and would refuse every payload.
 */
export const JobUuid = Type.String({
  pattern: UUID_PATTERN,
});
