import { Type } from '@sinclair/typebox';
import { declareJob } from '../../../jobs/job.ts';

/**
 * The mint-voucher watcher: one job per network with PENDING vouchers (job key per network),
 * queued when a voucher is issued and again every WATCH_INTERVAL_MS while any is pending; the
 * minute's cron run (no network_id) queues the watch of every such network, so a watch lost to a
 * crash resumes within a minute. Each run re-reads the vouchers and settles each one once.
 */
export const watchMintVouchersJob = declareJob({
  name: 'watch_mint_vouchers',
  payload: Type.Object({
    network_id: Type.Optional(Type.Integer()),
    // graphile-worker's cron adds `_cron: { ts, backfilled }`.
    _cron: Type.Optional(Type.Unknown()),
  }),
  schedule: '* * * * *',
});
