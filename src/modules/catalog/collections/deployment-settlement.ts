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
import type { Deps, SettlementHandler } from '../../../context.ts';
import type { Executor } from '../../../db/executor.ts';
import type { CollectionRow, TransactionRow } from '../../../db/schema.ts';
import { chainClientOf, findNetwork } from '../../platform/networks/networks.service.ts';
import { queueTransaction } from '../../platform/transactions/transactions.service.ts';
import { organizationWalletOf } from '../../platform/wallets/wallets.service.ts';
import { emitEvent } from '../../platform/webhooks/webhook-events.service.ts';
import * as repo from './collections.repository.ts';
import { toCollection } from './collections.service.ts';

const GRANT_ROLE_ABI = parseAbi(['function grantRole(bytes32 role, address account)']);

/** What the chain tells of a deployment before it settles: a CUSTOM contract's symbol. */
export interface DeploymentReading {
  symbol?: string;
}

/**
 * What follows a DEPLOY transaction's settlement (the port's settlement handler of DEPLOY, before
 * the listings'): `read` asks a CUSTOM contract its `symbol()` with no database transaction open;
 * `settle` locks the collection whose deployment it is and moves it from PENDING to SUCCESS
 * (address, capabilities from its ABI, the symbol read) or FAILED (reverted or cancelled). Other
 * DEPLOY rows and collections no longer PENDING are left alone, so a retried job changes nothing.
 */
export const deploymentSettlement: SettlementHandler<DeploymentReading> = {
  async read(db, deps, transaction) {
    const collection = await repo.findCollectionByDeployment(db, transaction.id);
    if (collection?.deployment_status !== 'PENDING' || collection.symbol !== null || !deployed(transaction))
      return {};
    const abi = (collection.abi ?? []) as Abi;
    return { symbol: await readSymbol(db, deps, transaction.network_id, address(transaction), abi) };
  },

  async settle(db, _deps, transaction, reading) {
    const collection = await repo.findCollectionByDeploymentForUpdate(db, transaction.id);
    if (collection?.deployment_status !== 'PENDING') return;
    if (!deployed(transaction)) {
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
    const symbol = collection.symbol ?? reading?.symbol;
    // Read before the lock for the collection as it was; a symbol still missing is read again.
    if (symbol === undefined)
      throw new Error(`deployment ${transaction.id}: the contract's symbol is not read yet`);
    const abi = (collection.abi ?? []) as Abi;
    const deployedCollection = await repo.updateCollection(db, collection.id, {
      deployment_status: 'SUCCESS',
      contract_address: address(transaction),
      capabilities: capabilitiesOf(abi),
      symbol,
    });
    await emitDeploymentEvent(db, deployedCollection);
    if (collection.owner_address) {
      // The requested owner administers the contract too (DEFAULT_ADMIN_ROLE is bytes32 0).
      const wallet = await organizationWalletOf(db, collection.organization_id);
      await queueTransaction(db, {
        networkId: transaction.network_id,
        wallet,
        type: 'FUNCTION_EXECUTE',
        to: address(transaction),
        data: encodeFunctionData({
          abi: GRANT_ROLE_ABI,
          functionName: 'grantRole',
          args: [zeroHash, collection.owner_address as Address],
        }),
      });
    }
  },
};

function deployed(transaction: TransactionRow): boolean {
  return (
    transaction.state === 'COMPLETED' &&
    transaction.on_chain_status === 'SUCCESS' &&
    transaction.contract_address !== null
  );
}

function address(transaction: TransactionRow): Address {
  return getAddress(transaction.contract_address!);
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
