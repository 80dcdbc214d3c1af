import { Type } from '@sinclair/typebox';
import { defineTask } from '../../../jobs/task.ts';

/** Every minute: provider events whose processing failed are tried again from the inbox. */
export const retryProviderEventsTask = defineTask({
  name: 'retry_provider_events',
  payload: Type.Object({ _cron: Type.Optional(Type.Unknown()) }),
  schedule: '* * * * *',
  async handler(_payload, _helpers, ctx) {
    const { retryProviderEvents } = await import('./provider-events.service.ts');
    const processed = await retryProviderEvents(ctx.db, ctx);
    if (processed > 0) ctx.logger.info({ processed }, 'provider events processed on retry');
  },
});
