import { CronPayload, declareJob } from '../../../jobs/job.ts';

/**
 * Hourly clean-up of expired idempotency records and rate-limit windows; the webhook delivery log
 * past 30 days, and webhook deliveries whose job was lost queued again.
 */
export const maintenanceJob = declareJob({
  name: 'maintenance',
  payload: CronPayload,
  schedule: '0 * * * *',
});
