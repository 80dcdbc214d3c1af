import {
  type Abi,
  type AbiFunction,
  type Address,
  encodeFunctionData,
  getAddress,
  parseAbi,
  zeroHash,
} from 'viem';
import { capabilitiesOf } from '../../../chain/capabilities.ts';
import { contractSymbol } from '../../../chain/probe.ts';
import type { Deps } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { CollectionRow, TransactionRow } from '../../../db/schema.ts';
import { chainClientOf, findNetwork } from '../../platform/networks/networks.service.ts';
import { queueTransaction } from '../../platform/transactions/transactions.service.ts';
import { organizationWalletOf } from '../../platform/wallets/wallets.service.ts';
import { emitEvent } from '../../platform/webhooks/webhook-events.service.ts';
import * as repo from './collections.repository.ts';
import { toCollection } from './collections.service.ts';

/** What follows a DEPLOY transaction's settlement (registered in src/wiring/settlement.ts). */

const GRANT_ROLE_ABI = parseAbi(['function grantRole(bytes32 role, address account)']);

/**
 * A DEPLOY transaction settled: the collection whose deployment it is moves from PENDING to
 * SUCCESS (address, capabilities from its ABI; the symbol of a CUSTOM contract read now) or
 * FAILED (reverted or cancelled). Other DEPLOY rows and collections no longer PENDING are left
 * alone, so a retried job changes nothing.
 */
export async function settleDeployment(db: Executor, deps: Deps, transaction: TransactionRow): Promise<void> {
  const collection = await repo.findCollectionByDeploymentForUpdate(db, transaction.id);
  if (collection?.deployment_status !== 'PENDING') return;
  const succeeded =
    transaction.state === 'COMPLETED' &&
    transaction.on_chain_status === 'SUCCESS' &&
    transaction.contract_address !== null;
  if (!succeeded) {
    const reason =
      transaction.failure_reason ??
      (transaction.state === 'CANCELLED'
        ? 'the deployment was cancelled'
        : 'the deployment reverted on chain');
    const failed = await repo.updateCollection(db, collection.id, {
      deployment_status: 'FAILED',
      deployment_failure_reason: reason,
    });
    await emitDeploymentEvent(db, failed);
    return;
  }
  const address = getAddress(transaction.contract_address!);
  const abi = (collection.abi ?? []) as Abi;
  const symbol = collection.symbol ?? (await readSymbol(db, deps, transaction.network_id, address, abi));
  const deployed = await repo.updateCollection(db, collection.id, {
    deployment_status: 'SUCCESS',
    contract_address: address,
    capabilities: capabilitiesOf(abi),
    symbol,
  });
  await emitDeploymentEvent(db, deployed);
  if (collection.owner_address) {
    // The requested owner administers the contract too (DEFAULT_ADMIN_ROLE is bytes32 0).
    const wallet = await organizationWalletOf(db, collection.organization_id);
    await queueTransaction(db, {
      networkId: transaction.network_id,
      wallet,
      type: 'FUNCTION_EXECUTE',
      to: address,
      data: encodeFunctionData({
        abi: GRANT_ROLE_ABI,
        functionName: 'grantRole',
        args: [zeroHash, collection.owner_address as Address],
      }),
    });
  }
}

/**
 * `symbol()` of a freshly deployed CUSTOM contract, when its ABI has it; '' when it has none or
 * does not answer with a string. A node that fails throws, so the job retries later.
 */
async function readSymbol(
  db: Executor,
  deps: Deps,
  networkId: number,
  address: Address,
  abi: Abi,
): Promise<string> {
  const symbolFunction = abi.find(
    (item): item is AbiFunction =>
      item.type === 'function' &&
      item.name === 'symbol' &&
      item.inputs.length === 0 &&
      item.outputs.length === 1 &&
      item.outputs[0]!.type === 'string',
  );
  const network = symbolFunction && (await findNetwork(db, networkId));
  if (!symbolFunction || !network) return '';
  return contractSymbol(chainClientOf(deps, network), address);
}

/** collection.deployed or collection.deployment_failed, with the collection as the API shows it. */
function emitDeploymentEvent(db: Executor, collection: CollectionRow): Promise<string | undefined> {
  return emitEvent(db, {
    organizationId: collection.organization_id,
    type: collection.deployment_status === 'SUCCESS' ? 'collection.deployed' : 'collection.deployment_failed',
    resourceId: collection.id,
    data: toCollection(collection),
  });
}
