import { handleJob } from '../../../jobs/job.ts';
import { watchMintVouchersJob } from './mint-vouchers.jobs.ts';
import { networksWithPending } from './mint-vouchers.repository.ts';
import { scheduleWatch, WATCH_INTERVAL_MS, watchNetworkVouchers } from './voucher-watch.service.ts';

export const watchMintVouchersTask = handleJob(watchMintVouchersJob, async (payload, _helpers, ctx) => {
  if (payload.network_id === undefined) {
    for (const networkId of await networksWithPending(ctx.db)) await scheduleWatch(ctx.db, networkId);
    return;
  }
  const networkId = payload.network_id;
  try {
    const { settled, pending } = await watchNetworkVouchers(ctx.db, ctx, ctx.ports.voucherHolders, networkId);
    if (settled > 0) ctx.logger.info({ networkId, settled }, 'mint vouchers settled');
    if (pending > 0) await scheduleWatch(ctx.db, networkId, WATCH_INTERVAL_MS);
  } catch (error) {
    // The node failed: look again later rather than in graphile-worker's growing backoff.
    ctx.logger.warn({ err: error, networkId }, 'mint voucher watch failed');
    await scheduleWatch(ctx.db, networkId, WATCH_INTERVAL_MS * 5);
  }
});
