import { decodeEventLog, type Hex, parseAbiItem, zeroAddress } from 'viem';
import type { Deps, SettlementHandler, TokenFlowSettlement } from '../../../context.ts';
import { TOKEN_FLOW_OWNER_KINDS } from '../../../db/enums.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { TokenRequestRow, TransactionRow } from '../../../db/schema.ts';
import { findCollection } from '../../catalog/collections/collections.service.ts';
import {
  abortMint,
  byCreation,
  completeMint,
  completeTransfer,
  findItems,
  type ItemFlow,
  releaseReservations,
} from '../../catalog/items/item-flows.service.ts';
import { chainClientOf, findNetwork } from '../../platform/networks/networks.service.ts';
import { emitEvents } from '../../platform/webhooks/webhook-events.service.ts';
import * as repo from './token-flows.repository.ts';
import { findTokenRequests, mintRequestOf, tableOf, transferRequestOf } from './token-flows.service.ts';

/**
 * What follows a MINT or TRANSFER transaction's settlement, for the token flow records it
 * carries (the port's settlement handler of both types). `read`, before any lock: the token ids
 * an EXTERNAL contract chose, from the receipt's Transfer events, when a successful mint has
 * records whose items have none. `settle`, in one database transaction: the open records are
 * locked and closed (COMPLETED or FAILED) with their items and reservations, each emits its
 * `mint_request.*` or `transfer_request.*` event, and then each owner of records (an email claim,
 * a purchase intent: their `owner_kind`) is told of its own, through the port tokenFlowOwners.
 * Only records still open move, so a settlement that runs again acts on nothing.
 */
export const tokenFlowSettlement: SettlementHandler<bigint[]> = {
  async read(db, deps, transaction) {
    if (transaction.type !== 'MINT' || !succeeded(transaction)) return [];
    const open = await repo.findOpenRequests(db, 'mint_requests', transaction.id);
    if (open.length === 0) return [];
    const items = await findItems(
      db,
      open.map((r) => r.item_id),
    );
    if (!items.some((item) => item.token_id === null)) return [];
    const collection = await findCollection(db, open[0]!.collection_id);
    if (!collection?.contract_address) return [];
    return mintedTokenIds(db, deps, transaction, collection.contract_address);
  },

  async settle(db, deps, transaction, chosenIds) {
    const flow = flowOf(transaction);
    const settled =
      flow === 'MINT'
        ? await settleMint(db, transaction, chosenIds ?? [])
        : await settleTransfer(db, transaction);
    await announce(db, deps, { transaction, succeeded: succeeded(transaction), records: settled });
  },
};

/**
 * Records taken out of their batch before it is sent (each alone makes the batch revert): FAILED
 * with `reason`, their items and reservations as for a failed transaction, their events emitted
 * and their owners told; the rest of the batch goes on. Only open records move.
 */
export async function failRecords(
  db: Tx,
  deps: Deps,
  transaction: TransactionRow,
  recordIds: readonly string[],
  reason: string,
): Promise<void> {
  const flow = flowOf(transaction);
  const wanted = new Set(recordIds);
  const requests = (await repo.lockOpenRequests(db, tableOf(flow), transaction.id)).filter((r) =>
    wanted.has(r.id),
  );
  if (requests.length === 0) return;
  const failed = await failRequests(db, flow, requests, reason);
  await announce(db, deps, { transaction, succeeded: false, records: failed, reason });
}

/** Each closed record's event, then each owner of records told of its own, by kind. */
async function announce(db: Tx, deps: Deps, settlement: TokenFlowSettlement): Promise<void> {
  const { records: settled, transaction } = settlement;
  if (settled.length === 0) return;
  const flow = flowOf(transaction);
  const views = await findTokenRequests(
    db,
    flow,
    settled.map((r) => r.id),
  );
  await emitEvents(
    db,
    views.map((view) => ({
      organizationId: view.organization_id,
      type:
        flow === 'MINT'
          ? view.state === 'COMPLETED'
            ? 'mint_request.completed'
            : 'mint_request.failed'
          : view.state === 'COMPLETED'
            ? 'transfer_request.completed'
            : 'transfer_request.failed',
      resourceId: view.id,
      data: flow === 'MINT' ? mintRequestOf(view) : transferRequestOf(view),
    })),
  );
  for (const kind of TOKEN_FLOW_OWNER_KINDS) {
    if (kind === 'REQUEST') continue;
    const records = settled.filter((record) => record.owner_kind === kind);
    if (records.length > 0) await deps.ports.tokenFlowOwners[kind](db, deps, { ...settlement, records });
  }
}

/** Open records closed FAILED with `reason`: mint items back to NOT_MINTED, reservations released. */
async function failRequests(
  db: Tx,
  flow: ItemFlow,
  requests: readonly TokenRequestRow[],
  reason: string,
): Promise<TokenRequestRow[]> {
  const ids = requests.map((r) => r.id);
  await repo.settleRequests(db, tableOf(flow), ids, { state: 'FAILED', reason });
  if (flow === 'MINT')
    await abortMint(
      db,
      requests.map((r) => r.item_id),
    );
  await releaseReservations(db, ids);
  return requests.map((r) => ({ ...r, state: 'FAILED', failure_reason: reason }));
}

/** The flow a MINT or TRANSFER transaction carries records of; throws for any other type. */
export function flowOf(transaction: TransactionRow): ItemFlow {
  if (transaction.type !== 'MINT' && transaction.type !== 'TRANSFER')
    throw new Error(`transaction ${transaction.id} is a ${transaction.type}, not a token flow's`);
  return transaction.type;
}

function succeeded(transaction: TransactionRow): boolean {
  return transaction.state === 'COMPLETED' && transaction.on_chain_status === 'SUCCESS';
}

/** Why a settled transaction did not succeed, for the requests it carried. */
function failureReasonOf(transaction: TransactionRow): string {
  return (
    transaction.failure_reason ?? (transaction.state === 'CANCELLED' ? 'cancelled' : 'reverted on chain')
  );
}

/**
 * A MINT transaction's open records, locked and closed; answers them as they are now.
 * Success: records COMPLETED, items MINTED with their supply, the ids an EXTERNAL contract chose
 * (`chosenIds`, read before) given to the items in creation order, reservations released. Revert
 * or cancellation: records FAILED with the reason, items back to NOT_MINTED (MINTED if they had
 * supply), reservations released, so the items can be minted again.
 */
export async function settleMint(
  db: Tx,
  transaction: TransactionRow,
  chosenIds: readonly bigint[],
): Promise<TokenRequestRow[]> {
  const requests = await repo.lockOpenRequests(db, 'mint_requests', transaction.id);
  if (requests.length === 0) return [];
  if (!succeeded(transaction)) return failRequests(db, 'MINT', requests, failureReasonOf(transaction));
  const ids = requests.map((r) => r.id);
  const items = new Map(
    (
      await findItems(
        db,
        requests.map((r) => r.item_id),
      )
    ).map((i) => [i.id, i]),
  );
  const ordered = byCreation([...items.values()]);
  // Read before the lock, for the records then open: a settled transaction gains no record, so
  // those locked now are the same ones or fewer (a settlement that ran meanwhile closed them).
  const remaining = [...chosenIds];
  const wallet = transaction.from_address.toLowerCase();
  for (const item of ordered) {
    const request = requests.find((r) => r.item_id === item.id)!;
    await completeMint(db, {
      itemId: item.id,
      quantity: BigInt(request.quantity),
      toOrganizationWallet: request.to_address.toLowerCase() === wallet,
      tokenId: item.token_id === null ? remaining.shift() : undefined,
    });
  }
  await repo.settleRequests(db, 'mint_requests', ids, { state: 'COMPLETED' });
  await releaseReservations(db, ids);
  return requests.map((r) => ({ ...r, state: 'COMPLETED', failure_reason: null }));
}

/**
 * A TRANSFER transaction's open records, locked and closed; answers them as they are now.
 * Success: records COMPLETED, the units leave the organization's wallet count. Revert or
 * cancellation: records FAILED with the reason. Either way the reservations are released.
 */
export async function settleTransfer(db: Tx, transaction: TransactionRow): Promise<TokenRequestRow[]> {
  const requests = await repo.lockOpenRequests(db, tableOf('TRANSFER'), transaction.id);
  if (requests.length === 0) return [];
  if (!succeeded(transaction)) return failRequests(db, 'TRANSFER', requests, failureReasonOf(transaction));
  const ids = requests.map((r) => r.id);
  const wallet = transaction.from_address.toLowerCase();
  for (const request of requests) {
    await completeTransfer(db, {
      itemId: request.item_id,
      quantity: BigInt(request.quantity),
      toOrganizationWallet: request.to_address.toLowerCase() === wallet,
    });
  }
  await repo.settleRequests(db, 'transfer_requests', ids, { state: 'COMPLETED' });
  await releaseReservations(db, ids);
  return requests.map((r) => ({ ...r, state: 'COMPLETED', failure_reason: null }));
}

const TRANSFER_EVENT = parseAbiItem(
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
);

/** The ids an ERC-721 contract minted in a transaction: its Transfer events from the zero address. */
async function mintedTokenIds(
  db: Executor,
  deps: Deps,
  transaction: TransactionRow,
  contractAddress: string,
): Promise<bigint[]> {
  const network = await findNetwork(db, transaction.network_id);
  if (!network || !transaction.tx_hash) throw new Error(`transaction ${transaction.id} cannot be read back`);
  // Thrown errors retry the settlement job: the node may lag behind the relayer's.
  const receipt = await chainClientOf(deps, network).receipt(transaction.tx_hash as Hex);
  if (!receipt) throw new Error(`no receipt for ${transaction.tx_hash} yet`);
  const ids: bigint[] = [];
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== contractAddress.toLowerCase() || log.topics.length !== 4) continue;
    try {
      const event = decodeEventLog({
        abi: [TRANSFER_EVENT],
        data: log.data,
        topics: log.topics as [Hex, ...Hex[]],
      });
      if (event.args.from === zeroAddress) ids.push(event.args.tokenId);
    } catch {
      // Another event of the contract.
    }
  }
  return ids;
}
