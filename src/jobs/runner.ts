import type { Task, TaskList } from 'graphile-worker';
import type { AppContext } from '../context.ts';
import { payloadProblems } from './enqueue.ts';
import type { JobEntry } from './job.ts';

/**
 * graphile-worker's task list for a catalog: each handler gets its payload only once it matches
 * the job's schema. A payload that does not match can never succeed, so it is logged and its
 * job completes instead of being retried.
 */
export function taskListOf(catalog: readonly JobEntry[], ctx: AppContext): TaskList {
  const list: TaskList = {};
  for (const { job, handler } of catalog) {
    if (list[job.name] !== undefined) throw new Error(`two jobs are named ${job.name}`);
    const run: Task = async (payload, helpers) => {
      const problems = payloadProblems(job, payload);
      if (problems !== undefined) {
        ctx.logger.error(
          { task: job.name, jobId: helpers.job.id, payload, problems },
          'job payload does not match its declaration: dropped',
        );
        return;
      }
      await handler(payload, helpers, ctx);
    };
    list[job.name] = run;
  }
  return list;
}

/** graphile-worker's crontab: one line per scheduled job of the catalog. */
export function crontabOf(catalog: readonly JobEntry[]): string {
  return catalog
    .filter(({ job }) => job.schedule !== undefined)
    .map(({ job }) => `${job.schedule} ${job.name}`)
    .join('\n');
}
