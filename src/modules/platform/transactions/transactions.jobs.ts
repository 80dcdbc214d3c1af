import { Type } from '@sinclair/typebox';
import { declareJob, JobUuid } from '../../../jobs/job.ts';

/**
 * Queued by the relayer in the same database transaction that settles a row; it re-reads the
 * row and runs what follows from its type (deployments, token flows…) in one transaction, so a
 * retried job never applies an outcome twice as long as handlers check the state they move.
 */
export const transactionSettledJob = declareJob({
  name: 'transaction_settled',
  payload: Type.Object({ transaction_id: JobUuid }),
});
