import { handleJob } from '../../../jobs/job.ts';
import { expireEmailClaimsJob } from './email-claims.jobs.ts';
import { expireDueClaims } from './email-claims.service.ts';

export const expireEmailClaimsTask = handleJob(expireEmailClaimsJob, async (_payload, _helpers, ctx) => {
  const expired = await expireDueClaims(ctx.db, ctx);
  if (expired > 0) ctx.logger.info({ expired }, 'email claims expired');
});
