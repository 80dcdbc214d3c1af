import { Type } from '@sinclair/typebox';
import { defineTask } from '../../../jobs/task.ts';
import { expireDueClaims } from './email-claims.service.ts';

/**
 * Every minute: claims past their expiration become inactive (EXPIRED), their items free
 * (docs/api.md#email-claims).
 */
export const expireEmailClaimsTask = defineTask({
  name: 'expire_email_claims',
  // graphile-worker's cron adds `_cron: { ts, backfilled }`; nothing else is expected.
  payload: Type.Object({ _cron: Type.Optional(Type.Unknown()) }),
  schedule: '* * * * *',
  async handler(_payload, _helpers, ctx) {
    const expired = await expireDueClaims(ctx.db);
    if (expired > 0) ctx.logger.info({ expired }, 'email claims expired');
  },
});
