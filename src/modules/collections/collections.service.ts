import {
  type Abi,
  type AbiFunction,
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  type Hex,
  maxUint256,
  parseAbi,
  zeroAddress,
  zeroHash,
} from 'viem';
import { assertOrganizationAccess, isPlatformAdmin, type Principal } from '../../access/principal.ts';
import { PLATFORM_CONTRACT_STANDARD, platformContracts } from '../../chain/artifacts.ts';
import {
  assertTokenCapability,
  type CapabilityName,
  capabilitiesOf,
  type TokenType,
  tokenTypesOf,
} from '../../chain/capabilities.ts';
import { contractSymbol, probeContract } from '../../chain/probe.ts';
import type { Deps } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type {
  CollectionRow,
  CollectionUpdate,
  NetworkRow,
  TokenIdAssignmentStrategy,
  TransactionRow,
  WalletRow,
} from '../../db/schema.ts';
import { ApiError, type FieldError } from '../../http/errors.ts';
import { checkedAddress } from '../../http/inputs.ts';
import type { PageParams, PageResult } from '../../http/pagination.ts';
import { iso } from '../../http/schemas.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { parseAbiJson } from '../contracts/abi-json.ts';
import { parseCustomContract } from '../contracts/contracts.service.ts';
import { chainClientOf, findNetwork } from '../networks/networks.service.ts';
import { findOrganization } from '../organizations/organizations.service.ts';
import { queueTransaction } from '../transactions/transactions.service.ts';
import { organizationWalletOf } from '../wallets/wallets.service.ts';
import * as repo from './collections.repository.ts';
import type {
  Collection,
  CreateCollectionBody,
  DeploymentRequest,
  DeploymentRequestStatus,
  EditCollectionBody,
  ListCollectionsQuery,
  RoyaltyInfo,
} from './collections.schemas.ts';

export type { CollectionRow } from '../../db/schema.ts';

export function toCollection(row: CollectionRow): Collection {
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    default_item_type_id: row.default_item_type_id,
    image_url: row.image_url,
    reveal_strategy: row.reveal_strategy,
    preview_metadata: row.preview_metadata,
    editable_metadata: row.editable_metadata,
    reveal_hidden: row.reveal_hidden,
    functions_enabled: row.functions_enabled,
    royalty_info: row.royalty_info,
    deployment:
      row.deployment_type === null || row.deployment_status === null || row.token_type === null
        ? null
        : {
            type: row.deployment_type,
            status: row.deployment_status,
            address: row.contract_address,
            capabilities: row.capabilities as CapabilityName[],
            network_id: row.network_id,
            symbol: row.symbol ?? '',
            token_id_assignment_strategy: row.token_id_assignment_strategy ?? 'AUTOMATIC',
            token_type: row.token_type,
            transaction_id: row.deployment_transaction_id,
            failure_reason: row.deployment_failure_reason,
          },
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function findCollection(db: Executor, id: string): Promise<CollectionRow | undefined> {
  return repo.findCollection(db, id);
}

/**
 * The collection as `principal` may see it: another organization's answers NOT_FOUND. With
 * `forUpdate` the row stays locked until the caller's transaction ends.
 */
export async function getCollectionRow(
  db: Executor,
  principal: Principal,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<CollectionRow> {
  const row = options.forUpdate
    ? await repo.findCollectionForUpdate(db, id)
    : await repo.findCollection(db, id);
  if (!row) throw new ApiError('NOT_FOUND', 'collection not found');
  assertOrganizationAccess(principal, row.organization_id, 'collection');
  return row;
}

export { takeTokenIds } from './collections.repository.ts';

export function listCollections(
  db: Executor,
  principal: Principal,
  query: ListCollectionsQuery,
): Promise<PageResult<CollectionRow>> {
  const { name, contract_address, token_type, network_id, order_by: _orderBy, ...page } = query;
  return repo.listCollections(db, page as PageParams, {
    organizationId: isPlatformAdmin(principal) ? undefined : principal.organizationId,
    name,
    contractAddress:
      contract_address === undefined ? undefined : checkedAddress(contract_address, '/contract_address'),
    tokenType: token_type,
    networkId: network_id,
  });
}

/**
 * Creates a collection in the caller's organization; with `deployment_request`, deploys it in the
 * same database transaction, so an invalid deployment request creates nothing.
 */
export async function createCollection(
  db: Executor,
  deps: Deps,
  principal: Principal,
  body: CreateCollectionBody,
): Promise<CollectionRow> {
  const revealStrategy = body.reveal_strategy ?? 'INSTANT';
  const previewMetadata = body.preview_metadata ?? null;
  checkPreviewMetadata(revealStrategy, previewMetadata, '/preview_metadata');
  const organizationId = principal.organizationId;
  if (body.default_item_type_id != null)
    await checkItemType(db, body.default_item_type_id, organizationId, '/default_item_type_id');
  const collection = await uniquelyNamed(body.name, () =>
    repo.insertCollection(db, {
      id: uuidv7(),
      organization_id: organizationId,
      name: body.name,
      default_item_type_id: body.default_item_type_id ?? null,
      image_url: body.image_url ?? null,
      reveal_strategy: revealStrategy,
      preview_metadata: previewMetadata === null ? null : JSON.stringify(previewMetadata),
      editable_metadata: body.editable_metadata ?? false,
      // Hidden until revealed when the reveal is delayed; shown at once otherwise.
      reveal_hidden: revealStrategy === 'DELAYED',
      functions_enabled: false,
      royalty_info: null,
    }),
  );
  if (!body.deployment_request) return collection;
  return deploy(db, deps, collection, body.deployment_request, '/deployment_request');
}

/**
 * Edits a collection (partial: only the attributes present change). The row is locked, so two
 * edits cannot both pass a one-way check (reveal_hidden, editable_metadata) on the same state.
 */
export async function editCollection(
  db: Executor,
  principal: Principal,
  id: string,
  body: EditCollectionBody,
): Promise<CollectionRow> {
  const current = await getCollectionRow(db, principal, id, { forUpdate: true });
  const patch: CollectionUpdate = {};

  if (body.name !== undefined && body.name !== current.name) patch.name = body.name;
  if (body.image_url !== undefined) patch.image_url = body.image_url;
  if (body.functions_enabled !== undefined) patch.functions_enabled = body.functions_enabled;
  if (body.default_item_type_id !== undefined) {
    if (body.default_item_type_id !== null)
      await checkItemType(db, body.default_item_type_id, current.organization_id, '/default_item_type_id');
    patch.default_item_type_id = body.default_item_type_id;
  }
  if (body.preview_metadata !== undefined) {
    checkPreviewMetadata(current.reveal_strategy, body.preview_metadata, '/preview_metadata');
    patch.preview_metadata = body.preview_metadata === null ? null : JSON.stringify(body.preview_metadata);
  }
  if (body.reveal_hidden !== undefined && body.reveal_hidden !== current.reveal_hidden) {
    // States: reveal_hidden true → false on a DELAYED collection, never back.
    if (body.reveal_hidden || current.reveal_strategy !== 'DELAYED') {
      throw new ApiError(
        'INVALID_STATE',
        current.reveal_strategy === 'DELAYED'
          ? 'a revealed collection cannot be hidden again (reveal_hidden goes from true to false only)'
          : 'only DELAYED collections are hidden and revealed',
      );
    }
    patch.reveal_hidden = false;
  }
  if (body.editable_metadata !== undefined && body.editable_metadata !== current.editable_metadata) {
    // States: editable_metadata true → false, never back.
    if (body.editable_metadata) {
      throw new ApiError(
        'INVALID_STATE',
        'metadata that was made non-editable cannot become editable again (editable_metadata goes from true to false only)',
      );
    }
    patch.editable_metadata = false;
  }
  if (body.royalty_info !== undefined) {
    const royalty = body.royalty_info === null ? null : checkedRoyalty(body.royalty_info, '/royalty_info');
    if (!sameRoyalty(royalty, current.royalty_info)) {
      await updateRoyaltyOnChain(db, current, royalty);
      patch.royalty_info = royalty === null ? null : JSON.stringify(royalty);
    }
  }

  if (Object.keys(patch).length === 0) return current;
  return uniquelyNamed(body.name ?? current.name, () => repo.updateCollection(db, id, patch));
}

/**
 * Submit deploy request (SERVICE-SPEC Group B): a collection is deployed when none was requested
 * yet or the last deployment FAILED.
 */
export async function submitDeploymentRequest(
  db: Executor,
  deps: Deps,
  principal: Principal,
  id: string,
  request: DeploymentRequest,
): Promise<DeploymentRequestStatus> {
  const collection = await getCollectionRow(db, principal, id, { forUpdate: true });
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

/** The public capability list of a collection: empty until its contract is deployed. */
export async function getPublicCapabilities(
  db: Executor,
  id: string,
): Promise<{ capabilities: CapabilityName[] }> {
  const collection = await repo.findCollection(db, id);
  if (!collection) throw new ApiError('NOT_FOUND', 'collection not found');
  return { capabilities: collection.capabilities as CapabilityName[] };
}

// ---------------------------------------------------------------------------------- deployment

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
async function deploy(
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

// ---------------------------------------------------------------------------------- settlement

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
    await repo.updateCollection(db, collection.id, {
      deployment_status: 'FAILED',
      deployment_failure_reason: reason,
    });
    return;
  }
  const address = getAddress(transaction.contract_address!);
  const abi = (collection.abi ?? []) as Abi;
  const symbol = collection.symbol ?? (await readSymbol(db, deps, transaction.network_id, address, abi));
  await repo.updateCollection(db, collection.id, {
    deployment_status: 'SUCCESS',
    contract_address: address,
    capabilities: capabilitiesOf(abi),
    symbol,
  });
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

// ---------------------------------------------------------------------------------- royalties

const ROYALTY_ABI = parseAbi([
  'function setDefaultRoyalty(address receiver, uint96 feeNumerator)',
  'function deleteDefaultRoyalty()',
]);

/**
 * A deployed contract with CONTRACT_ROYALTY follows the collection's royalty_info: a ROYALTY_UPDATE
 * transaction sets it (setDefaultRoyalty) or clears it (deleteDefaultRoyalty: OpenZeppelin's
 * setDefaultRoyalty refuses the zero receiver, so a contract without it cannot be cleared). Before
 * deployment the platform constructor takes royalty_info; while a deployment is PENDING its
 * constructor arguments are already fixed, so royalty_info waits for it to settle.
 */
async function updateRoyaltyOnChain(
  db: Executor,
  collection: CollectionRow,
  royalty: RoyaltyInfo | null,
): Promise<void> {
  if (collection.deployment_status === 'PENDING')
    throw new ApiError(
      'INVALID_STATE',
      'royalty_info cannot change while the deployment is pending (its constructor arguments are fixed): retry once it settled',
    );
  if (collection.deployment_status !== 'SUCCESS' || !collection.capabilities.includes('CONTRACT_ROYALTY'))
    return;
  let data: Hex;
  if (royalty) {
    data = encodeFunctionData({
      abi: ROYALTY_ABI,
      functionName: 'setDefaultRoyalty',
      args: [royalty.receiver as Address, BigInt(royalty.amount_bps)],
    });
  } else {
    const canDelete = (collection.abi ?? []).some(
      (item) =>
        (item as AbiFunction).type === 'function' &&
        (item as AbiFunction).name === 'deleteDefaultRoyalty' &&
        (item as AbiFunction).inputs.length === 0,
    );
    if (!canDelete)
      throw new ApiError(
        'INVALID_STATE',
        "the collection's contract has no deleteDefaultRoyalty(): its default royalty cannot be removed, only changed",
      );
    data = encodeFunctionData({ abi: ROYALTY_ABI, functionName: 'deleteDefaultRoyalty' });
  }
  const wallet = await organizationWalletOf(db, collection.organization_id);
  await queueTransaction(db, {
    networkId: collection.network_id!,
    wallet,
    type: 'ROYALTY_UPDATE',
    to: collection.contract_address!,
    data,
  });
}

function checkedRoyalty(royalty: RoyaltyInfo, at: string): RoyaltyInfo {
  const receiver = checkedAddress(royalty.receiver, `${at}/receiver`);
  if (receiver === zeroAddress)
    throw validationFailed(
      'the royalty receiver cannot be the zero address',
      `${at}/receiver`,
      'must not be the zero address',
    );
  return { receiver, amount_bps: royalty.amount_bps };
}

function sameRoyalty(a: RoyaltyInfo | null, b: RoyaltyInfo | null): boolean {
  if (a === null || b === null) return a === b;
  return a.receiver === b.receiver && a.amount_bps === b.amount_bps;
}

// ---------------------------------------------------------------------------------- checks

/** preview_metadata: required for DELAYED, refused for INSTANT (which never shows it). */
function checkPreviewMetadata(
  strategy: CollectionRow['reveal_strategy'],
  preview: Record<string, unknown> | null,
  path: string,
): void {
  if (strategy === 'DELAYED' && preview === null)
    throw new ApiError(
      'PREVIEW_METADATA_REQUIRED',
      'a DELAYED collection needs preview_metadata, shown for every token until the reveal',
      { fields: [{ path, message: 'is required when reveal_strategy is DELAYED' }] },
    );
  if (strategy === 'INSTANT' && preview !== null)
    throw validationFailed(
      'an INSTANT collection has no preview_metadata',
      path,
      'must be absent or null when reveal_strategy is INSTANT',
    );
}

async function checkItemType(db: Executor, itemTypeId: string, organizationId: string, path: string) {
  if (!(await repo.itemTypeBelongsTo(db, itemTypeId, organizationId)))
    throw validationFailed(
      `item type ${itemTypeId} is not an item type of the organization`,
      path,
      "is not an item type of the collection's organization",
    );
}

/** Runs an insert or update that may take a name in use: 409 ALREADY_EXISTS then. */
async function uniquelyNamed<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, repo.COLLECTION_NAME_KEY))
      throw new ApiError(
        'ALREADY_EXISTS',
        `the organization already has a collection named ${JSON.stringify(name)}`,
      );
    throw error;
  }
}

function validationFailed(detail: string, path: string, message: string): ApiError {
  return new ApiError('VALIDATION_FAILED', detail, { fields: [{ path, message }] });
}
