import { handleJob } from '../../../jobs/job.ts';
import { retryProviderEventsJob } from './provider-events.jobs.ts';
import { retryProviderEvents } from './provider-events.service.ts';

export const retryProviderEventsTask = handleJob(retryProviderEventsJob, async (_payload, _helpers, ctx) => {
  const processed = await retryProviderEvents(ctx.db, ctx);
  if (processed > 0) ctx.logger.info({ processed }, 'provider events processed on retry');
});
