import type { Address } from 'viem';
import type { TransactionBatches } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { TokenRequestRow, TransactionRow } from '../../../db/schema.ts';
import { findItems } from '../../catalog/items/item-flows.service.ts';
import { type BatchEntry, batchCalldata, callOfKey } from './token-flow-batch-calls.ts';
import { failRecords, flowOf } from './token-flow-settlement.ts';
import * as repo from './token-flows.repository.ts';
import { tableOf } from './token-flows.service.ts';

/** The batch's open records with their entries, in creation order. */
async function entriesOf(
  db: Executor,
  transaction: TransactionRow,
  records: readonly TokenRequestRow[],
): Promise<{ record: TokenRequestRow; entry: BatchEntry }[]> {
  const items = new Map(
    (
      await findItems(
        db,
        records.map((r) => r.item_id),
      )
    ).map((item) => [item.id, item]),
  );
  return records.map((record) => {
    const tokenId = items.get(record.item_id)?.token_id;
    if (tokenId == null) throw new Error(`record ${record.id} of batch ${transaction.id} has no token id`);
    return {
      record,
      entry: { to: record.to_address as Address, tokenId: BigInt(tokenId), amount: BigInt(record.quantity) },
    };
  });
}

/**
 * The port `batches`: what the relayer asks of a batch before it sends it (token-flow-batch-calls.ts
 * says how deliveries are batched).
 */
export const tokenFlowBatches: TransactionBatches = {
  async compose(db, _deps, transaction) {
    const records = await repo.findOpenRequests(db, tableOf(flowOf(transaction)), transaction.id);
    if (records.length === 0) return undefined;
    const entries = await entriesOf(db, transaction, records);
    return {
      data: batchCalldata(
        callOfKey(transaction.batch_key!),
        transaction.from_address as Address,
        entries.map((e) => e.entry),
      ),
      size: entries.length,
    };
  },

  async entries(db, _deps, transaction) {
    const records = await repo.findOpenRequests(db, tableOf(flowOf(transaction)), transaction.id);
    const call = callOfKey(transaction.batch_key!);
    return (await entriesOf(db, transaction, records)).map(({ record, entry }) => ({
      recordId: record.id,
      data: batchCalldata(call, transaction.from_address as Address, [entry]),
    }));
  },

  async drop(db: Tx, deps, transaction, failures) {
    for (const { recordIds, reason } of failures) await failRecords(db, deps, transaction, recordIds, reason);
    return tokenFlowBatches.compose(db, deps, transaction);
  },
};
