import { type Abi, type Address, encodeDeployData, type Hex, maxUint256, zeroAddress } from 'viem';
import type { Principal } from '../../../access/principal.ts';
import { PLATFORM_CONTRACT_STANDARD, platformContracts } from '../../../chain/artifacts.ts';
import {
  assertTokenCapability,
  type CapabilityName,
  capabilitiesOf,
  type TokenType,
  tokenTypesOf,
} from '../../../chain/capabilities.ts';
import { probeContract } from '../../../chain/probe.ts';
import type { Deps } from '../../../context.ts';
import type { Executor, Tx } from '../../../db/executor.ts';
import type {
  CollectionRow,
  CollectionUpdate,
  NetworkRow,
  TokenIdAssignmentStrategy,
  WalletRow,
} from '../../../db/schema.ts';
import { checkedAddress } from '../../../http/inputs.ts';
import { ApiError, type FieldError } from '../../../lib/errors.ts';
import { chainClientOf, findNetwork } from '../../platform/networks/networks.service.ts';
import { findOrganization } from '../../platform/organizations/organizations.service.ts';
import { queueTransaction } from '../../platform/transactions/transactions.service.ts';
import { organizationWalletOf } from '../../platform/wallets/wallets.service.ts';
import { parseAbiJson } from '../contracts/abi-json.ts';
import { parseCustomContract } from '../contracts/contracts.service.ts';
import { getCollectionRow, lockCollectionRow, validationFailed } from './collection-rows.ts';
import * as repo from './collections.repository.ts';
import type { DeploymentRequest, DeploymentRequestStatus } from './collections.schemas.ts';

/**
 * A collection's deployment: PLATFORM and CUSTOM contracts deployed
 * through the relayer, EXTERNAL ones read and registered; settled by deployment-settlement.ts.
 */

/**
 * Submit deploy request: a collection is deployed when none was requested
 * yet or the last deployment FAILED.
 */
export async function submitDeploymentRequest(
  db: Tx,
  deps: Deps,
  principal: Principal,
  id: string,
  request: DeploymentRequest,
): Promise<DeploymentRequestStatus> {
  const collection = await lockCollectionRow(db, principal, id);
  return toDeploymentStatus(await deploy(db, deps, collection, request, ''));
}

export async function getDeploymentRequest(
  db: Executor,
  principal: Principal,
  id: string,
): Promise<DeploymentRequestStatus> {
  const collection = await getCollectionRow(db, principal, id);
  if (collection.deployment_status === null)
    throw new ApiError('NOT_FOUND', 'no deployment was requested for this collection');
  return toDeploymentStatus(collection);
}

function toDeploymentStatus(row: CollectionRow): DeploymentRequestStatus {
  return {
    status: row.deployment_status!,
    transaction_id: row.deployment_transaction_id,
    failure_reason: row.deployment_failure_reason,
  };
}

const TYPE_OBJECTS = { PLATFORM: 'platform', CUSTOM: 'custom', EXTERNAL: 'external' } as const;

/** What a deployment request resolves to before anything is written. */
interface DeploymentPlan {
  tokenType: TokenType;
  /** The ABI the service calls the contract with. */
  abi: Abi;
  /** Known before deployment from the ABI (PLATFORM, CUSTOM) or read now (EXTERNAL). */
  capabilities: CapabilityName[];
  symbol: string | null;
  /** The creation transaction's data; undefined for EXTERNAL (nothing is deployed). */
  deployData?: Hex;
  address?: Address;
  variant?: string;
  maxSupply?: bigint;
  owner?: Address | null;
}

/**
 * Checks a deployment request whole, then writes the collection's deployment: PLATFORM and
 * CUSTOM queue the DEPLOY transaction in the caller's transaction (PENDING until it settles);
 * EXTERNAL reads the contract now and is SUCCESS at once. `at` prefixes field paths
 * (`/deployment_request` when nested in a create).
 */
export async function deploy(
  db: Executor,
  deps: Deps,
  collection: CollectionRow,
  request: DeploymentRequest,
  at: string,
): Promise<CollectionRow> {
  if (collection.deployment_status === 'PENDING' || collection.deployment_status === 'SUCCESS') {
    throw new ApiError(
      'INVALID_STATE',
      `the collection's deployment is ${collection.deployment_status}: a deployment may be requested only when none exists or the last one FAILED`,
    );
  }
  checkTypeObjects(request, at);
  const network = await allowedNetwork(db, collection.organization_id, request.network_id, at);
  const wallet = await organizationWalletOf(db, collection.organization_id);

  let plan: DeploymentPlan;
  switch (request.type) {
    case 'PLATFORM':
      plan = platformPlan(deps, collection, wallet, request.platform!, `${at}/platform`);
      break;
    case 'CUSTOM':
      plan = customPlan(request.custom!, `${at}/custom`);
      break;
    case 'EXTERNAL':
      plan = await externalPlan(deps, network, request.external!, `${at}/external`);
      break;
  }
  const strategy = request.token_id_assignment_strategy ?? 'AUTOMATIC';
  checkStrategy(strategy, plan, `${at}/token_id_assignment_strategy`);

  const columns: CollectionUpdate = {
    deployment_type: request.type,
    network_id: network.id,
    token_type: plan.tokenType,
    symbol: plan.symbol,
    token_id_assignment_strategy: strategy,
    platform_variant: plan.variant ?? null,
    abi: JSON.stringify(plan.abi),
    max_supply: plan.maxSupply ?? null,
    owner_address: plan.owner ?? null,
    deployment_failure_reason: null,
  };
  if (plan.deployData === undefined) {
    return repo.updateCollection(db, collection.id, {
      ...columns,
      deployment_status: 'SUCCESS',
      deployment_transaction_id: null,
      contract_address: plan.address!,
      capabilities: plan.capabilities,
    });
  }
  const transaction = await queueTransaction(db, {
    networkId: network.id,
    wallet,
    type: 'DEPLOY',
    to: null,
    data: plan.deployData,
  });
  return repo.updateCollection(db, collection.id, {
    ...columns,
    deployment_status: 'PENDING',
    deployment_transaction_id: transaction.id,
    contract_address: null,
    capabilities: [],
  });
}

/** Exactly the object named by `type` is given; the other two are absent or null. */
function checkTypeObjects(request: DeploymentRequest, at: string): void {
  const fields: FieldError[] = [];
  for (const [type, key] of Object.entries(TYPE_OBJECTS)) {
    const given = request[key] != null;
    if (type === request.type && !given)
      fields.push({ path: `${at}/${key}`, message: `is required when type is ${type}` });
    if (type !== request.type && given)
      fields.push({ path: `${at}/${key}`, message: `must be absent or null when type is ${request.type}` });
  }
  if (fields.length > 0)
    throw new ApiError(
      'VALIDATION_FAILED',
      `a ${request.type} deployment takes the ${TYPE_OBJECTS[request.type]} object only`,
      { fields },
    );
}

/** A registered, enabled network that the organization's network_ids allow. */
async function allowedNetwork(
  db: Executor,
  organizationId: string,
  networkId: number,
  at: string,
): Promise<NetworkRow> {
  const network = await findNetwork(db, networkId);
  const organization = await findOrganization(db, organizationId);
  let problem: string | undefined;
  if (!network) problem = `network ${networkId} is not registered`;
  else if (!network.enabled) problem = `network ${networkId} is disabled`;
  else if (!organization?.network_ids.includes(networkId))
    problem = `network ${networkId} is not among the organization's network_ids`;
  if (problem !== undefined || !network)
    throw validationFailed(problem ?? 'unknown network', `${at}/network_id`, problem ?? 'unknown network');
  return network;
}

function platformPlan(
  deps: Deps,
  collection: CollectionRow,
  wallet: WalletRow,
  platform: NonNullable<DeploymentRequest['platform']>,
  at: string,
): DeploymentPlan {
  const artifact = platformContracts[platform.variant];
  const maxSupply = BigInt(platform.max_supply ?? '0');
  if (maxSupply > maxUint256)
    throw validationFailed('max_supply is above 2^256-1', `${at}/max_supply`, 'must be at most 2^256-1');
  const owner = platform.owner == null ? null : checkedAddress(platform.owner, `${at}/owner`);
  if (owner === zeroAddress)
    throw validationFailed('owner cannot be the zero address', `${at}/owner`, 'must not be the zero address');
  const royalty = collection.royalty_info;
  const metadataBase = `${deps.config.http.publicBaseUrl}/v1/metadata/${collection.id}`;
  // Constructor: (name, symbol, baseURI, contractURI, admin, maxSupply, royaltyReceiver, royaltyBps).
  // The organization's wallet is the admin: it mints and signs vouchers.
  const deployData = encodeDeployData({
    abi: artifact.abi as Abi,
    bytecode: artifact.bytecode,
    args: [
      collection.name,
      platform.symbol,
      `${metadataBase}/`,
      metadataBase,
      wallet.address,
      maxSupply,
      royalty?.receiver ?? zeroAddress,
      BigInt(royalty?.amount_bps ?? 0),
    ],
  });
  const abi = artifact.abi as Abi;
  return {
    tokenType: PLATFORM_CONTRACT_STANDARD[platform.variant],
    abi,
    capabilities: capabilitiesOf(abi),
    symbol: platform.symbol,
    deployData,
    variant: platform.variant,
    maxSupply,
    owner,
  };
}

function customPlan(custom: NonNullable<DeploymentRequest['custom']>, at: string): DeploymentPlan {
  const contract = parseCustomContract(custom, at);
  return {
    tokenType: tokenTypeOf(contract.capabilities, custom.token_type ?? null, `${at}/token_type`),
    abi: contract.abi,
    capabilities: contract.capabilities,
    // Read from the contract once deployed (settleDeployment).
    symbol: null,
    deployData: contract.deployData,
  };
}

async function externalPlan(
  deps: Deps,
  network: NetworkRow,
  external: NonNullable<DeploymentRequest['external']>,
  at: string,
): Promise<DeploymentPlan> {
  const address = checkedAddress(external.address, `${at}/address`);
  const givenAbi = external.abi == null ? undefined : parseAbiJson(external.abi, `${at}/abi`);
  const probed = await probeContract(chainClientOf(deps, network), address, {
    tokenType: external.token_type,
    abi: givenAbi,
  });
  if (!probed) {
    throw validationFailed(
      `there is no contract at ${address} on network ${network.id}`,
      `${at}/address`,
      `has no code on network ${network.id}`,
    );
  }
  // Capability rule 1, for the standard the collection will use the contract as.
  assertTokenCapability(probed.capabilities, external.token_type);
  return {
    tokenType: external.token_type,
    abi: probed.abi,
    capabilities: probed.capabilities,
    symbol: probed.symbol,
    address,
  };
}

/** Capability rule 1: the standard the collection uses; named by the caller when there are two. */
function tokenTypeOf(capabilities: CapabilityName[], given: TokenType | null, path: string): TokenType {
  assertTokenCapability(capabilities, given);
  if (given) return given;
  const types = tokenTypesOf(capabilities);
  if (types.length > 1)
    throw validationFailed(
      'the contract is both ERC721 and ERC1155: name the token_type to use',
      path,
      'is required when the contract has both ERC721 and ERC1155',
    );
  return types[0]!;
}

/**
 * EXTERNAL token ids are read from the Transfer events of a mint whose ids the contract assigns:
 * ERC721 only, and the contract needs ADMIN_MINT_MULTIPLE_NO_ID.
 */
function checkStrategy(strategy: TokenIdAssignmentStrategy, plan: DeploymentPlan, path: string): void {
  if (strategy !== 'EXTERNAL') return;
  if (plan.tokenType !== 'ERC721')
    throw validationFailed(
      'EXTERNAL token id assignment is for ERC721 collections only',
      path,
      'EXTERNAL is for ERC721 collections only',
    );
  if (!plan.capabilities.includes('ADMIN_MINT_MULTIPLE_NO_ID'))
    throw new ApiError(
      'MISSING_MINT_CAPABILITY',
      'EXTERNAL token id assignment needs the ADMIN_MINT_MULTIPLE_NO_ID capability (the contract assigns the ids at mint)',
    );
}
