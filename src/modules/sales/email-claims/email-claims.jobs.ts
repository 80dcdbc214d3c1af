import { CronPayload, declareJob } from '../../../jobs/job.ts';

/**
 * Every minute: claims past their expiration become inactive (EXPIRED), their items free
 * (docs/api.md#email-claims).
 */
export const expireEmailClaimsJob = declareJob({
  name: 'expire_email_claims',
  payload: CronPayload,
  schedule: '* * * * *',
});
