import type { Task, TaskList } from 'graphile-worker';
import type { AppContext } from '../context.ts';
import { payloadProblems } from './enqueue.ts';
import type { TaskDefinition } from './task.ts';

/**
 * graphile-worker's task list for a catalog: each handler gets its payload only once it matches
 * the task's schema. A payload that does not match can never succeed, so it is logged and its
 * job completes instead of being retried.
 */
export function taskListOf(catalog: readonly TaskDefinition[], ctx: AppContext): TaskList {
  const list: TaskList = {};
  for (const task of catalog) {
    if (list[task.name] !== undefined) throw new Error(`two tasks are named ${task.name}`);
    const run: Task = async (payload, helpers) => {
      const problems = payloadProblems(task, payload);
      if (problems !== undefined) {
        ctx.logger.error(
          { task: task.name, jobId: helpers.job.id, payload, problems },
          'job payload does not match its task: dropped',
        );
        return;
      }
      await task.handler(payload, helpers, ctx);
    };
    list[task.name] = run;
  }
  return list;
}

/** graphile-worker's crontab: one line per scheduled task of the catalog. */
export function crontabOf(catalog: readonly TaskDefinition[]): string {
  return catalog
    .filter((task) => task.schedule !== undefined)
    .map((task) => `${task.schedule} ${task.name}`)
    .join('\n');
}
