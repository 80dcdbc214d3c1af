import { type Address, type Hex, zeroAddress } from 'viem';
import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../../access/principal.ts';
import {
  assertMintable,
  assertTokenCapability,
  type CapabilityName,
  type TokenType,
} from '../../../chain/capabilities.ts';
import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type { CollectionRow, ItemRow, TokenFlowOwnerKind, TransactionState } from '../../../db/schema.ts';
import { checkedAddress, checkedUint256 } from '../../../http/inputs.ts';
import type { PageParams, PageResult } from '../../../http/pagination.ts';
import { iso } from '../../../http/schemas.ts';
import { ApiError } from '../../../lib/errors.ts';
import {
  type DeployedContract,
  deployedContractOf,
  type ItemFlow,
  lockFlowItems,
  markMinting,
  moveReservations,
  requestIdsFor,
  reserveItems,
} from '../../catalog/items/item-flows.service.ts';
import { collectionOfSelection, parseItemSelection } from '../../catalog/items/item-selection.ts';
import { findNetwork, networkConfigOf } from '../../platform/networks/networks.service.ts';
import { queueBatchEntries, queueTransaction } from '../../platform/transactions/transactions.service.ts';
import { organizationWalletOf } from '../../platform/wallets/wallets.service.ts';
import { batchCallOf, batchCap, batchKey, encodeCapabilityCall as encode } from './token-flow-batch-calls.ts';
import * as repo from './token-flows.repository.ts';
import type { TokenRequestBody, TokenRequestRecord } from './token-flows.schemas.ts';

/**
 * The one pipeline that moves tokens for a request (mint and transfer requests today; purchase
 * fulfilment and email claims next): items chosen and checked by the caller (lockFlowItems) are
 * reserved for one record each (or their reservation is moved from the listing or claim that
 * held them), their transaction(s) are queued for the relayer, one record per item is written,
 * all in the caller's database transaction; when a transaction settles, its records, items and
 * reservations follow (settleMintTransaction, settleTransferTransaction).
 */

export type { TokenRequestView } from './token-flows.repository.ts';

export type RequestState = repo.TokenRequestView['state'];

/**
 * A request mirrors its transaction (docs/api.md#states): PENDING and SUBMITTED are read from the
 * transaction, COMPLETED and FAILED are written when it settles (with the items and the
 * reservation, in one database transaction). A settled transaction whose handler has not run yet
 * still reads as in flight.
 */
export function requestState(state: RequestState, transactionState: TransactionState): RequestState {
  if (state === 'COMPLETED' || state === 'FAILED') return state;
  switch (transactionState) {
    case 'PENDING':
    case 'QUEUED':
    case 'CANCELLED':
      return 'PENDING';
    case 'SUBMITTED':
    case 'COMPLETED':
      return 'SUBMITTED';
  }
}

/** The transaction hash, once broadcast (a signed but unsent transaction shows none). */
export function broadcastHash(transactionState: TransactionState, hash: string | null): string | null {
  return transactionState === 'SUBMITTED' || transactionState === 'COMPLETED' ? hash : null;
}

/** A mint request as the API shows it: its quantity a Uint256 decimal string. */
export function mintRequestOf(view: repo.TokenRequestView): TokenRequestRecord & { quantity: string } {
  return { ...tokenRequestRecord(view), quantity: view.quantity };
}

/** A transfer request as the API shows it: its quantity a JSON integer (checked on create). */
export function transferRequestOf(view: repo.TokenRequestView): TokenRequestRecord & { quantity: number } {
  return { ...tokenRequestRecord(view), quantity: Number(view.quantity) };
}

/** What a mint or transfer request record shows of its view, quantity aside. */
export function tokenRequestRecord(view: repo.TokenRequestView): TokenRequestRecord {
  return {
    id: view.id,
    item_id: view.item_id,
    collection_id: view.collection_id,
    token_id: view.token_id,
    state: requestState(view.state, view.transaction_state),
    to_address: view.to_address,
    transaction_id: view.transaction_id,
    tx_hash: broadcastHash(view.transaction_state, view.tx_hash),
    failure_reason: view.failure_reason,
    created_at: iso(view.created_at),
  };
}

/**
 * Request mint or transfer, all or nothing in the caller's transaction:
 * the selector parsed, the contract checked for the flow, the items locked and checked (mint:
 * locked with supply left; transfer: locked, minted and held by the organization's wallet; never
 * reserved), then started as a token flow. With collection_id (alone or with token_ranges) and no
 * qualifying item, nothing is queued and the list is empty.
 */
export async function requestTokens(
  db: Tx,
  deps: Deps,
  principal: Principal,
  flow: ItemFlow,
  body: TokenRequestBody,
  options: { maxQuantity?: bigint } = {},
): Promise<repo.TokenRequestView[]> {
  const address = checkedAddress(body.to_address, '/to_address');
  const selection = parseItemSelection(body);
  const collection = await collectionOfSelection(db, principal, selection);
  const contract = contractForFlow(collection, flow);
  const to = checkedRecipient(address, contract, '/to_address');
  const quantity = checkedQuantity(body.quantity, contract.tokenType);
  if (options.maxQuantity !== undefined && quantity > options.maxQuantity)
    throw new ApiError('VALIDATION_FAILED', `quantity is at most ${options.maxQuantity} here`, {
      fields: [{ path: '/quantity', message: `must be at most ${options.maxQuantity}` }],
    });
  const items = await lockFlowItems(db, { collection, flow, selection, quantity });
  return startTokenFlow(db, deps, { flow, collection, items, quantity, to });
}

/** quantity: default 1, at least 1, at most 2^256-1; ERC-721 tokens are unique (only 1). */
export function checkedQuantity(input: string | null | undefined, tokenType: TokenType): bigint {
  const quantity = input == null ? 1n : checkedUint256(input, '/quantity');
  if (quantity === 0n)
    throw new ApiError('VALIDATION_FAILED', 'quantity must be at least 1', {
      fields: [{ path: '/quantity', message: 'must be at least 1' }],
    });
  if (tokenType === 'ERC721' && quantity !== 1n)
    throw new ApiError('VALIDATION_FAILED', 'an ERC721 token is unique: quantity must be 1', {
      fields: [{ path: '/quantity', message: 'must be 1 for ERC721' }],
    });
  return quantity;
}

/** How the service mints on a contract, from its capabilities: the first mint capability
 * the contract has, in the order of MINT_CAPABILITIES (chain/capabilities.ts). */
type MintMethod =
  /** ERC-721 mintBatch(address[] to, uint256[] ids): one transaction. */
  | 'ERC721_BATCH'
  /** ERC-721 mintBatchNoId(to, count): the contract picks the ids (EXTERNAL strategy). */
  | 'ERC721_NO_ID'
  /** ERC-721 mint(to, id): one transaction per item. */
  | 'ERC721_SINGLE'
  /** ERC-721 mintWithURI(to, id, uri): one transaction per item. */
  | 'ERC721_SINGLE_URI'
  /** ERC-1155 mintBatch(to, ids, amounts): one transaction (rule 2 makes it the only way). */
  | 'ERC1155_BATCH';

function mintMethodOf(contract: DeployedContract, externalIds: boolean): MintMethod {
  assertMintable(contract.capabilities, contract.tokenType);
  const has = (c: CapabilityName) => contract.capabilities.includes(c);
  // assertMintable: an ERC-1155 contract has ADMIN_MINT_MULTIPLE.
  if (contract.tokenType === 'ERC1155') return 'ERC1155_BATCH';
  if (externalIds) {
    if (has('ADMIN_MINT_MULTIPLE_NO_ID')) return 'ERC721_NO_ID';
    throw new ApiError(
      'MISSING_MINT_CAPABILITY',
      'token ids assigned by the contract (EXTERNAL) need the ADMIN_MINT_MULTIPLE_NO_ID capability',
    );
  }
  if (has('ADMIN_MINT_BATCH')) return 'ERC721_BATCH';
  if (has('ADMIN_MINT_SINGLE')) return 'ERC721_SINGLE';
  if (has('ADMIN_MINT_SINGLE_URI')) return 'ERC721_SINGLE_URI';
  // MINT_VOUCHER (buyers mint) or ADMIN_MINT_MULTIPLE_NO_ID (the contract picks the ids) only.
  throw new ApiError(
    'MISSING_MINT_CAPABILITY',
    'the service mints given ERC721 token ids with ADMIN_MINT_BATCH, ADMIN_MINT_SINGLE or ADMIN_MINT_SINGLE_URI',
  );
}

/**
 * The collection's deployed contract, checked able to carry the flow: minted by the service
 * (capability rule 2) or transferred (its token standard). Fails before any item is touched.
 */
export function contractForFlow(collection: CollectionRow, flow: ItemFlow): DeployedContract {
  const contract = deployedContractOf(collection);
  if (flow === 'MINT') mintMethodOf(contract, collection.token_id_assignment_strategy === 'EXTERNAL');
  else assertTokenCapability(contract.capabilities, contract.tokenType);
  return contract;
}

/**
 * The recipient of a mint or transfer, refused when no token can be sent there: the zero address
 * (OpenZeppelin reverts with ERC721InvalidReceiver / ERC1155InvalidReceiver) and the contract
 * itself (it implements no receiver hook, so the call reverts or the token is stranded). Refused
 * up front, a 400 on the field, instead of a request accepted now that fails on chain later.
 */
export function checkedRecipient(to: Address, contract: DeployedContract, path: string): Address {
  const refused =
    to === zeroAddress
      ? 'the zero address cannot receive tokens'
      : to.toLowerCase() === contract.address.toLowerCase()
        ? "the collection's own contract cannot receive its tokens"
        : undefined;
  if (refused !== undefined)
    throw new ApiError('VALIDATION_FAILED', `${path.replace(/^\//, '')}: ${refused}`, {
      fields: [{ path, message: refused }],
    });
  return to;
}

interface FlowCall {
  data: Hex;
  items: readonly ItemRow[];
  /** Entries of a batch shared across requests (data written when the relayer closes it). */
  batch?: { key: string; cap: number };
}

/** The calldata of each mint transaction and the items it mints. */
function mintCalls(
  method: MintMethod,
  items: readonly ItemRow[],
  to: Address,
  quantity: bigint,
  metadataUrl: (tokenId: bigint) => string,
): FlowCall[] {
  const id = (item: ItemRow) => BigInt(item.token_id!);
  switch (method) {
    case 'ERC721_BATCH':
      return [
        {
          data: encode('ADMIN_MINT_BATCH', 'ERC721', 'mintBatch', [items.map(() => to), items.map(id)]),
          items,
        },
      ];
    case 'ERC721_NO_ID':
      return [
        {
          data: encode('ADMIN_MINT_MULTIPLE_NO_ID', 'ERC721', 'mintBatchNoId', [to, BigInt(items.length)]),
          items,
        },
      ];
    case 'ERC1155_BATCH':
      return [
        {
          data: encode('ADMIN_MINT_MULTIPLE', 'ERC1155', 'mintBatch', [
            to,
            items.map(id),
            items.map(() => quantity),
          ]),
          items,
        },
      ];
    case 'ERC721_SINGLE':
      return items.map((item) => ({
        data: encode('ADMIN_MINT_SINGLE', 'ERC721', 'mint', [to, id(item)]),
        items: [item],
      }));
    case 'ERC721_SINGLE_URI':
      return items.map((item) => ({
        data: encode('ADMIN_MINT_SINGLE_URI', 'ERC721', 'mintWithURI', [to, id(item), metadataUrl(id(item))]),
        items: [item],
      }));
  }
}

/**
 * ERC-1155: one safeBatchTransferFrom for the request; ERC-721 has no batch transfer in its
 * standard, so one safeTransferFrom per item.
 */
function transferCalls(
  tokenType: TokenType,
  items: readonly ItemRow[],
  from: Address,
  to: Address,
  quantity: bigint,
): FlowCall[] {
  const id = (item: ItemRow) => BigInt(item.token_id!);
  if (tokenType === 'ERC1155') {
    return [
      {
        data: encode('ERC1155', 'ERC1155', 'safeBatchTransferFrom', [
          from,
          to,
          items.map(id),
          items.map(() => quantity),
          '0x',
        ]),
        items,
      },
    ];
  }
  return items.map((item) => ({
    data: encode('ERC721', 'ERC721', 'safeTransferFrom', [from, to, id(item)]),
    items: [item],
  }));
}

export interface TokenFlowRequest {
  flow: ItemFlow;
  collection: CollectionRow;
  /** Locked and checked by lockFlowItems, in creation order. */
  items: readonly ItemRow[];
  /** Units per item. */
  quantity: bigint;
  to: Address;
  /**
   * The holder whose reservation of the items passes to the records (a listing sold, a claim
   * redeemed); absent, the items are reserved afresh (they must be free).
   */
  reservedBy?: string;
  /**
   * The items stay under this holder's reservation, which neither moves nor ends (an ERC-1155
   * listing selling part of an item's units keeps the item for its other buyers).
   */
  coveredBy?: string;
  /**
   * What the records deliver for, told of their outcome when they settle (the port
   * tokenFlowOwners, by kind); absent, a request of their own.
   */
  owner?: { kind: Exclude<TokenFlowOwnerKind, 'REQUEST'>; id: string };
}

/**
 * Starts a flow, all or nothing in the caller's transaction: one record per item, each holding
 * its item's reservation; MINT items set MINTING; the transactions queued: on a contract with a
 * call to many recipients (token-flow-batches.ts), the records join a batch shared with other
 * requests of the collection (chunks of the network's cap); else one transaction for the request
 * when the contract mints or transfers in batches to one recipient, or one per item. Returns the
 * records in item order.
 */
export async function startTokenFlow(
  db: Tx,
  deps: Deps,
  request: TokenFlowRequest,
): Promise<repo.TokenRequestView[]> {
  const { flow, collection, items, quantity, to } = request;
  if (items.length === 0) return [];
  const contract = contractForFlow(collection, flow);
  const wallet = await organizationWalletOf(db, collection.organization_id);
  const requestIds = requestIdsFor(items);
  const holders = items.map((item) => requestIds.get(item.id)!);
  if (request.coveredBy !== undefined) {
    // The covering holder keeps the items out of every other flow.
  } else if (request.reservedBy === undefined) {
    await reserveItems(db, items, flow, holders, quantity);
  } else {
    await moveReservations(db, {
      from: request.reservedBy,
      kind: flow,
      to: new Map(items.map((item, i) => [item.id, holders[i]!])),
    });
  }
  if (flow === 'MINT')
    await markMinting(
      db,
      items.map((item) => item.id),
    );
  const externalIds = collection.token_id_assignment_strategy === 'EXTERNAL';
  const batchCall = batchCallOf(contract, flow, externalIds);
  let calls: FlowCall[];
  if (batchCall !== undefined) {
    // Each item an entry of a batch shared with other requests: the relayer writes the calldata.
    const network = await findNetwork(db, contract.networkId);
    if (!network) throw new ApiError('NOT_FOUND', `network ${contract.networkId} not found`);
    const cap = batchCap(batchCall, networkConfigOf(network).batch);
    const key = batchKey(batchCall, collection.id);
    calls = [];
    for (let i = 0; i < items.length; i += cap)
      calls.push({ data: '0x', items: items.slice(i, i + cap), batch: { key, cap } });
  } else if (flow === 'MINT') {
    const method = mintMethodOf(contract, externalIds);
    const metadataUrl = (tokenId: bigint) =>
      `${deps.config.http.publicBaseUrl}/v1/metadata/${collection.id}/${tokenId.toString()}`;
    calls = mintCalls(method, items, to, quantity, metadataUrl);
  } else {
    calls = transferCalls(contract.tokenType, items, wallet.address as Address, to, quantity);
  }
  const table = tableOf(flow);
  const records: repo.NewTokenRequest[] = [];
  for (const call of calls) {
    const transaction =
      call.batch === undefined
        ? await queueTransaction(db, {
            networkId: contract.networkId,
            wallet,
            type: flow,
            to: contract.address,
            data: call.data,
          })
        : await queueBatchEntries(db, {
            networkId: contract.networkId,
            wallet,
            type: flow,
            to: contract.address,
            ...call.batch,
            size: call.items.length,
          });
    for (const item of call.items) {
      records.push({
        id: requestIds.get(item.id)!,
        organization_id: collection.organization_id,
        collection_id: collection.id,
        item_id: item.id,
        quantity,
        to_address: to,
        transaction_id: transaction.id,
        owner_kind: request.owner?.kind ?? 'REQUEST',
        owner_id: request.owner?.id ?? null,
      });
    }
  }
  await repo.insertRequests(db, table, records);
  const views = new Map(
    (
      await repo.findRequests(
        db,
        table,
        records.map((r) => r.id),
      )
    ).map((v) => [v.id, v]),
  );
  return records.map((r) => views.get(r.id)!);
}

export function tableOf(flow: ItemFlow): repo.TokenRequestTable {
  return flow === 'MINT' ? 'mint_requests' : 'transfer_requests';
}

/** The requests of a flow, as their module's mapper reads them (after settlement: their events' data). */
export function findTokenRequests(
  db: Executor,
  flow: ItemFlow,
  ids: readonly string[],
): Promise<repo.TokenRequestView[]> {
  return repo.findRequests(db, tableOf(flow), ids);
}

const WHAT: Record<ItemFlow, string> = { MINT: 'mint request', TRANSFER: 'transfer request' };

/** A mint or transfer request as `principal` may see it: another organization's is NOT_FOUND. */
export async function getTokenRequest(
  db: Executor,
  principal: Principal,
  flow: ItemFlow,
  id: string,
): Promise<repo.TokenRequestView> {
  const view = await repo.findRequest(db, tableOf(flow), id);
  if (!view) throw new ApiError('NOT_FOUND', `${WHAT[flow]} not found`);
  assertOrganizationAccess(principal, view.organization_id, WHAT[flow]);
  return view;
}

export interface TokenRequestFilters {
  item_id?: string | undefined;
  collection_id?: string | undefined;
  to_address?: string | undefined;
}

/** A page of mint or transfer requests: platform admins see every organization's. */
export function listTokenRequests(
  db: Executor,
  principal: Principal,
  flow: ItemFlow,
  page: PageParams,
  filters: TokenRequestFilters,
): Promise<PageResult<repo.TokenRequestView>> {
  return repo.listRequests(db, tableOf(flow), page, {
    organizationId: isPlatformAdmin(principal) ? undefined : principal.organizationId,
    itemId: filters.item_id,
    collectionId: filters.collection_id,
    toAddress:
      filters.to_address === undefined ? undefined : checkedAddress(filters.to_address, '/to_address'),
  });
}

/**
 * Whether a transaction's records are still open: its settlement job has not run yet, even when
 * the transaction itself is COMPLETED (a holder waiting on several transactions checks this).
 */
export function hasOpenTokenRequests(db: Executor, flow: ItemFlow, transactionId: string): Promise<boolean> {
  return repo.hasOpenRequests(db, tableOf(flow), transactionId);
}
