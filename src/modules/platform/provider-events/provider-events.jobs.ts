import { CronPayload, declareJob } from '../../../jobs/job.ts';

/** Every minute: provider events whose processing failed are tried again from the inbox. */
export const retryProviderEventsJob = declareJob({
  name: 'retry_provider_events',
  payload: CronPayload,
  schedule: '* * * * *',
});
