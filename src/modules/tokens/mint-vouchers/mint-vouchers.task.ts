import { Type } from '@sinclair/typebox';
import { defineTask } from '../../../jobs/task.ts';
import { networksWithPending } from './mint-vouchers.repository.ts';
import { scheduleWatch, WATCH_INTERVAL_MS, watchNetworkVouchers } from './mint-vouchers.service.ts';

/**
 * The mint-voucher watcher: one job per network with PENDING vouchers (job key per network),
 * queued when a voucher is issued and again every WATCH_INTERVAL_MS while any is pending; the
 * minute's cron run (no network_id) queues the watch of every such network, so a watch lost to a
 * crash resumes within a minute. Each run re-reads the vouchers and settles each one once.
 */
export const watchMintVouchersTask = defineTask({
  name: 'watch_mint_vouchers',
  payload: Type.Object({
    network_id: Type.Optional(Type.Integer()),
    // graphile-worker's cron adds `_cron: { ts, backfilled }`.
    _cron: Type.Optional(Type.Unknown()),
  }),
  schedule: '* * * * *',
  async handler(payload, _helpers, ctx) {
    if (payload.network_id === undefined) {
      for (const networkId of await networksWithPending(ctx.db)) await scheduleWatch(ctx.db, networkId);
      return;
    }
    // Loaded when a job runs (as src/wiring/settlement.ts): the handlers reach every holder's module.
    const { voucherRedemptionHandlers } = await import('../../../wiring/voucher-holders.ts');
    const networkId = payload.network_id;
    try {
      const { settled, pending } = await watchNetworkVouchers(
        ctx.db,
        ctx,
        voucherRedemptionHandlers,
        networkId,
      );
      if (settled > 0) ctx.logger.info({ networkId, settled }, 'mint vouchers settled');
      if (pending > 0) await scheduleWatch(ctx.db, networkId, WATCH_INTERVAL_MS);
    } catch (error) {
      // The node failed: look again later rather than in graphile-worker's growing backoff.
      ctx.logger.warn({ err: error, networkId }, 'mint voucher watch failed');
      await scheduleWatch(ctx.db, networkId, WATCH_INTERVAL_MS * 5);
    }
  },
});
